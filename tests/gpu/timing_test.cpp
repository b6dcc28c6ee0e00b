// The timed pair of events brackets the launch alone: what follows a launch without being part
// of it (a kernel file's watch) runs after the stop event, so its host time never shows in a
// sample, however quick the kernel.

#include "engine/measure.h"
#include "gpu_test_support.h"

#include <chrono>
#include <thread>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

namespace wl {
namespace {

TEST(TimeCold, WorkAfterEachLaunchIsDoneOncePerLaunchAndOutsideItsSample) {
  if (!test::have_gpu())
    GTEST_SKIP() << "no GPU";
  int* word = nullptr;
  ASSERT_EQ(cudaMalloc(&word, sizeof(int)), cudaSuccess);
  int launches = 0, afters = 0;
  const StreamWork launch = [&](void* stream) {
    ++launches;
    cudaMemsetAsync(word, 0, sizeof(int), static_cast<cudaStream_t>(stream));
  };
  // Slow host work: inside the pair it would hold back the stop event by 2 ms each sample.
  const StreamWork after = [&](void*) {
    ++afters;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  };
  TimingOptions options;
  options.warmup_runs = 2;
  options.min_samples = options.max_samples = 20;
  options.flush_l2 = false;
  L2Flusher flusher;
  const SmClock clock(0);
  const TimingStats stats = time_cold(launch, nullptr, options, flusher, clock, after);
  cudaFree(word);
  EXPECT_EQ(launches, 22);
  EXPECT_EQ(afters, launches);
  EXPECT_LT(stats.max_time, 1.0) << "a 4-byte memset, median " << stats.median_time << " ms";
}

// The SM clock is read with the samples where NVML is installed (the GPU machine has it), and the
// device's default clock always; a clock NVML reads lies between 0 and twice the default.
TEST(Timing, TheSmClockIsReadWithTheSamples) {
  if (!test::have_gpu())
    GTEST_SKIP() << "no GPU";
  const SmClock clock(0);
  ASSERT_EQ(clock.unavailable(), "") << "NVML: " << clock.unavailable();
  TimingOptions options;
  options.min_samples = options.max_samples = 10;
  L2Flusher flusher;
  const TimingStats stats = time_cold([](void*) {}, nullptr, options, flusher, clock, [](void*) {});
  EXPECT_GT(stats.default_clock_mhz, 0);
  ASSERT_TRUE(stats.sm_clock_mhz);
  EXPECT_GT(*stats.sm_clock_mhz, 0);
  EXPECT_LT(*stats.sm_clock_mhz, 2 * stats.default_clock_mhz);
}

} // namespace
} // namespace wl
