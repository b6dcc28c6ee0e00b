#include "engine/system_checks.h"

#include "base/error.h"
#include "base/text_format.h"
#include "engine/counters/counters.h"
#include "engine/device.h"
#include "engine/engine.h"
#include "io/assets.h"
#include "model/kernel_request.h"

#include <fstream>
#include <regex>

#include <cuda_runtime.h>

namespace wl {

namespace {

// CUDA 13.0 needs the R580 driver or later.
constexpr const char* kDriverFix =
    "install the NVIDIA driver, R580 or later for CUDA 13; until "
    "then WarpLens runs in model mode (the models' figures, and timings and counters only "
    "from the bundled recordings of the H100 and the H200)";

// 13000 -> "13.0", as the runtime and the driver number CUDA versions.
std::string cuda_version_text(int version) {
  return format("%d.%d", version / 1000, version % 1000 / 10);
}

// "580.159.04", from the kernel module's own line in /proc; "" where it has none (no NVIDIA
// module, or a container that hides /proc/driver).
std::string kernel_module_version() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  std::getline(in, line);
  static const std::regex version(R"(Kernel Module.*?\s(\d+\.\d+(\.\d+)?)\s)");
  std::smatch match;
  return std::regex_search(line, match, version) ? match[1].str() : "";
}

// The highest CUDA version the installed driver runs, or 0 where there is no driver.
int driver_cuda_version() {
  int version = 0;
  if (cudaDriverGetVersion(&version) != cudaSuccess)
    version = 0;
  cudaGetLastError();
  return version;
}

std::string driver_text(int cuda_version) {
  const std::string module = kernel_module_version();
  return (module.empty() ? std::string("version unknown") : module) + ", for CUDA up to " +
         cuda_version_text(cuda_version);
}

// "h100", the preset with this GPU's architecture and SM count, or "".
std::string matching_preset(const Arch& gpu) {
  const Arch* preset = preset_of_kind(load_arch_presets(assets_dir() / "arch"), gpu);
  return preset ? preset->id : "";
}

SystemCheck check_gpu(int ordinal) {
  const std::string what = "GPU " + std::to_string(ordinal);
  try {
    const Arch gpu = arch_from_device(ordinal);
    std::string preset;
    try {
      preset = matching_preset(gpu);
    } catch (const Error&) { // the assets' own line says what is wrong with them
    }
    return {what,
            format("%s, %s, %d SMs, ", gpu.name.c_str(), gpu.sm_name().c_str(), gpu.sm_count) +
                (preset.empty() ? "no preset of its own (the models read this GPU's figures)"
                                : "preset " + preset),
            ""};
  } catch (const Error& e) {
    return {what, "unusable", e.what()};
  }
}

// One part of a Run: what it read where it is available, else the part's own reason, which
// carries the documented fix (ERR_NVGPUCTRPERM for the counters and PC sampling, NVML's
// permission or support for the energy).
template <class Part>
SystemCheck part_check(const std::string& what, const std::string& found,
                       const std::optional<Part>& part, const std::string& read) {
  if (part && part->available)
    return {what, found + ": " + read + " (a Run of vec_add/scalar)", ""};
  return {what, found, part ? part->reason : "the Run returned none"};
}

// A Run of vec_add/scalar with one counter, its stalls sampled and its energy measured, as the
// GUI's Run does each: one line for each of the three.
SystemChecks check_measuring() {
  const std::string cupti = "CUPTI " + cupti_version();
  try {
    EngineOptions options;
    options.metrics = "global_load_sectors";
    options.stalls = true;
    options.energy = true;
    options.timing.min_samples = 1;
    options.timing.max_seconds = 0.01;
    const RunResult run = run_kernel(resolve_kernel_request("vec_add/scalar", {}, "", ""), options);
    return {part_check("counters", cupti, run.counters, "GPU 0's counters read"),
            part_check("stalls", cupti + " PC sampling", run.stalls, "GPU 0's warps sampled"),
            part_check("energy", "NVML", run.energy, "GPU 0's energy counter read")};
  } catch (const Error& e) {
    const std::string failed = std::string("a Run of vec_add/scalar failed: ") + e.what();
    return {{"counters", cupti, failed},
            {"stalls", cupti + " PC sampling", failed},
            {"energy", "NVML", failed}};
  }
}

} // namespace

std::vector<std::string> cuda_version_lines() {
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  const int driver = driver_cuda_version();
  return {"CUDA runtime " + cuda_version_text(runtime) + " (linked into warplens)",
          driver
              ? "NVIDIA driver " + driver_text(driver)
              : std::string("NVIDIA driver: none found (measuring needs one; the models do not)"),
          "CUPTI " + cupti_version()};
}

SystemChecks check_gpus() {
  const int driver = driver_cuda_version();
  if (driver == 0)
    return {{"NVIDIA driver", "none found (no libcuda.so.1 the CUDA runtime can use)", kDriverFix}};
  SystemChecks checks{{"NVIDIA driver", driver_text(driver),
                       driver / 1000 < CUDART_VERSION / 1000
                           ? std::string("it runs CUDA up to ") + cuda_version_text(driver) +
                                 ", older than " + "WarpLens's " +
                                 cuda_version_text(CUDART_VERSION) + "; " + kDriverFix
                           : ""}};
  int count = 0;
  if (const cudaError_t status = cudaGetDeviceCount(&count); status != cudaSuccess || count == 0) {
    cudaGetLastError();
    checks.push_back({"GPU", status == cudaSuccess ? "none" : cudaGetErrorName(status),
                      "the driver sees no usable NVIDIA GPU (nvidia-smi says why); until it does, "
                      "WarpLens runs in model mode"});
    return checks;
  }
  for (int ordinal = 0; ordinal < count; ++ordinal)
    checks.push_back(check_gpu(ordinal));
  for (SystemCheck& check : check_measuring())
    checks.push_back(std::move(check));
  return checks;
}

} // namespace wl
