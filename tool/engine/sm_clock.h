#pragma once
// The SM clock of the device that times a launch, read from NVML, the driver's management library.
// It is opened at first use rather than linked, and declared here from its documentation (the
// CUDA toolkit does not ship its header everywhere): a machine without it times as before, with no
// clock beside the figures, and says why.

#include "engine/library.h"

#include <optional>
#include <string>

namespace wl {

class SmClock {
public:
  // Finds the CUDA device in NVML by its PCI bus id (NVML may number devices differently).
  explicit SmClock(int cuda_device);
  // The SM clock now, in MHz; nullopt where NVML is missing or the read failed.
  std::optional<double> read_mhz() const;
  // The device's default SM clock (cudaDevAttrClockRate), in MHz.
  double default_mhz() const { return m_default_mhz; }
  // Why read_mhz() has nothing ("" when it reads).
  const std::string& unavailable() const { return m_unavailable; }

private:
  void* m_device = nullptr; // an nvmlDevice_t
  double m_default_mhz = 0;
  std::string m_unavailable;
};

} // namespace wl
