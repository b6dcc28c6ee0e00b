#pragma once
// What a run on the GPU is asked for: the device, the inputs' seed, verification, the timing
// and model budgets and the counters. The engine takes it, the worker protocol carries it and the
// GUI and CLI fill it, so it lives here, with no GPU in it.

#include "model/launch_model.h"

#include <cstdint>
#include <string>

namespace wl {

struct TimingOptions {
  int warmup_runs = 1;
  int min_samples = 10;
  int max_samples = 2000;
  double max_noise = 0.005; // 0.5 %
  double max_seconds = 1.0; // wall-clock budget for the samples
  bool flush_l2 = true;
};

// Seconds one launch of a person's kernel file may run (`--kernel-time-limit`), and the least it
// may be set to: the watchdog looks every 20 ms.
inline constexpr double kDefaultKernelTimeLimit = 10;
inline constexpr double kShortestKernelTimeLimit = 0.1;

struct EngineOptions {
  int device = 0;
  std::uint64_t seed = 42;
  bool verify = true;
  TimingOptions timing;
  ModelBudget model;
  std::string metrics;   // "" (no counters), "default", "all", or a comma-separated list
  bool per_site = false; // a SASS-metrics pass of its own for every site's measured figures
  // How long one launch of a kernel file may run before its process stops
  // (engine/launch_watchdog.h).
  double kernel_time_limit = kDefaultKernelTimeLimit;
};

} // namespace wl
