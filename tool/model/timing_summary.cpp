#include "model/timing_summary.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace wl {

namespace {

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

bool throttled(const TimedSample& s, double default_clock_mhz) {
  return default_clock_mhz > 0 && s.sm_clock_mhz &&
         *s.sm_clock_mhz < kThrottledBelow * default_clock_mhz;
}

} // namespace

double relative_noise(const std::vector<double>& samples) {
  if (samples.size() < 2)
    return INFINITY;
  const double mean = std::accumulate(samples.begin(), samples.end(), 0.0) / samples.size();
  double squares = 0;
  for (double s : samples)
    squares += (s - mean) * (s - mean);
  return mean > 0 ? std::sqrt(squares / (samples.size() - 1)) / mean : INFINITY;
}

TimingStats summarise_samples(const std::vector<TimedSample>& samples, double default_clock_mhz,
                              bool converged, bool l2_flushed) {
  std::vector<double> kept, clocks, memory_clocks;
  std::uint64_t clock_events = 0;
  int throttled_count = 0;
  for (const TimedSample& s : samples) {
    throttled_count += throttled(s, default_clock_mhz) ? 1 : 0;
    clock_events |= s.clock_events;
  }
  const bool drop = throttled_count < static_cast<int>(samples.size());
  for (const TimedSample& s : samples) {
    if (drop && throttled(s, default_clock_mhz))
      continue;
    kept.push_back(s.ms);
    if (s.sm_clock_mhz)
      clocks.push_back(*s.sm_clock_mhz);
    if (s.memory_clock_mhz)
      memory_clocks.push_back(*s.memory_clock_mhz);
  }
  TimingStats stats;
  stats.samples = static_cast<int>(kept.size());
  stats.noise = relative_noise(kept);
  stats.mean_time = std::accumulate(kept.begin(), kept.end(), 0.0) / kept.size();
  stats.median_time = median_of(kept);
  stats.min_time = *std::min_element(kept.begin(), kept.end());
  stats.max_time = *std::max_element(kept.begin(), kept.end());
  stats.converged = converged;
  stats.l2_flushed = l2_flushed;
  if (!clocks.empty())
    stats.sm_clock_mhz = median_of(clocks);
  if (!memory_clocks.empty())
    stats.memory_clock_mhz = median_of(memory_clocks);
  stats.clock_events = clock_events;
  stats.default_clock_mhz = default_clock_mhz;
  stats.throttled_samples = throttled_count;
  stats.throttled_samples_kept = !drop;
  return stats;
}

} // namespace wl
