#include "engine/gpu_sensors.h"

#include <cuda_runtime.h>
#include <dlfcn.h>

namespace wl {

namespace {

// NVML's C interface as its documentation gives it: nvmlReturn_t is an int (0 is success),
// nvmlDevice_t an opaque pointer; the clock types NVML_CLOCK_SM 1 and NVML_CLOCK_MEM 2; the field
// NVML_FI_DEV_POWER_INSTANT 186 read through nvmlFieldValue_t, whose layout this mirrors.
using NvmlDevice = void*;
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;
constexpr int kNvmlClockMemory = 2;
constexpr unsigned kNvmlFieldPowerInstant = 186;
constexpr int kNvmlValueUnsignedInt = 1;

struct NvmlFieldValue {
  unsigned field_id = 0;
  unsigned scope_id = 0;
  long long timestamp = 0;
  long long latency_us = 0;
  int value_type = 0;
  int status = 0;
  union {
    double d;
    unsigned ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
  } value = {};
};
static_assert(sizeof(NvmlFieldValue) == 40, "nvmlFieldValue_t is 40 bytes");

struct Nvml {
  int (*init)() = nullptr;
  int (*device_by_pci_bus_id)(const char*, NvmlDevice*) = nullptr;
  int (*clock_info)(NvmlDevice, int, unsigned int*) = nullptr;
  // Optional: an older driver lacks them, and only what they read is missing.
  int (*clock_events)(NvmlDevice, unsigned long long*) = nullptr;
  int (*energy)(NvmlDevice, unsigned long long*) = nullptr;
  int (*field_values)(NvmlDevice, int, NvmlFieldValue*) = nullptr;
  std::string problem; // why NVML cannot be used ("" when it can)
};

template <class F> F symbol(void* handle, const char* name) {
  return reinterpret_cast<F>(dlsym(handle, name));
}

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
    n.init = symbol<decltype(n.init)>(handle, "nvmlInit_v2");
    n.device_by_pci_bus_id =
        symbol<decltype(n.device_by_pci_bus_id)>(handle, "nvmlDeviceGetHandleByPciBusId_v2");
    n.clock_info = symbol<decltype(n.clock_info)>(handle, "nvmlDeviceGetClockInfo");
    n.clock_events =
        symbol<decltype(n.clock_events)>(handle, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!n.clock_events) // its name before CUDA 12.2's drivers
      n.clock_events =
          symbol<decltype(n.clock_events)>(handle, "nvmlDeviceGetCurrentClocksThrottleReasons");
    n.energy = symbol<decltype(n.energy)>(handle, "nvmlDeviceGetTotalEnergyConsumption");
    n.field_values = symbol<decltype(n.field_values)>(handle, "nvmlDeviceGetFieldValues");
    if (!n.init || !n.device_by_pci_bus_id || !n.clock_info)
      n.problem = "NVML lacks nvmlInit_v2, nvmlDeviceGetHandleByPciBusId_v2 or "
                  "nvmlDeviceGetClockInfo";
    else if (const int status = n.init(); status != kNvmlSuccess)
      n.problem = "nvmlInit_v2 failed (NVML error " + std::to_string(status) + ")";
    return n;
  }();
  return library;
}

std::optional<double> clock_mhz(void* device, int type) {
  unsigned int mhz = 0;
  if (!device || nvml().clock_info(device, type, &mhz) != kNvmlSuccess)
    return std::nullopt;
  return static_cast<double>(mhz);
}

} // namespace

GpuSensors::GpuSensors(int cuda_device) {
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

std::optional<double> GpuSensors::sm_mhz() const { return clock_mhz(m_device, kNvmlClockSm); }

std::optional<double> GpuSensors::memory_mhz() const {
  return clock_mhz(m_device, kNvmlClockMemory);
}

std::optional<std::uint64_t> GpuSensors::clock_events() const {
  unsigned long long bits = 0;
  if (!m_device || !nvml().clock_events || nvml().clock_events(m_device, &bits) != kNvmlSuccess)
    return std::nullopt;
  return bits;
}

std::optional<std::uint64_t> GpuSensors::energy_mj() const {
  unsigned long long mj = 0;
  if (!m_device || !nvml().energy || nvml().energy(m_device, &mj) != kNvmlSuccess)
    return std::nullopt;
  return mj;
}

std::optional<double> GpuSensors::power_w() const {
  NvmlFieldValue field;
  field.field_id = kNvmlFieldPowerInstant;
  if (!m_device || !nvml().field_values ||
      nvml().field_values(m_device, 1, &field) != kNvmlSuccess || field.status != kNvmlSuccess ||
      field.value_type != kNvmlValueUnsignedInt)
    return std::nullopt;
  return field.value.ui / 1000.0; // milliwatts
}

} // namespace wl
