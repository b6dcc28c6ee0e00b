#pragma once
// A sweep on the GPU: for each parameter set a session (engine.h), then each allowed shape's
// verification, timing, occupancy and counters; the grid itself is sweep/sweep_grid.h's.

#include "engine/engine.h"
#include "engine/library.h"
#include "model/sweep_grid.h"

#include <functional>
#include <string>
#include <vector>

namespace wl {

struct SweepRun {
  std::vector<SweepPoint> points;
  SessionSetup setup;       // the one-off costs, summed over the sessions: context, inputs, ...
  int sessions = 0;         // one per set of parameters the kernel allowed
  double shape_seconds = 0; // every shape after the set-ups
  CounterCosts counters;    // the counter profiler's share, phase by phase (with counters only)
};

// Every point of the grid: for each parameter set (param_sets), a session and its shapes. A set
// the kernel refuses, or whose session cannot be made (too large for the device's memory), has
// each of its points refused with the reason. Calls `progress(index, total, point)` after each
// point (for a progress line on stderr). With `sessions` (a worker's), each set's session comes
// from the cache, so a set already on the GPU costs no set-up; without, each set has its own,
// freed before the next.
SweepRun run_sweep(const KernelDesc& kernel, const Params& params, const SweepGrid& grid,
                   const EngineOptions& options,
                   const std::function<void(int, int, const SweepPoint&)>& progress,
                   SessionCache* sessions = nullptr);

// Where a sweep's time went: "set-up 0.61 s (...); 32 shapes in 0.28 s, 8.8 ms each (...)".
std::string sweep_cost_summary(const SweepRun& run);
// The counters' share of it: CUPTI opened, config images, sessions, each pass, decoding.
std::string counter_cost_summary(const CounterCosts& costs);

} // namespace wl
