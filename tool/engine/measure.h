#pragma once
// Timing a launch the way nvbench's cold measurement does: before every sample the L2 cache is
// emptied (l2_flush.h), then CUDA events bracket the launch alone.
// Warm-up first; at least `min_samples`; stop once the relative noise is under `max_noise` or
// the time budget is spent. Also the NVTX ranges that show WarpLens's phases in Nsight Systems.

#include "engine/gpu_sensors.h"
#include "engine/l2_flush.h"
#include "engine/library.h"
#include "model/energy.h"
#include "model/run_options.h"
#include "model/run_result.h"

#include <chrono>
#include <functional>

namespace wl {

// Seconds from `from` to `to` on the steady clock, which every phase of a run is timed with.
inline double seconds_between(std::chrono::steady_clock::time_point from,
                              std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// `launch` enqueues the kernel on the given stream (a cudaStream_t); `flusher` empties L2 before
// each sample (made once per session: its buffer is twice the L2's size). Throws UsageError
// carrying the CUDA error if a launch fails. `after_launch`, when given, is called after each
// launch once its stop event is enqueued: work that must follow a launch without being timed
// with it (a kernel file's watch, engine/launch_watchdog.h).
// `sensors` are read as each batch of samples ends: each sample gets its batch's SM clock, and
// samples the clock shows throttled are left out of the statistics (model/timing_summary.h).
using StreamWork = std::function<void(void* stream)>;
TimingStats time_cold(const StreamWork& launch, void* stream, const TimingOptions& options,
                      L2Flusher& flusher, const GpuSensors& sensors,
                      const StreamWork& after_launch = {});

// The energy of a batch of back-to-back launches lasting at least kEnergyBatchSeconds, enqueued
// `chunk` at a time (model/energy.h): NVML's energy counter read on its steps just before and
// just after the batch, and the power, clocks and clock events read on another thread over that
// window. `after_launch` follows each launch, as in time_cold. Where NVML
// has no energy counter the result says why.
EnergyStats measure_energy(const StreamWork& launch, void* stream, std::int64_t chunk,
                           const GpuSensors& sensors, const StreamWork& after_launch = {});

// A range in the "WarpLens" NVTX domain for as long as the object lives. Start/end ranges (not
// push/pop) so work launched from any thread falls inside them.
class NvtxRange {
public:
  explicit NvtxRange(const char* name);
  ~NvtxRange();
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;

private:
  unsigned long long m_id;
};

} // namespace wl
