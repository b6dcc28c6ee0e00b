#pragma once
// CUPTI's PC sampling for one launch on a context (CounterProfiler::sample_pcs sets the range
// profiler aside around it): enabled, configured for every stall reason, started and stopped
// around the launch, read, and disabled again, so its hardware buffer is held only meanwhile.

#include "engine/counters/counters.h"

#include <functional>

#include <cuda.h>

namespace wl {

// Throws CuptiFailure (cupti_check.h) where CUPTI refuses; PC sampling is disabled again first.
PcSampleCounts collect_pc_samples(CUcontext context, int period,
                                  const std::function<void()>& launch);

} // namespace wl
