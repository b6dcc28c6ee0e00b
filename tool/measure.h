#pragma once
// Timing a launch the way nvbench's cold measurement does: before every sample the L2 cache is
// emptied (l2_flush.h), then CUDA events bracket the launch alone.
// Warm-up first; at least `min_samples`; stop once the relative noise is under `max_noise` or
// the time budget is spent. Also the NVTX ranges that show WarpLens's phases in Nsight Systems.

#include "l2_flush.h"
#include "run_result.h"

#include <functional>

namespace wl {

struct TimingOptions {
  int warmup_runs = 1;
  int min_samples = 10;
  int max_samples = 2000;
  double max_noise = 0.005; // 0.5 %
  double max_seconds = 1.0; // wall-clock budget for the samples
  bool flush_l2 = true;
};

// `launch` enqueues the kernel on the given stream (a cudaStream_t); `flusher` empties L2 before
// each sample (made once per session: its buffer is twice the L2's size). Throws UsageError
// carrying the CUDA error if a launch fails.
TimingStats time_cold(const std::function<void(void* stream)>& launch, void* stream,
                      const TimingOptions& options, L2Flusher& flusher);

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
