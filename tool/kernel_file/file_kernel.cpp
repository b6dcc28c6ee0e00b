#include "kernel_file/file_kernel.h"

#include "base/error.h"
#include "base/json_input.h"
#include "base/text_file.h"
#include "base/text_format.h"
#include "base/text_hash.h"
#include "common.h"
#include "kernel_file/compile.h"
#include "kernel_file/compile_server.h"
#include "kernel_file/cubin_resources.h"
#include "kernel_file/file_model.h"
#include "kernel_file/include_check.h"
#include "model/block_text.h"
#include "model/kernel_source.h"
#include "model/run_options.h"
#include "registry.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

namespace wl {

namespace {

std::string base_name(const std::string& kernel) {
  const std::string name = kernel.substr(0, kernel.find('<'));
  return name.substr(0, name.find_last_not_of(" \t") + 1);
}

// What the file's expressions read in one launch: its sizes and tunables, and the block.
ExpressionValues values_of(const Params& params, const BlockShape& block) {
  ExpressionValues values(params.begin(), params.end());
  values["block.x"] = block.x;
  values["block.y"] = block.y;
  values["block.z"] = block.z;
  return values;
}

// An expression's value for one launch; a problem with it (an overflow, a division by zero) names
// the file, the line and the word it is written for.
std::int64_t evaluated(const Expression& e, const ExpressionValues& values,
                       const KernelFileDescription& d, int line, const std::string& word) {
  try {
    return e.evaluate(values);
  } catch (const UsageError& error) {
    throw UsageError(d.file + ":" + std::to_string(line) + ": " + word + " " + error.what());
  }
}

// A count the description gives (bytes, flops, shared bytes), which no launch has fewer than 0
// of: a negative one is refused with its line, not shown as "-100 B" or dropped.
std::int64_t at_least_zero(const Expression& e, const ExpressionValues& values,
                           const KernelFileDescription& d, int line, const std::string& word) {
  const std::int64_t value = evaluated(e, values, d, line, word);
  if (value < 0)
    throw UsageError(d.file + ":" + std::to_string(line) + ": " + word + " '" + clip(e.text(), 40) +
                     "' is " + std::to_string(value) + " for these sizes; allowed 0 or more");
  return value;
}

// "block.x = 128, TPB = 256": the values a condition read, for its refusal.
std::string values_read(const Expression& e, const ExpressionValues& values) {
  std::string text;
  for (const std::string& name : e.names())
    if (const auto found = values.find(name); found != values.end())
      text += (text.empty() ? "" : ", ") + name + " = " + std::to_string(found->second);
  return text;
}

// "is false for block.x = 64", or "is always false" for a condition that reads nothing.
std::string false_for(const Expression& e, const ExpressionValues& values) {
  const std::string read = values_read(e, values);
  return read.empty() ? "is always false" : "is false for " + read;
}

bool reads_the_block(const Expression& e) {
  return std::any_of(e.names().begin(), e.names().end(),
                     [](const std::string& name) { return name.starts_with("block."); });
}

std::string restriction_refusal(const KernelFileDescription& d, const ExpressionValues& values,
                                bool with_block) {
  for (const FileRestriction& r : d.restrictions)
    if (reads_the_block(r.condition) == with_block &&
        evaluated(r.condition, values, d, r.line, "restrict") == 0)
      return "restrict '" + clip(r.condition.text(), 60) + "' (" + d.file + ":" +
             std::to_string(r.line) + ") " + false_for(r.condition, values);
  return "";
}

BlockShape grid_of(const KernelFileDescription& d, const Params& params, const BlockShape& block) {
  const ExpressionValues values = values_of(params, block);
  std::array<std::int64_t, 3> sides{1, 1, 1};
  for (std::size_t i = 0; i < d.grid.size(); ++i)
    sides[i] = evaluated(d.grid[i], values, d, d.grid_line, "grid");
  for (std::size_t i = 0; i < 3; ++i)
    if (sides[i] < 1 || sides[i] > (i == 0 ? 2147483647 : 65535))
      throw UsageError(d.file + ":" + std::to_string(d.grid_line) + ": grid side " +
                       std::string(1, "xyz"[i]) + " = " + std::to_string(sides[i]) + " for block " +
                       format_block(block) + ": allowed 1 to " + (i == 0 ? "2^31 - 1" : "65535"));
  return {static_cast<int>(sides[0]), static_cast<int>(sides[1]), static_cast<int>(sides[2])};
}

// The fewest bytes a launch moves: the description's, else each buffer read or written once
// (an inout one both).
double bytes_moved(const KernelFileDescription& d, const Params& params) {
  const ExpressionValues values = values_of(params, {1, 1, 1});
  if (d.bytes)
    return static_cast<double>(at_least_zero(*d.bytes, values, d, d.bytes_line, "bytes"));
  double bytes = 0;
  for (const FileArg& a : d.args)
    if (a.buffer)
      bytes += static_cast<double>(evaluated(*a.count, values, d, a.line, "arg " + a.name)) *
               file_type_bytes(a.type) * (a.direction == Direction::inout ? 2 : 1);
  return bytes;
}

// The described kernels and the reference kernel they are checked against.
std::vector<std::string> kernels_to_compile(const KernelFileDescription& d) {
  std::vector<std::string> kernels = d.kernels;
  if (!d.reference.empty() &&
      std::find(kernels.begin(), kernels.end(), d.reference) == kernels.end())
    kernels.push_back(d.reference);
  return kernels;
}

// NVRTC's compiles of one file, by tunable values and architecture: a parameter sweep over the
// sizes compiles once.
struct CompileCache {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const CompiledKernelFile>> compiled;
  std::map<std::string, std::shared_ptr<const CompiledAccessModel>> models; // their PTX parsed
};

// The file compiled for these tunable values and `sm`: from the cache, else NVRTC's now.
std::shared_ptr<const CompiledKernelFile>
compiled_for(const KernelFile& file, CompileCache& cache,
             const std::map<std::string, std::int64_t>& tunables, int sm) {
  std::string key = std::to_string(sm);
  for (const auto& [tunable, value] : tunables)
    key += " " + tunable + "=" + std::to_string(value);
  // Held through the compile: a sweep's model threads and its session asking for the same
  // tunables at once wait for one compile.
  const std::lock_guard lock(cache.mutex);
  if (const auto found = cache.compiled.find(key); found != cache.compiled.end())
    return found->second;
  auto compiled = std::make_shared<const CompiledKernelFile>(
      compile_apart(KernelFileCompile{.text = file.text,
                                      .file = file.path.string(),
                                      .headers = file.headers,
                                      .kernels = kernels_to_compile(file.description),
                                      .tunables = tunables,
                                      .sm = sm}));
  cache.compiled[key] = compiled;
  return compiled;
}

std::map<std::string, std::int64_t> tunables_of(const KernelFileDescription& d,
                                                const Params& params) {
  std::map<std::string, std::int64_t> tunables;
  for (const FileTunable& t : d.tunables)
    tunables[t.name] = params.at(t.name);
  return tunables;
}

ElementType element_type(FileType type) {
  switch (type) {
  case FileType::f64:
    return ElementType::f64;
  case FileType::i32:
    return ElementType::i32;
  case FileType::u32:
    return ElementType::u32;
  case FileType::f32:
  case FileType::i64: // a scalar's type only
    break;
  }
  return ElementType::f32;
}

BufferRole role_of(Direction direction) {
  switch (direction) {
  case Direction::out:
    return BufferRole::output;
  case Direction::inout:
    return BufferRole::inout;
  case Direction::in:
    break;
  }
  return BufferRole::input;
}

constexpr std::int64_t kMostElements = std::int64_t{1} << 36; // 256 GiB of floats: no GPU has it

std::int64_t element_count(const KernelFileDescription& d, const FileArg& a, const Params& params) {
  const std::int64_t count =
      evaluated(*a.count, values_of(params, {1, 1, 1}), d, a.line, "arg " + a.name);
  if (count < 1 || count > kMostElements)
    throw UsageError(d.file + ":" + std::to_string(a.line) + ": arg " + a.name + " has " +
                     std::to_string(count) + " elements for these sizes; allowed 1 to 2^36");
  return count;
}

// A scalar argument's bytes as the kernel's parameter of its type holds them.
std::vector<unsigned char> scalar_bytes(const KernelFileDescription& d, const FileArg& a,
                                        const Params& params) {
  const auto bytes_of = [](const auto value) {
    std::vector<unsigned char> bytes(sizeof value);
    std::memcpy(bytes.data(), &value, sizeof value);
    return bytes;
  };
  if (a.type == FileType::f32)
    return bytes_of(static_cast<float>(a.real_value));
  if (a.type == FileType::f64)
    return bytes_of(a.real_value);
  const std::int64_t value =
      evaluated(*a.whole_value, values_of(params, {1, 1, 1}), d, a.line, "arg " + a.name);
  if (a.type == FileType::i64)
    return bytes_of(value);
  const bool is_int = a.type == FileType::i32;
  const std::int64_t low = is_int ? INT32_MIN : 0, high = is_int ? INT32_MAX : UINT32_MAX;
  if (value < low || value > high)
    throw UsageError(d.file + ":" + std::to_string(a.line) + ": arg " + a.name + " = " +
                     clip(a.whole_value->text(), 40) + " is " + std::to_string(value) +
                     " for these sizes; an " + file_type_name(a.type) + " holds " +
                     std::to_string(low) + " to " + std::to_string(high));
  return is_int ? bytes_of(static_cast<std::int32_t>(value))
                : bytes_of(static_cast<std::uint32_t>(value));
}

// The launch's arguments in the kernel's order: buffers by their index among the buffers.
std::vector<RunTimeArgument> arguments_of(const KernelFileDescription& d, const Params& params) {
  std::vector<RunTimeArgument> arguments;
  int buffers = 0;
  for (const FileArg& a : d.args) {
    if (a.buffer) {
      element_count(d, a, params); // refuses a count out of range
      arguments.push_back(RunTimeArgument{.buffer = buffers++, .value = {}, .name = a.name});
      continue;
    }
    arguments.push_back(
        RunTimeArgument{.buffer = -1, .value = scalar_bytes(d, a, params), .name = a.name});
  }
  return arguments;
}

std::vector<const FileArg*> buffer_args(const KernelFileDescription& d) {
  std::vector<const FileArg*> buffers;
  for (const FileArg& a : d.args)
    if (a.buffer)
      buffers.push_back(&a);
  return buffers;
}

std::vector<BufferSpec> buffers_of(const std::shared_ptr<const KernelFile>& shared) {
  std::vector<BufferSpec> specs;
  for (const FileArg* a : buffer_args(shared->description))
    specs.push_back(BufferSpec{.name = a->name,
                               .type = element_type(a->type),
                               .role = role_of(a->direction),
                               .count = [a, shared](const Params& params) {
                                 return element_count(shared->description, *a, params);
                               }});
  return specs;
}

// Element i of a buffer by its fill, as a double (a float or whole type converts from it).
double fill_value(const Fill& fill, FileType type, std::uint64_t seed, std::int64_t i) {
  switch (fill.kind) {
  case Fill::Kind::iota:
    return static_cast<double>(i);
  case Fill::Kind::constant:
    return fill.value;
  case Fill::Kind::random: {
    const std::uint64_t bits = common::hashed_bits(seed, static_cast<std::uint64_t>(i));
    if (type == FileType::f32 || type == FileType::f64)
      return fill.low + (fill.high - fill.low) * static_cast<double>(bits >> 11) * 0x1.0p-53;
    const double low = std::ceil(fill.low), span = std::floor(fill.high) - low + 1;
    return low + static_cast<double>(bits % static_cast<std::uint64_t>(std::max(span, 1.0)));
  }
  case Fill::Kind::zeros:
  case Fill::Kind::poison:
    break;
  }
  return 0;
}

// The bytes of elements [first, first + count) of an uploaded buffer (in or inout) as its fill
// makes them from the buffer's seed: the same bits whether the whole buffer is filled for the GPU
// or a page of it for the model.
void fill_elements(const FileArg& a, std::uint64_t buffer_seed, std::int64_t first,
                   std::int64_t count, std::byte* into) {
  const int size = file_type_bytes(a.type);
  if (a.fill.kind == Fill::Kind::zeros) {
    std::memset(into, 0, static_cast<std::size_t>(count * size));
    return;
  }
  for (std::int64_t i = first; i < first + count; ++i) {
    std::byte* at = into + (i - first) * size;
    if (a.type == FileType::f32 && a.fill.kind == Fill::Kind::random) {
      const float value =
          common::hashed_uniform(buffer_seed, static_cast<std::uint64_t>(i),
                                 static_cast<float>(a.fill.low), static_cast<float>(a.fill.high));
      std::memcpy(at, &value, 4);
      continue;
    }
    const double value = fill_value(a.fill, a.type, buffer_seed, i);
    const auto put = [&](const auto v) { std::memcpy(at, &v, sizeof v); };
    switch (a.type) {
    case FileType::f32:
      put(static_cast<float>(value));
      break;
    case FileType::f64:
      put(value);
      break;
    case FileType::i32:
      put(static_cast<std::int32_t>(std::clamp(value, -2147483648.0, 2147483647.0)));
      break;
    case FileType::u32:
      put(static_cast<std::uint32_t>(std::clamp(value, 0.0, 4294967295.0)));
      break;
    case FileType::i64: // a scalar's type only: the description refuses a buffer of it
      break;
    }
  }
}

std::uint64_t buffer_seed_of(std::uint64_t seed, std::size_t buffer) {
  return seed + (std::uint64_t{buffer} << 48);
}

// Fills every buffer that is uploaded (in and inout) by its fill, buffer b from seed + b * 2^48.
void fill_inputs(const KernelFileDescription& d, HostBuffers& buffers, std::uint64_t seed) {
  const std::vector<const FileArg*> args = buffer_args(d);
  for (std::size_t b = 0; b < args.size(); ++b) {
    const FileArg& a = *args[b];
    if (a.direction == Direction::out || a.fill.kind == Fill::Kind::zeros)
      continue;
    HostBuffer& buffer = buffers[b];
    if (a.type == FileType::f32 && a.fill.kind == Fill::Kind::random) { // in parallel slices
      common::fill_hashed(buffer.f32(), buffer.size(), buffer_seed_of(seed, b),
                          static_cast<float>(a.fill.low), static_cast<float>(a.fill.high));
      continue;
    }
    fill_elements(a, buffer_seed_of(seed, b), 0, buffer.size(),
                  reinterpret_cast<std::byte*>(buffer.words.data()));
  }
}

// The parameter types of a mangled kernel name as C++ writes them: "float const*", "int".
std::vector<std::string> parameter_types(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0)
    return {};
  const std::string signature = text.get();
  const std::size_t open = signature.rfind('(');
  if (open == std::string::npos || signature.back() != ')')
    return {};
  std::vector<std::string> types(1);
  int depth = 0;
  for (std::size_t i = open + 1; i + 1 < signature.size(); ++i) {
    const char c = signature[i];
    depth += c == '<' ? 1 : c == '>' ? -1 : 0;
    if (c == ',' && depth == 0)
      types.emplace_back();
    else if (!(c == ' ' && types.back().empty()))
      types.back() += c;
  }
  if (types.size() == 1 && types.front().empty())
    types.clear();
  return types;
}

// Whether each arg's type is the one the kernel takes: a float buffer for a float*, a long for a
// long long. "" when they agree or the name says nothing (extern "C").
std::string argument_type_problem(const KernelFileDescription& d, const std::string& mangled) {
  const std::vector<std::string> types = parameter_types(mangled);
  for (std::size_t i = 0; i < d.args.size() && i < types.size(); ++i) {
    const FileArg& a = d.args[i];
    const std::string& type = types[i];
    const bool pointer = type.find('*') != std::string::npos;
    std::string base = type.substr(0, type.find_first_of("*&"));
    if (const std::size_t c = base.find(" const"); c != std::string::npos)
      base.erase(c);
    while (!base.empty() && base.back() == ' ')
      base.pop_back();
    const std::string want = a.type == FileType::u32   ? "unsigned int"
                             : a.type == FileType::i64 ? "long long"
                                                       : file_type_name(a.type);
    const bool same = base == want || (a.type == FileType::i64 && base == "long");
    if (pointer != a.buffer ||
        (!same && (base == "float" || base == "double" || base == "int" || base == "unsigned int" ||
                   base == "long" || base == "long long")))
      return "parameter " + std::to_string(i + 1) + " is " + type +
             ", but its description's arg '" + a.name + "' is " + (a.buffer ? "a buffer of " : "") +
             file_type_name(a.type) + "; list the args in the kernel's order with its types";
  }
  return "";
}

// A kernel's registers, shared and local memory for these parameters on `sm`, as NVRTC's
// ptxas reported them.
KernelUsage usage_of(const KernelFile& file, CompileCache& cache, const std::string& kernel,
                     const Params& params, int sm) {
  const std::map<std::string, std::int64_t> tunables = tunables_of(file.description, params);
  const auto compiled = compiled_for(file, cache, tunables, sm);
  const std::string name = with_tunables(kernel, tunables);
  const auto found = compiled->usage.find(name);
  if (found == compiled->usage.end())
    throw UsageError(file.path.string() + ": the compiler reported no resources of " + name +
                     " (its log: " + clip(compiled->log.empty() ? "empty" : compiled->log, 200) +
                     ")");
  // The description's args against the compiled parameters, as a run checks them on the GPU, and
  // their types against those the kernel's name says it takes (a float* is 8 bytes like a
  // double*).
  const std::vector<RunTimeArgument> arguments = arguments_of(file.description, params);
  if (const std::string wrong = argument_type_problem(
          file.description, compiled->lowered.at(with_tunables(kernel, tunables)));
      !wrong.empty())
    throw UsageError(file_kernel_id(file, kernel) + ": " + wrong);
  for (const std::string& function : {kernel, file.description.reference}) {
    if (function.empty())
      continue;
    const std::string lowered = compiled->lowered.at(with_tunables(function, tunables));
    const std::optional<std::vector<int>> sizes = cubin_parameter_sizes(compiled->cubin, lowered);
    if (!sizes)
      continue;
    const std::string problem = parameters_problem(
        file_kernel_id(file, function) + (function == kernel ? "" : " (the reference)"),
        std::vector<std::size_t>(sizes->begin(), sizes->end()), arguments);
    if (!problem.empty())
      throw UsageError(problem);
  }
  const CompiledResources& r = found->second;
  return KernelUsage{.sm = r.sm,
                     .registers = r.registers,
                     .static_shared_bytes = r.static_shared_bytes,
                     .local_bytes = r.stack_frame_bytes,
                     .source = "NVRTC, sm_" + std::to_string(r.sm) + ", compiled here"};
}

// What a session's buffers and inputs depend on, in words: each buffer's name, direction, type,
// count and fill, and whether a reference kernel is run.
std::string inputs_signature_of(const KernelFileDescription& d) {
  std::string words = d.reference.empty() ? "check none" : "checked";
  for (const FileArg* a : buffer_args(d))
    words += "; " + a->name + " " + std::to_string(static_cast<int>(a->direction)) + " " +
             file_type_name(a->type) + "[" + a->count->text() + "] " +
             std::to_string(static_cast<int>(a->fill.kind)) + " " + format_number(a->fill.low, 17) +
             " " + format_number(a->fill.high, 17) + " " + format_number(a->fill.value, 17);
  return words;
}

RunTimeCode code_of(const KernelFile& file, CompileCache& cache, const std::string& kernel,
                    const Params& params, int sm) {
  const KernelFileDescription& d = file.description;
  const std::map<std::string, std::int64_t> tunables = tunables_of(d, params);
  const auto compiled = compiled_for(file, cache, tunables, sm);
  const auto lowered = [&](const std::string& name) {
    const auto found = compiled->lowered.find(with_tunables(name, tunables));
    if (found == compiled->lowered.end())
      throw UsageError(file.path.string() + ": the compiler gave no name for " + name);
    return found->second;
  };
  return RunTimeCode{.cubin = std::shared_ptr<const std::vector<char>>(compiled, &compiled->cubin),
                     .function = lowered(kernel),
                     .reference = d.reference.empty() ? "" : lowered(d.reference),
                     .reference_name = d.reference,
                     .arguments = arguments_of(d, params)};
}

// What the model gives one launch: each buffer filled on demand as the GPU's is (an out buffer
// poisoned, 0xff, as the engine poisons it), the arguments, the dynamic shared memory.
FileModelInputs model_inputs(const std::shared_ptr<const KernelFile>& shared,
                             const LaunchShape& launch) {
  const KernelFileDescription& d = shared->description;
  FileModelInputs inputs;
  const std::vector<const FileArg*> buffers = buffer_args(d);
  const std::uint64_t seed = EngineOptions{}.seed;
  for (std::size_t b = 0; b < buffers.size(); ++b) {
    const FileArg* a = buffers[b];
    const int size = file_type_bytes(a->type);
    const std::int64_t count = element_count(d, *a, launch.params);
    inputs.buffers.push_back(FileModelBuffer{
        .bytes = static_cast<std::uint64_t>(count * size),
        .fill = [shared, a, size, seed, b](std::uint64_t offset, std::span<std::byte> into) {
          if (a->direction == Direction::out) {
            std::memset(into.data(), 0xff, into.size());
            return;
          }
          fill_elements(*a, buffer_seed_of(seed, b), static_cast<std::int64_t>(offset) / size,
                        static_cast<std::int64_t>(into.size()) / size, into.data());
        }});
  }
  for (const RunTimeArgument& argument : arguments_of(d, launch.params)) {
    FileModelArgument a{.buffer = argument.buffer, .value = {}};
    for (const unsigned char c : argument.value)
      a.value.push_back(static_cast<std::byte>(c));
    inputs.arguments.push_back(std::move(a));
  }
  inputs.dynamic_shared_bytes =
      d.shared_bytes ? static_cast<std::uint32_t>(
                           at_least_zero(*d.shared_bytes, values_of(launch.params, launch.block), d,
                                         d.shared_line, "shared"))
                     : 0;
  return inputs;
}

// The kernel's access model for these parameters on `sm`: from the compile of its tunables, made
// once and kept with it.
std::shared_ptr<const CompiledAccessModel>
access_model_of(const std::shared_ptr<const KernelFile>& shared, CompileCache& cache,
                const std::string& kernel, const Params& params, int sm) {
  const std::map<std::string, std::int64_t> tunables = tunables_of(shared->description, params);
  const auto compiled = compiled_for(*shared, cache, tunables, sm);
  std::string key = std::to_string(sm) + " " + with_tunables(kernel, tunables);
  for (const auto& [tunable, value] : tunables)
    key += " " + tunable + "=" + std::to_string(value);
  const std::lock_guard lock(cache.mutex);
  if (const auto found = cache.models.find(key); found != cache.models.end())
    return found->second;
  auto model = std::make_shared<const FileAccessModel>(
      compiled, compiled->lowered.at(with_tunables(kernel, tunables)),
      shared->path.filename().string(),
      [shared](const LaunchShape& launch) { return model_inputs(shared, launch); });
  cache.models[key] = model;
  return model;
}

std::vector<ParamSpec> params_of(const KernelFileDescription& d) {
  std::vector<ParamSpec> specs;
  for (const FileSize& s : d.sizes)
    specs.push_back(
        ParamSpec{.name = s.name,
                  .help = "a size of " + d.file + " (line " + std::to_string(s.line) + ")",
                  .default_value = s.default_value,
                  .min = 1,
                  .max = std::int64_t{1} << 40,
                  .choices = {},
                  .is_size = true});
  for (const FileTunable& t : d.tunables) {
    const auto [low, high] = std::minmax_element(t.values.begin(), t.values.end());
    specs.push_back(ParamSpec{.name = t.name,
                              .help = "a tunable of " + d.file + " (line " +
                                      std::to_string(t.line) + "), passed as -D" + t.name,
                              .default_value = t.values.front(),
                              .min = *low,
                              .max = *high,
                              .choices = t.values,
                              .is_size = false});
  }
  return specs;
}

} // namespace

namespace {

constexpr int kMostHeaders = 32;

// Whether `path` lies within `folder` once links and `..` are resolved.
bool within(const std::filesystem::path& folder, const std::filesystem::path& path) {
  std::error_code error;
  const std::filesystem::path root = std::filesystem::weakly_canonical(folder, error);
  const std::filesystem::path found = std::filesystem::weakly_canonical(path, error);
  return !error &&
         std::mismatch(root.begin(), root.end(), found.begin(), found.end()).first == root.end();
}

// The headers a file includes with quotes that are in its folder, and theirs, by name as
// written; one that is not there is left to the compiler (which says so if it needs it).
std::map<std::string, std::string> read_headers(const std::filesystem::path& file,
                                                const std::string& text) {
  const std::string named = "kernel file '" + clip(file.string(), 80) + "'";
  const std::filesystem::path folder = file.parent_path().empty() ? "." : file.parent_path();
  std::map<std::string, std::string> headers;
  // (name as written, the folder of the file that includes it)
  std::vector<std::pair<std::string, std::filesystem::path>> waiting;
  for (const std::string& name : quoted_includes(text))
    waiting.emplace_back(name, folder);
  std::size_t bytes = 0;
  while (!waiting.empty()) {
    const auto [name, beside] = waiting.back();
    waiting.pop_back();
    if (headers.contains(name))
      continue;
    // Beside the file that includes it, as the compiler looks first. Its headers travel with the
    // file to the worker, which may be another machine, so one outside the file's folder (an
    // absolute path, `..`, a link to elsewhere) is refused rather than read and sent unasked.
    const std::filesystem::path path = beside / name;
    std::error_code error;
    const bool there = std::filesystem::exists(std::filesystem::symlink_status(path, error));
    // A link loop (loop.h -> loop.h) has no place to be in or out of: the system's reason.
    if (std::error_code loop;
        there && (static_cast<void>(std::filesystem::weakly_canonical(path, loop)), loop))
      throw UsageError(named + ": its header '" + clip(name, 40) +
                       "' cannot be read: " + loop.message());
    if (there && (std::filesystem::path(name).is_absolute() || !within(folder, path)))
      throw UsageError(named + ": #include \"" + clip(name, 60) + "\" is outside the file's " +
                       "folder; its headers are sent with it to the worker, so only those in " +
                       "its folder (or below) are read: copy the header beside the file");
    RegularFileRead read = read_regular_file(path, kLargestHeaders);
    using Problem = RegularFileRead::Problem;
    if (read.problem == Problem::missing)
      continue;
    if (read.problem == Problem::not_regular || read.problem == Problem::folder)
      throw UsageError(named + ": its header '" + clip(name, 40) + "' is " +
                       (read.problem == Problem::folder ? "a folder" : read.reason) +
                       ", not a regular file; a header is a text file");
    if (read.problem == Problem::unreadable)
      throw UsageError(named + ": its header '" + clip(name, 40) +
                       "' cannot be read: " + read.reason);
    if (headers.size() == kMostHeaders) // the compiler would not find the 33rd
      throw UsageError(named + ": it includes more than " + std::to_string(kMostHeaders) +
                       " headers (at '" + clip(name, 40) + "'); allowed at most " +
                       std::to_string(kMostHeaders) + " header files");
    bytes += read.problem == Problem::too_large ? kLargestHeaders + 1 : read.text.size();
    if (bytes > kLargestHeaders)
      throw UsageError(named + ": its headers hold over 128 KiB (at '" + clip(name, 40) +
                       "'); allowed at most that together");
    for (const std::string& more : quoted_includes(read.text))
      waiting.emplace_back(more, path.parent_path());
    headers[name] = std::move(read.text);
  }
  return headers;
}

} // namespace

std::string parameters_problem(const std::string& kernel, const std::vector<std::size_t>& sizes,
                               const std::vector<RunTimeArgument>& arguments) {
  const auto bytes = [](const RunTimeArgument& a) { return a.buffer >= 0 ? 8 : a.value.size(); };
  for (std::size_t i = 0; i < arguments.size() && i < sizes.size(); ++i)
    if (sizes[i] != bytes(arguments[i]))
      return kernel + ": parameter " + std::to_string(i + 1) + " is " + std::to_string(sizes[i]) +
             " bytes, but its description's arg '" + arguments[i].name + "' is " +
             std::to_string(bytes(arguments[i])) +
             (arguments[i].buffer >= 0 ? " (a pointer)" : "") +
             "; list the args in the kernel's order with its types";
  if (sizes.size() < arguments.size())
    return kernel + " takes " + std::to_string(sizes.size()) +
           " parameters, but its description lists " + std::to_string(arguments.size()) +
           " args (the first extra is '" + arguments[sizes.size()].name + "')";
  if (sizes.size() > arguments.size())
    return kernel + " takes " + std::to_string(sizes.size()) +
           " parameters, but its description "
           "lists " +
           std::to_string(arguments.size()) + " args; add an arg line for each";
  return "";
}

KernelFile read_kernel_file(const std::filesystem::path& path) {
  const std::string named = "kernel file '" + clip(path.string(), 80) + "'";
  RegularFileRead read = read_regular_file(path, kLargestKernelFile);
  using Problem = RegularFileRead::Problem;
  switch (read.problem) {
  case Problem::none:
    break;
  case Problem::missing:
    throw UsageError(named + ": " + read.reason);
  case Problem::folder:
    throw UsageError(named + " is a folder; give a .cu file");
  case Problem::not_regular:
    throw UsageError(named + " is " + read.reason + ", not a regular file; give a .cu file");
  case Problem::too_large:
    throw UsageError(named + " is " + std::to_string(read.size) +
                     " bytes; allowed at most 128 KiB (put shared code in a header beside it)");
  case Problem::unreadable:
    throw UsageError(named + " cannot be read: " + read.reason);
  }
  std::map<std::string, std::string> headers = read_headers(path, read.text);
  return kernel_file_from_text(path, std::move(read.text), std::move(headers));
}

KernelFile kernel_file_from_text(const std::filesystem::path& path, std::string text,
                                 std::map<std::string, std::string> headers) {
  const std::string named = "kernel file '" + clip(path.string(), 80) + "'";
  // The path names the file (its id, its messages and the compile's line table): a worker is
  // sent it, and one that ends in a folder's '/' names no file.
  if (path.filename().empty() || path.filename() == "." || path.filename() == "..")
    throw UsageError(named + " names no file; give the path of a .cu file");
  if (text.size() > kLargestKernelFile)
    throw UsageError(named + " is " + std::to_string(text.size()) +
                     " bytes; allowed at most 128 KiB (put shared code in a header beside it)");
  if (text.find('\0') != std::string::npos)
    throw UsageError(named + " is not text (it holds a NUL byte); give CUDA source");
  std::size_t header_bytes = 0;
  for (const auto& [name, header] : headers) {
    header_bytes += header.size();
    if (header.find('\0') != std::string::npos)
      throw UsageError(named + ": its header '" + clip(name, 40) + "' is not text");
  }
  if (header_bytes > kLargestHeaders || headers.size() > kMostHeaders)
    throw UsageError(named + ": its headers hold " + std::to_string(header_bytes) + " bytes in " +
                     std::to_string(headers.size()) + " files; allowed at most 128 KiB in 32");
  // A byte order mark some editors write first: NVRTC takes it for a token.
  if (text.starts_with("\xEF\xBB\xBF"))
    text.erase(0, 3);
  KernelFile file{.path = path,
                  .text = std::move(text),
                  .headers = std::move(headers),
                  .hash = "",
                  .description = {}};
  std::string hashed = file.text;
  for (const auto& [name, header] : file.headers)
    hashed += std::string(1, '\0') + name + '\0' + header;
  file.hash = text_hash(hashed);
  file.description = read_kernel_file_description(file.text, path.string());
  return file;
}

std::string file_kernel_id(const KernelFile& file, const std::string& kernel) {
  // A file's name may hold anything but '/' and NUL: an escape sequence, a newline or a
  // right-to-left override would reach the terminal, the tree and the sidecar. Shown as '?',
  // as every text from outside is.
  const std::string stem = file.path.stem().string();
  return clip(stem, stem.size()) + "/" + base_name(kernel);
}

std::vector<KernelDesc> file_kernels(const KernelFile& file) {
  auto shared = std::make_shared<const KernelFile>(file);
  auto cache = std::make_shared<CompileCache>();
  const KernelFileDescription& d = shared->description;
  std::vector<KernelDesc> kernels;
  for (const std::string& name : d.kernels) {
    KernelDesc k;
    k.kind = KernelKind::run_time;
    k.id = file_kernel_id(file, name);
    for (const KernelDesc& bundled : all_kernels())
      if (bundled.id == k.id)
        throw UsageError(file.path.string() + ": its kernel '" + name + "' would have the id " +
                         k.id + ", a bundled kernel's; rename the file or the kernel");
    k.title = name + " (" + file.path.filename().string() + ")";
    k.lesson = "Your kernel " + name + " from " + file.path.string() + " (" + file.hash + "). " +
               (d.reference.empty() ? "Not verified: its description says `check none`."
                                    : "A run verifies its outputs against " + d.reference +
                                          " of the same file, run on the GPU with the same "
                                          "inputs.");
    k.params = params_of(d);
    k.check_params = [shared](const Params& params) -> std::string {
      try {
        const std::string refusal =
            restriction_refusal(shared->description, values_of(params, {1, 1, 1}), false);
        if (!refusal.empty())
          return refusal;
        arguments_of(shared->description, params);
      } catch (const UsageError& e) {
        return e.what();
      }
      return "";
    };
    const BlockShape block = d.default_block;
    k.block_rank = block.z > 1 ? 3 : block.y > 1 ? 2 : 1;
    k.default_block = block;
    k.block_presets = {block};
    k.allowed_blocks = "any block of at most 1024 threads its restrictions allow";
    k.check_block = [shared](const BlockShape& b, const Params& params) -> std::string {
      if (const std::string hardware = common::check_3d_block(b); !hardware.empty())
        return hardware; // what no GPU runs, before what the file restricts
      try {
        const std::string refusal =
            restriction_refusal(shared->description, values_of(params, b), true);
        if (!refusal.empty())
          return refusal;
        grid_of(shared->description, params, b);
      } catch (const UsageError& e) {
        return e.what();
      }
      return "";
    };
    k.grid = [shared](const Params& params, const BlockShape& b, int) {
      return grid_of(shared->description, params, b);
    };
    k.dynamic_smem = [shared](const Params& params, const BlockShape& b) -> std::int64_t {
      const KernelFileDescription& d = shared->description;
      return d.shared_bytes
                 ? at_least_zero(*d.shared_bytes, values_of(params, b), d, d.shared_line, "shared")
                 : 0;
    };
    k.bytes_moved = [shared](const Params& params) {
      return bytes_moved(shared->description, params);
    };
    k.bytes_are_a_floor = d.bytes.has_value();
    if (d.flops)
      k.flops = [shared](const Params& params) {
        const KernelFileDescription& d = shared->description;
        return static_cast<double>(
            at_least_zero(*d.flops, values_of(params, {1, 1, 1}), d, d.flops_line, "flops"));
      };
    k.buffers = buffers_of(shared);
    k.init = [shared](HostBuffers& buffers, const Params&, std::uint64_t seed) {
      fill_inputs(shared->description, buffers, seed);
    };
    k.tolerance = Tolerance{.absolute = d.tolerance, .relative = d.tolerance};
    k.usage = [shared, cache, name](const Params& params, int sm) {
      return usage_of(*shared, *cache, name, params, sm);
    };
    k.code = [shared, cache, name](const Params& params, int sm) {
      return code_of(*shared, *cache, name, params, sm);
    };
    k.compiled_model = [shared, cache, name](const Params& params, int sm) {
      return access_model_of(shared, *cache, name, params, sm);
    };
    k.inputs_signature = inputs_signature_of(d);
    kernels.push_back(std::move(k));
  }
  return kernels;
}

std::string kernel_file_path(const std::string& text) {
  const std::size_t colon = text.rfind(".cu:");
  return colon == std::string::npos ? text : text.substr(0, colon + 3);
}

bool names_a_kernel_file(const std::string& text) {
  const std::string path = kernel_file_path(text);
  std::error_code error; // a path that is there (a folder given by mistake) is refused as a file
  return path.ends_with(".cu") || path.ends_with(".cuh") ||
         (path.find('/') != std::string::npos && std::filesystem::exists(path, error));
}

namespace {

// The files added, by path and by kernel id, as added last.
struct AddedFiles {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const KernelFile>> by_path, by_kernel;
};

AddedFiles& added_files() {
  static AddedFiles files;
  return files;
}

} // namespace

std::vector<std::string> use_kernel_file(const KernelFile& file, std::vector<KernelDesc> kernels) {
  if (kernels.empty())
    kernels = file_kernels(file);
  std::vector<std::string> ids;
  for (const KernelDesc& kernel : kernels)
    ids.push_back(kernel.id);
  AddedFiles& added = added_files();
  const std::lock_guard lock(added.mutex);
  std::shared_ptr<const KernelFile>& last = added.by_path[file.path.string()];
  if (last && last->hash == file.hash)
    return ids;
  last = std::make_shared<const KernelFile>(file);
  for (KernelDesc& kernel : kernels) {
    added.by_kernel[kernel.id] = last;
    add_run_time_kernel(std::move(kernel));
  }
  return ids;
}

std::shared_ptr<const KernelFile> kernel_file_of(const std::string& kernel_id) {
  AddedFiles& added = added_files();
  const std::lock_guard lock(added.mutex);
  const auto found = added.by_kernel.find(kernel_id);
  return found == added.by_kernel.end() ? nullptr : found->second;
}

std::string kernel_source_hash(const KernelDesc& kernel) {
  if (const auto file = kernel_file_of(kernel.id))
    return file->hash;
  std::string text;
  for (const std::string& line : family_source(kernel).lines)
    text += line + "\n";
  return text_hash(text);
}

std::string kernel_source_name(const KernelDesc& kernel) {
  if (const auto file = kernel_file_of(kernel.id))
    return clip(file->path.filename().string(), 60);
  return family_source(kernel).file;
}

namespace {

// "x.cu:kernel" -> the file's path and the kernel named ("" where none is).
struct NamedKernel {
  std::string path, wanted;
  explicit NamedKernel(const std::string& text) {
    path = kernel_file_path(text);
    const bool named = path.size() < text.size();
    wanted = named ? text.substr(path.size() + 1) : "";
    if (named && wanted.empty())
      throw UsageError("'" + clip(text, 80) + "' names no kernel after its ':'; write " +
                       clip(path, 60) + " for its first kernel, or " + clip(path, 60) + ":KERNEL");
  }
  bool wants(const std::string& id) const {
    return wanted.empty() || id.substr(id.find('/') + 1) == wanted;
  }
};

} // namespace

std::string kernel_file_id(const std::string& text) {
  const NamedKernel named(text);
  std::shared_ptr<const KernelFile> last;
  {
    AddedFiles& added = added_files();
    const std::lock_guard lock(added.mutex);
    if (const auto found = added.by_path.find(named.path); found != added.by_path.end())
      last = found->second;
  }
  if (last)
    for (const std::string& kernel : last->description.kernels)
      if (const std::string id = file_kernel_id(*last, kernel); named.wants(id))
        return id;
  return add_kernel_file(text);
}

std::string add_kernel_file(const std::string& text) {
  const NamedKernel named(text);
  std::string names;
  for (const std::string& id : use_kernel_file(read_kernel_file(named.path))) {
    if (named.wants(id))
      return id;
    names += (names.empty() ? "" : ", ") + id.substr(id.find('/') + 1);
  }
  throw UsageError(named.path + ": no kernel '" + clip(named.wanted, 40) +
                   "' in its description; it has " + names);
}

} // namespace wl
