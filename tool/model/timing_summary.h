#pragma once
// The statistics of a launch's timed samples (TimingStats), with the SM clock beside them. nvbench
// counts a sample as throttled when the SM clock ran below 75 % of the device's default clock, and
// leaves it out: a slow sample then says why instead of moving the median. So does WarpLens, where
// the clock is known (engine/gpu_sensors.h reads it), unless every sample was throttled: those are
// kept and counted, so the figures still exist and say what they are.

#include "model/run_result.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace wl {

inline constexpr double kThrottledBelow = 0.75; // of the default SM clock

// One timed sample: its milliseconds and the SM clock read with it (nullopt where NVML is absent).
struct TimedSample {
  double ms = 0;
  std::optional<double> sm_clock_mhz;
  std::optional<double> memory_clock_mhz = std::nullopt;
  std::uint64_t clock_events = 0; // NVML's reason bits read with it
};

// Relative standard deviation; infinite with fewer than two samples.
double relative_noise(const std::vector<double>& samples);

// `default_clock_mhz` 0: unknown, nothing counts as throttled. `samples` is not empty.
TimingStats summarise_samples(const std::vector<TimedSample>& samples, double default_clock_mhz,
                              bool converged, bool l2_flushed);

} // namespace wl
