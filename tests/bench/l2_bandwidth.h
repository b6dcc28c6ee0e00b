#pragma once
// L2-to-SM read bandwidth of device 0, measured by reading a buffer that fits in L2 many times,
// and the event timing the benchmarks' own measurements share.

#include <cstdint>
#include <functional>

namespace wl {

// The median of `samples` event-timed runs of `enqueue` on the default stream, after `warm_ups`.
double median_event_ms(const std::function<void()>& enqueue, int samples, int warm_ups);

struct L2Bandwidth {
  double median_ms = 0; // one launch of all the passes
  double gbps = 0;      // bytes read from L2 per second, 1e9 B/s
};
L2Bandwidth l2_read_bandwidth(std::int64_t bytes);

} // namespace wl
