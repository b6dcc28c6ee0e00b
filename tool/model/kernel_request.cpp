#include "model/kernel_request.h"

#include "base/error.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "model/arch.h"
#include "model/block_text.h"
#include "registry.h"

#include <algorithm>
#include <map>

namespace wl {

namespace {

std::string kernel_ids() {
  std::string ids;
  for (const KernelDesc& k : all_kernels())
    ids += (ids.empty() ? "" : ", ") + k.id;
  return ids;
}

const KernelDesc& find_or_explain(const std::string& id) {
  if (const KernelDesc* k = find_kernel(id))
    return *k;
  const std::string family = kernel_family(id);
  std::string variants;
  for (const KernelDesc* k : family_kernels(family))
    variants += (variants.empty() ? "" : ", ") + k->id;
  if (!variants.empty() && id == family) // a family named alone: which of its variants
    throw UsageError("'" + clip(id, 40) +
                     "' is a family of kernels; name one of its variants: " + variants);
  if (!variants.empty())
    throw UsageError("unknown variant '" + clip(id, 60) + "'; " + family + " has " + variants);
  throw UsageError("unknown kernel '" + id + "'; choose one of " + kernel_ids());
}

const ParamSpec* find_param(const KernelDesc& kernel, const std::string& name) {
  for (const ParamSpec& spec : kernel.params)
    if (spec.name == name)
      return &spec;
  return nullptr;
}

// A parameter's value as typed; the message names the parameter and the values it allows.
std::int64_t parse_integer(const std::string& text, const ParamSpec& spec,
                           const std::string& what) {
  const auto [value, problem] = read_whole_number(text);
  if (!problem.empty())
    throw UsageError(what + ": '" + clip(text, 40) + "' " + problem + "; allowed " +
                     allowed_values(spec));
  return value;
}

} // namespace

// "128, 256" for a parameter with choices, else "1 to 64": what its values may be.
std::string allowed_values(const ParamSpec& spec) {
  return spec.choices.empty() ? std::to_string(spec.min) + " to " + std::to_string(spec.max)
                              : joined(spec.choices, ", ");
}

void check_param_value(const KernelDesc& kernel, const ParamSpec& spec, std::int64_t value) {
  if (!spec.choices.empty()) {
    if (std::find(spec.choices.begin(), spec.choices.end(), value) != spec.choices.end())
      return;
    throw UsageError(kernel.id + ": " + spec.name + "=" + std::to_string(value) +
                     " is not allowed; choose " + joined(spec.choices, ", "));
  }
  if (value < spec.min || value > spec.max)
    throw UsageError(kernel.id + ": " + spec.name + "=" + std::to_string(value) +
                     " is out of range; allowed " + std::to_string(spec.min) + " to " +
                     std::to_string(spec.max));
}

std::string param_names(const KernelDesc& kernel) {
  std::string names;
  for (const ParamSpec& spec : kernel.params)
    names += (names.empty() ? "" : ", ") + spec.name;
  return names.empty() ? "none" : names;
}

const ParamSpec& kernel_param(const KernelDesc& kernel, const std::string& name) {
  if (const ParamSpec* spec = find_param(kernel, name))
    return *spec;
  throw UsageError(kernel.id + " has no parameter '" + clip(name, 40) +
                   "'; parameters: " + param_names(kernel));
}

namespace {

void apply_size(const KernelDesc& kernel, const std::string& size, Params& params) {
  std::vector<const ParamSpec*> sizes;
  for (const ParamSpec& spec : kernel.params)
    if (spec.is_size)
      sizes.push_back(&spec);
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t end = size.find('x', start);
    parts.push_back(size.substr(start, end == std::string::npos ? end : end - start));
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  std::string names;
  for (const ParamSpec* spec : sizes)
    names += (names.empty() ? "" : "x") + spec->name;
  if (parts.size() != sizes.size())
    throw UsageError(kernel.id + ": --size '" + size + "' needs " + std::to_string(sizes.size()) +
                     " side(s): " + (names.empty() ? "this kernel has no size parameter" : names));
  for (std::size_t i = 0; i < parts.size(); ++i)
    params[sizes[i]->name] =
        parse_integer(parts[i], *sizes[i], kernel.id + ": --size " + sizes[i]->name);
}

// A kernel built for combinations of its parameters (a tunable kernel's blockings): the values
// given keep theirs, and those left at their defaults move to the nearest combination built with
// them, as the GUI's fields do. Left as they are where no built combination keeps every value
// given: the check then refuses them, naming the combinations built.
void follow_built_combination(const KernelDesc& kernel,
                              const std::map<std::string, std::string>& given, Params& params) {
  if (!kernel.nearest_params || !kernel.check_params || kernel.check_params(params).empty())
    return;
  Params moved = params;
  for (const auto& [name, text] : given)
    moved = kernel.nearest_params(moved, name);
  const bool keeps_given = std::all_of(given.begin(), given.end(), [&](const auto& g) {
    return moved.at(g.first) == params.at(g.first);
  });
  if (keeps_given && kernel.check_params(moved).empty())
    params = std::move(moved);
}

// With no block given: the kernel's default, or where these parameters refuse it (tile 32, a
// blocking of 128 threads), the first of its presets they allow.
BlockShape block_for(const KernelDesc& kernel, const Params& params) {
  if (!kernel.check_block || kernel.check_block(kernel.default_block, params).empty())
    return kernel.default_block;
  try {
    check_kernel_params(kernel, params); // parameters refused are named by the check, not here
  } catch (const UsageError&) {
    return kernel.default_block;
  }
  const std::vector<BlockShape> allowed = allowed_presets(kernel, params);
  return allowed.empty() ? kernel.default_block : allowed.front();
}

} // namespace

KernelRequest resolve_kernel_request(const std::string& id,
                                     const std::vector<std::string>& param_texts,
                                     const std::string& size, const std::string& block) {
  KernelRequest request;
  request.kernel = &find_or_explain(id);
  const KernelDesc& kernel = *request.kernel;
  for (const ParamSpec& spec : kernel.params)
    request.params[spec.name] = spec.default_value;
  if (!size.empty())
    apply_size(kernel, size, request.params);
  std::map<std::string, std::string> given; // a parameter given twice is refused, not overwritten
  for (const std::string& text : param_texts) {
    const std::size_t eq = text.find('=');
    const std::string name = text.substr(0, eq);
    if (eq != std::string::npos && !given.emplace(name, text.substr(eq + 1)).second)
      throw UsageError(kernel.id + ": --param " + clip(name, 40) + " is given twice ('" +
                       clip(given[name], 20) + "' and '" + clip(text.substr(eq + 1), 20) +
                       "'); give each parameter once");
    if (eq == std::string::npos)
      throw UsageError(kernel.id + ": --param '" + text +
                       "' must be name=value; parameters: " + param_names(kernel));
    const ParamSpec& spec = kernel_param(kernel, name);
    if (spec.is_size && !size.empty()) // neither may silently win over the other
      throw UsageError(kernel.id + ": --size '" + clip(size, 40) + "' and --param " +
                       clip(text, 40) + " both set " + name + "; give it once");
    request.params[name] =
        parse_integer(text.substr(eq + 1), spec, kernel.id + ": --param " + name);
  }
  follow_built_combination(kernel, given, request.params);
  request.block = block.empty() ? block_for(kernel, request.params) : parse_block(block);
  check_kernel_request(request);
  return request;
}

void check_kernel_params(const KernelDesc& kernel, const Params& params) {
  // Every parameter given must be the kernel's, and every one of the kernel's must be given: a
  // request built for another kernel is refused before it is sent, naming what is wrong.
  for (const auto& [name, value] : params)
    kernel_param(kernel, name);
  for (const ParamSpec& spec : kernel.params) {
    const auto given = params.find(spec.name);
    if (given == params.end())
      throw UsageError(kernel.id + ": parameter '" + spec.name +
                       "' is missing; parameters: " + param_names(kernel));
    check_param_value(kernel, spec, given->second);
  }
  if (kernel.check_params)
    if (const std::string why = kernel.check_params(params); !why.empty())
      throw UsageError(kernel.id + ": " + why);
}

void check_kernel_request(const KernelRequest& request) {
  check_kernel_params(*request.kernel, request.params);
  check_kernel_block(request);
}

std::string compute_capability_need(const KernelDesc& kernel) {
  const int needed = kernel.min_compute_capability;
  if (needed <= 0)
    return "";
  return "needs compute capability " + std::to_string(needed / 10) + "." +
         std::to_string(needed % 10) + " or later" +
         (kernel.needs_why.empty() ? "" : " (" + kernel.needs_why + ")");
}

void check_kernel_arch(const KernelDesc& kernel, const Arch& arch) {
  if (kernel.min_compute_capability > arch.cc_major * 10 + arch.cc_minor)
    throw UsageError(kernel.id + " " + compute_capability_need(kernel) + "; " + arch.id + " is " +
                     std::to_string(arch.cc_major) + "." + std::to_string(arch.cc_minor));
}

void check_kernel_block(const KernelRequest& request) {
  const KernelDesc& kernel = *request.kernel;
  if (kernel.kind == KernelKind::library && !(request.block == kernel.default_block))
    throw UsageError(kernel.id + " takes no block (" + format_block(request.block) +
                     " was given): " + kernel.allowed_blocks + "; leave the block out");
  if (const std::string why = kernel.check_block(request.block, request.params); !why.empty())
    throw UsageError(kernel.id + " cannot use block " + format_block(request.block) + ": " + why +
                     " (allowed: " + kernel.allowed_blocks + ")");
}

std::vector<BlockShape> allowed_presets(const KernelDesc& kernel, const Params& params) {
  std::vector<BlockShape> blocks;
  if (kernel.check_block(kernel.default_block, params).empty())
    blocks.push_back(kernel.default_block);
  for (const BlockShape& b : kernel.block_presets)
    if (!(b == kernel.default_block) && kernel.check_block(b, params).empty())
      blocks.push_back(b);
  return blocks;
}

std::string format_params(const KernelDesc& kernel, const Params& params) {
  std::string text;
  for (const ParamSpec& spec : kernel.params)
    text += (text.empty() ? "" : " ") + spec.name + "=" + std::to_string(params.at(spec.name));
  return text;
}

} // namespace wl
