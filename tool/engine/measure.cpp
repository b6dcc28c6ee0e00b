#include "engine/measure.h"

#include "engine/cuda_check.h"
#include "engine/sm_clock.h"
#include "model/timing_summary.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <vector>

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

namespace wl {

namespace {

nvtxDomainHandle_t warplens_domain() {
  static const nvtxDomainHandle_t domain = nvtxDomainCreateA("WarpLens");
  return domain;
}

class EventPair {
public:
  EventPair() {
    cuda_check(cudaEventCreate(&start), "cudaEventCreate");
    cuda_check(cudaEventCreate(&stop), "cudaEventCreate");
  }
  ~EventPair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  cudaEvent_t start{}, stop{};
};

} // namespace

NvtxRange::NvtxRange(const char* name) {
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = name;
  m_id = nvtxDomainRangeStartEx(warplens_domain(), &attributes);
}

NvtxRange::~NvtxRange() { nvtxDomainRangeEnd(warplens_domain(), m_id); }

TimingStats time_cold(const StreamWork& launch, void* stream_handle, const TimingOptions& options,
                      L2Flusher& flusher, const SmClock& clock, const StreamWork& after_launch) {
  const auto begin = std::chrono::steady_clock::now();
  const auto stream = static_cast<cudaStream_t>(stream_handle);
  const auto enqueue = [&] {
    launch(stream_handle);
    cuda_check(cudaGetLastError(), "kernel launch");
  };
  const auto after = [&] {
    if (after_launch)
      after_launch(stream_handle);
  };
  for (int i = 0; i < options.warmup_runs; ++i) {
    enqueue();
    after();
  }
  cuda_check(cudaStreamSynchronize(stream), "warm-up run");

  // Samples are enqueued in batches with one synchronisation per batch: the host's round trip
  // is paid once per batch instead of once per sample, and each sample still starts from an
  // emptied L2 with its own pair of events around the launch alone.
  const int batch = std::max(1, std::min(options.min_samples, options.max_samples));
  std::vector<EventPair> events(static_cast<std::size_t>(batch));
  std::vector<TimedSample> samples;
  std::vector<double> times; // the samples' milliseconds, for the noise
  bool converged = false;
  const auto deadline = begin + std::chrono::duration<double>(options.max_seconds);
  while (static_cast<int>(samples.size()) < options.max_samples) {
    const int count = std::min(batch, options.max_samples - static_cast<int>(samples.size()));
    for (int i = 0; i < count; ++i) {
      if (options.flush_l2)
        flusher.flush(stream);
      cuda_check(cudaEventRecord(events[i].start, stream), "cudaEventRecord");
      enqueue();
      cuda_check(cudaEventRecord(events[i].stop, stream), "cudaEventRecord");
      after(); // outside the pair: its host time would delay the stop event of a quick kernel
    }
    cuda_check(cudaEventSynchronize(events[count - 1].stop), "kernel run");
    // Read as the batch ends, before the clock winds down from the work: the batch's clock.
    const std::optional<double> sm_clock = clock.read_mhz();
    for (int i = 0; i < count; ++i) {
      float ms = 0;
      cuda_check(cudaEventElapsedTime(&ms, events[i].start, events[i].stop),
                 "cudaEventElapsedTime");
      samples.push_back({ms, sm_clock});
      times.push_back(ms);
    }
    if (static_cast<int>(samples.size()) < options.min_samples)
      continue;
    if (relative_noise(times) < options.max_noise) {
      converged = true;
      break;
    }
    if (std::chrono::steady_clock::now() > deadline)
      break;
  }
  TimingStats stats = summarise_samples(samples, clock.default_mhz(), converged, options.flush_l2);
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  return stats;
}

} // namespace wl
