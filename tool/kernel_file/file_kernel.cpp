#include "kernel_file/file_kernel.h"

#include "base/error.h"
#include "base/json_input.h"
#include "kernel_file/compile.h"
#include "model/block_text.h"
#include "registry.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

namespace wl {

namespace {

constexpr std::uintmax_t kLargestFile = 4u << 20; // far more than a kernel file; less than a log

std::string fnv1a64(const std::string& text) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : text)
    hash = (hash ^ c) * 0x100000001b3ull;
  char digits[17];
  std::snprintf(digits, sizeof digits, "%016llx", static_cast<unsigned long long>(hash));
  return std::string("fnv1a64:") + digits;
}

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

bool reads_the_block(const Expression& e) {
  return std::any_of(e.names().begin(), e.names().end(),
                     [](const std::string& name) { return name.starts_with("block."); });
}

std::string restriction_refusal(const KernelFileDescription& d, const ExpressionValues& values,
                                bool with_block) {
  for (const FileRestriction& r : d.restrictions)
    if (reads_the_block(r.condition) == with_block && r.condition.evaluate(values) == 0)
      return "restrict '" + clip(r.condition.text(), 60) + "' (" + d.file + ":" +
             std::to_string(r.line) + ") is false";
  return "";
}

BlockShape grid_of(const KernelFileDescription& d, const Params& params, const BlockShape& block) {
  const ExpressionValues values = values_of(params, block);
  std::array<std::int64_t, 3> sides{1, 1, 1};
  for (std::size_t i = 0; i < d.grid.size(); ++i)
    sides[i] = d.grid[i].evaluate(values);
  for (std::size_t i = 0; i < 3; ++i)
    if (sides[i] < 1 || sides[i] > (i == 0 ? 2147483647 : 65535))
      throw UsageError("grid side " + std::string(1, "xyz"[i]) + " = " + std::to_string(sides[i]) +
                       " for block " + format_block(block) + ": allowed 1 to " +
                       (i == 0 ? "2^31 - 1" : "65535"));
  return {static_cast<int>(sides[0]), static_cast<int>(sides[1]), static_cast<int>(sides[2])};
}

// The fewest bytes a launch moves: the description's, else each buffer read or written once
// (an inout one both).
double bytes_moved(const KernelFileDescription& d, const Params& params) {
  const ExpressionValues values = values_of(params, {1, 1, 1});
  if (d.bytes)
    return static_cast<double>(d.bytes->evaluate(values));
  double bytes = 0;
  for (const FileArg& a : d.args)
    if (a.buffer)
      bytes += static_cast<double>(a.count->evaluate(values)) * file_type_bytes(a.type) *
               (a.direction == Direction::inout ? 2 : 1);
  return bytes;
}

// NVRTC's compiles of one file, by tunable values and architecture: a parameter sweep over the
// sizes compiles once.
struct CompileCache {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const CompiledKernelFile>> compiled;
};

// The file compiled for these tunable values and `sm`: from the cache, else NVRTC's now.
std::shared_ptr<const CompiledKernelFile>
compiled_for(const KernelFile& file, CompileCache& cache,
             const std::map<std::string, std::int64_t>& tunables, int sm) {
  std::string key = std::to_string(sm);
  for (const auto& [tunable, value] : tunables)
    key += " " + tunable + "=" + std::to_string(value);
  {
    const std::lock_guard lock(cache.mutex);
    if (const auto found = cache.compiled.find(key); found != cache.compiled.end())
      return found->second;
  }
  auto compiled = std::make_shared<const CompiledKernelFile>(
      compile_kernel_file(KernelFileCompile{.text = file.text,
                                            .file = file.path.string(),
                                            .kernels = file.description.kernels,
                                            .tunables = tunables,
                                            .sm = sm}));
  const std::lock_guard lock(cache.mutex);
  cache.compiled[key] = compiled;
  return compiled;
}

// A kernel's registers, shared and local memory for these parameters on `sm`, as NVRTC's
// ptxas reported them.
KernelUsage usage_of(const KernelFile& file, CompileCache& cache, const std::string& kernel,
                     const Params& params, int sm) {
  std::map<std::string, std::int64_t> tunables;
  for (const FileTunable& t : file.description.tunables)
    tunables[t.name] = params.at(t.name);
  const auto compiled = compiled_for(file, cache, tunables, sm);
  const std::string name = with_tunables(kernel, tunables);
  const auto found = compiled->usage.find(name);
  if (found == compiled->usage.end())
    throw UsageError(file.path.string() + ": the compiler reported no resources of " + name);
  const CompiledResources& r = found->second;
  return KernelUsage{.sm = r.sm,
                     .registers = r.registers,
                     .static_shared_bytes = r.static_shared_bytes,
                     .local_bytes = r.stack_frame_bytes,
                     .source = "NVRTC, sm_" + std::to_string(r.sm) + ", compiled here"};
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

KernelFile read_kernel_file(const std::filesystem::path& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw UsageError("kernel file '" + clip(path.string(), 80) + "' is a folder; give a .cu file");
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (error)
    throw UsageError("kernel file '" + clip(path.string(), 80) + "': " + error.message());
  if (size > kLargestFile)
    throw UsageError("kernel file '" + clip(path.string(), 80) + "' is " + std::to_string(size) +
                     " bytes; allowed at most 4 MiB");
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof())
    throw UsageError("kernel file '" + clip(path.string(), 80) + "' cannot be read");
  KernelFile file{.path = path, .text = text.str(), .hash = "", .description = {}};
  if (file.text.find('\0') != std::string::npos)
    throw UsageError("kernel file '" + clip(path.string(), 80) +
                     "' is not text (it holds a NUL byte); give CUDA source");
  file.hash = fnv1a64(file.text);
  file.description = read_kernel_file_description(file.text, path.string());
  return file;
}

std::string file_kernel_id(const KernelFile& file, const std::string& kernel) {
  return file.path.stem().string() + "/" + base_name(kernel);
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
    k.title = name + " (" + file.path.filename().string() + ")";
    k.lesson = "Your kernel " + name + " from " + file.path.string() + " (" + file.hash + ").";
    k.params = params_of(d);
    k.check_params = [shared](const Params& params) {
      return restriction_refusal(shared->description, values_of(params, {1, 1, 1}), false);
    };
    const BlockShape block = d.default_block;
    k.block_rank = block.z > 1 ? 3 : block.y > 1 ? 2 : 1;
    k.default_block = block;
    k.block_presets = {block};
    k.allowed_blocks = "any block its restrictions allow";
    k.check_block = [shared](const BlockShape& b, const Params& params) -> std::string {
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
      const auto& shared_bytes = shared->description.shared_bytes;
      return shared_bytes ? shared_bytes->evaluate(values_of(params, b)) : 0;
    };
    k.bytes_moved = [shared](const Params& params) {
      return bytes_moved(shared->description, params);
    };
    if (d.flops)
      k.flops = [shared](const Params& params) {
        return static_cast<double>(
            shared->description.flops->evaluate(values_of(params, {1, 1, 1})));
      };
    k.usage = [shared, cache, name](const Params& params, int sm) {
      return usage_of(*shared, *cache, name, params, sm);
    };
    kernels.push_back(std::move(k));
  }
  return kernels;
}

bool names_a_kernel_file(const std::string& text) {
  const std::string path = text.substr(
      0, text.rfind(".cu:") == std::string::npos ? std::string::npos : text.rfind(".cu:") + 3);
  return path.ends_with(".cu") || path.ends_with(".cuh");
}

std::string add_kernel_file(const std::string& text) {
  const std::size_t colon = text.rfind(".cu:");
  const std::string path = colon == std::string::npos ? text : text.substr(0, colon + 3);
  const std::string wanted = colon == std::string::npos ? "" : text.substr(colon + 4);
  const KernelFile file = read_kernel_file(path);
  std::string chosen;
  std::string names;
  for (KernelDesc& kernel : file_kernels(file)) {
    const std::string id = kernel.id;
    names += (names.empty() ? "" : ", ") + id.substr(id.find('/') + 1);
    if (chosen.empty() && (wanted.empty() || id.substr(id.find('/') + 1) == wanted))
      chosen = id;
    add_run_time_kernel(std::move(kernel));
  }
  if (chosen.empty())
    throw UsageError(path + ": no kernel '" + clip(wanted, 40) + "' in its description; it has " +
                     names);
  return chosen;
}

} // namespace wl
