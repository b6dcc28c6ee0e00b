#include "engine/device.h"

#include "base/error.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "io/assets.h"

#include <charconv>

#include <cuda_runtime.h>

namespace wl {

namespace {

// More GPUs than one machine holds; the runtime then says which of them exist.
constexpr int kMaxDeviceOrdinal = 1023;

// The number of visible devices, or a UsageError carrying the runtime's reason for none.
int device_count() {
  // What works without a GPU, for every command that asked for one (run, sweep, --arch device).
  constexpr const char* kModelInstead =
      "`warplens model KERNEL --arch ID`, `warplens sweep KERNEL --model --arch ID`, "
      "`warplens tune KERNEL --model --arch ID` or `warplens occupancy --arch ID` model one with "
      "a preset";
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError(); // not sticky: clear it so later calls start clean
    const char* hint = status == cudaErrorInsufficientDriver
                           ? ": no NVIDIA driver, or one older than this CUDA runtime needs"
                           : "";
    throw UsageError(std::string("no GPU (") + cudaGetErrorName(status) + hint + "); " +
                     kModelInstead);
  }
  if (count == 0)
    throw UsageError(std::string("no GPU: the CUDA runtime sees no device; ") + kModelInstead);
  return count;
}

// "GPU-8d3f1c2a-0b4e-..." as nvidia-smi -L writes a device's UUID.
std::string uuid_text(const cudaUUID_t& uuid) {
  std::string text = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10)
      text += '-';
    text += format("%02x", static_cast<unsigned char>(uuid.bytes[i]));
  }
  return text;
}

// No property reports what L2 serves the SMs: the preset of the GPU's kind lends its figure, and
// the source says so. Presets that cannot be read leave it unknown (0): the roofline says so.
void lend_l2_bandwidth(Arch& arch) {
  try {
    const std::vector<Arch> presets = load_arch_presets(assets_dir() / "arch");
    const Arch* preset = preset_of_kind(presets, arch);
    if (!preset || preset->l2_bandwidth_gbps <= 0)
      return;
    arch.l2_bandwidth_gbps = preset->l2_bandwidth_gbps;
    arch.source += "; L2 bandwidth from the " + preset->id + " preset";
  } catch (const Error&) { // the assets' own check says what is wrong with them
  }
}

} // namespace

Arch arch_from_device(int ordinal) {
  const int count = device_count();
  if (ordinal < 0 || ordinal >= count)
    throw UsageError("device " + std::to_string(ordinal) + " does not exist; allowed 0 to " +
                     std::to_string(count - 1));
  cudaDeviceProp prop{};
  if (const cudaError_t status = cudaGetDeviceProperties(&prop, ordinal); status != cudaSuccess)
    throw DeviceError(std::string("cannot read device properties: ") + cudaGetErrorString(status));
  int memory_khz = 0, bus_bits = 0, sm_khz = 0;
  cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, ordinal);
  cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, ordinal);
  cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, ordinal);

  Arch arch;
  arch.id = "device:" + std::to_string(ordinal);
  arch.name = prop.name;
  arch.cc_major = prop.major;
  arch.cc_minor = prop.minor;
  arch.sm_count = prop.multiProcessorCount;
  arch.warp_size = prop.warpSize;
  arch.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  arch.max_threads_per_block = prop.maxThreadsPerBlock;
  arch.max_block_dims = {prop.maxThreadsDim[0], prop.maxThreadsDim[1], prop.maxThreadsDim[2]};
  arch.max_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
  arch.registers_per_sm = prop.regsPerMultiprocessor;
  arch.registers_per_block = prop.regsPerBlock;
  arch.max_registers_per_thread = 255; // every architecture since Kepler; no property reports it
  arch.shared_memory_per_sm = static_cast<std::int64_t>(prop.sharedMemPerMultiprocessor);
  arch.shared_memory_per_block = static_cast<std::int64_t>(prop.sharedMemPerBlock);
  arch.shared_memory_per_block_optin = static_cast<std::int64_t>(prop.sharedMemPerBlockOptin);
  arch.reserved_shared_memory_per_block = static_cast<std::int64_t>(prop.reservedSharedMemPerBlock);
  arch.l2_cache_bytes = prop.l2CacheSize;
  // Double data rate: two transfers per memory clock over the whole bus.
  arch.dram_bandwidth_gbps = 2.0 * memory_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  arch.sm_clock_mhz = sm_khz / 1e3;
  arch.uuid = uuid_text(prop.uuid);
  arch.source = "cudaGetDeviceProperties on device " + std::to_string(ordinal) +
                "; bandwidth from the memory clock and bus width attributes";
  lend_l2_bandwidth(arch);
  return arch;
}

Arch resolve_arch(const std::string& spec) {
  if (spec == "device")
    return arch_from_device(0);
  if (spec.starts_with("device:")) {
    const std::string_view digits = std::string_view(spec).substr(7);
    int ordinal = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), ordinal);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || ordinal < 0)
      throw UsageError("arch '" + clip(spec) +
                       "': not a device number; write device or device:N with N from 0 to " +
                       std::to_string(kMaxDeviceOrdinal));
    if (ordinal > kMaxDeviceOrdinal)
      throw UsageError("arch '" + clip(spec) + "': device " + std::to_string(ordinal) +
                       " is out of range; allowed 0 to " + std::to_string(kMaxDeviceOrdinal));
    return arch_from_device(ordinal);
  }
  return find_arch(load_arch_presets(assets_dir() / "arch"), spec,
                   "device[:N] for this machine's GPU");
}

std::string describe_devices() {
  try {
    const int count = device_count();
    std::string text;
    for (int i = 0; i < count; ++i) {
      const Arch arch = arch_from_device(i);
      text += (i ? "; " : "") + std::to_string(i) + ": " + arch.name + " (" + arch.sm_name() +
              ", " + std::to_string(arch.sm_count) + " SMs)";
    }
    return text;
  } catch (const Error& e) {
    return std::string("none: ") + e.what();
  }
}

std::string driver_cuda_version_text() {
  int version = 0;
  const bool read = cudaDriverGetVersion(&version) == cudaSuccess && version > 0;
  cudaGetLastError(); // no driver: an error of this call alone
  if (!read)
    return "unknown";
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

} // namespace wl
