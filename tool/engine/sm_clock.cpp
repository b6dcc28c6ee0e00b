#include "engine/sm_clock.h"

#include <cuda_runtime.h>
#include <dlfcn.h>

namespace wl {

namespace {

// NVML's C interface as its documentation gives it: nvmlReturn_t is an int (0 is success),
// nvmlDevice_t an opaque pointer, NVML_CLOCK_SM the clock type 1.
using NvmlDevice = void*;
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;

struct Nvml {
  int (*init)() = nullptr;
  int (*device_by_pci_bus_id)(const char*, NvmlDevice*) = nullptr;
  int (*clock_info)(NvmlDevice, int, unsigned int*) = nullptr;
  std::string problem; // why NVML cannot be used ("" when it can)
};

// Opened and initialised once for the process; never closed (a shutdown at exit could race the
// driver's own teardown).
const Nvml& nvml() {
  static const Nvml library = [] {
    Nvml n;
    void* handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      n.problem = std::string("NVML is not installed (") + dlerror() + ")";
      return n;
    }
    n.init = reinterpret_cast<int (*)()>(dlsym(handle, "nvmlInit_v2"));
    n.device_by_pci_bus_id = reinterpret_cast<int (*)(const char*, NvmlDevice*)>(
        dlsym(handle, "nvmlDeviceGetHandleByPciBusId_v2"));
    n.clock_info = reinterpret_cast<int (*)(NvmlDevice, int, unsigned int*)>(
        dlsym(handle, "nvmlDeviceGetClockInfo"));
    if (!n.init || !n.device_by_pci_bus_id || !n.clock_info)
      n.problem = "NVML lacks nvmlInit_v2, nvmlDeviceGetHandleByPciBusId_v2 or "
                  "nvmlDeviceGetClockInfo";
    else if (const int status = n.init(); status != kNvmlSuccess)
      n.problem = "nvmlInit_v2 failed (NVML error " + std::to_string(status) + ")";
    return n;
  }();
  return library;
}

} // namespace

SmClock::SmClock(int cuda_device) {
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, cuda_device) == cudaSuccess)
    m_default_mhz = khz / 1000.0;
  const Nvml& n = nvml();
  if (!n.problem.empty()) {
    m_unavailable = n.problem;
    return;
  }
  char bus_id[32] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, cuda_device) != cudaSuccess) {
    m_unavailable = "cudaDeviceGetPCIBusId failed";
    return;
  }
  if (const int status = n.device_by_pci_bus_id(bus_id, &m_device); status != kNvmlSuccess) {
    m_unavailable = std::string("NVML has no device at ") + bus_id + " (NVML error " +
                    std::to_string(status) + ")";
    m_device = nullptr;
  }
}

std::optional<double> SmClock::read_mhz() const {
  unsigned int mhz = 0;
  if (!m_device || nvml().clock_info(m_device, kNvmlClockSm, &mhz) != kNvmlSuccess)
    return std::nullopt;
  return static_cast<double>(mhz);
}

} // namespace wl
