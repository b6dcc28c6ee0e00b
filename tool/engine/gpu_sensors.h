#pragma once
// What the device's management library (NVML) reads of a GPU while it works: the SM and memory
// clocks, the reasons the clocks are held down, the instantaneous power and the total-energy
// counter. NVML is opened at first use rather than linked, and declared here from its
// documentation (the CUDA toolkit does not ship its header everywhere): a machine without it
// times as before, with no clock or energy beside the figures, and says why.

#include "engine/library.h"

#include <cstdint>
#include <optional>
#include <string>

namespace wl {

class GpuSensors {
public:
  // Finds the CUDA device in NVML by its PCI bus id (NVML may number devices differently).
  explicit GpuSensors(int cuda_device);
  // The SM clock now, in MHz; nullopt where NVML is missing or the read failed.
  std::optional<double> sm_mhz() const;
  // The memory clock now, in MHz.
  std::optional<double> memory_mhz() const;
  // NVML's clock-event (throttle) reason bits now (model/energy.h names them).
  std::optional<std::uint64_t> clock_events() const;
  // The energy the GPU used since the driver loaded, in millijoules; NVML updates it about
  // every 10 ms, so a difference means something only over a much longer span.
  std::optional<std::uint64_t> energy_mj() const;
  // The power drawn now, in watts (NVML's instantaneous field, not its one-second average).
  std::optional<double> power_w() const;
  // The device's default SM clock (cudaDevAttrClockRate), in MHz.
  double default_mhz() const { return m_default_mhz; }
  // Why the reads have nothing ("" when they read).
  const std::string& unavailable() const { return m_unavailable; }

private:
  void* m_device = nullptr; // an nvmlDevice_t
  double m_default_mhz = 0;
  std::string m_unavailable;
};

} // namespace wl
