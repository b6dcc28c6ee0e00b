// The statistics of timed samples with the SM clock beside them: throttled samples (under 75 %
// of the default clock) are left out and counted, unless every sample was throttled.

#include "model/timing_summary.h"

#include <gtest/gtest.h>

namespace wl {
namespace {

TEST(TimingSummary, ThrottledSamplesAreLeftOutAndCounted) {
  // At a default of 1,980 MHz, 75 % is 1,485: the 1,200 MHz sample is throttled.
  const std::vector<TimedSample> samples = {
      {1.0, 1980}, {1.1, 1980}, {3.0, 1200}, {1.2, 1975}, {0.9, 1980}};
  const TimingStats t = summarise_samples(samples, 1980, true, true);
  EXPECT_EQ(t.samples, 4);
  EXPECT_EQ(t.throttled_samples, 1);
  EXPECT_FALSE(t.throttled_samples_kept);
  EXPECT_DOUBLE_EQ(t.median_time, 1.05);
  EXPECT_DOUBLE_EQ(t.max_time, 1.2);
  ASSERT_TRUE(t.sm_clock_mhz);
  EXPECT_DOUBLE_EQ(*t.sm_clock_mhz, 1980);
  EXPECT_DOUBLE_EQ(t.default_clock_mhz, 1980);
}

TEST(TimingSummary, WhenEverySampleWasThrottledTheyAreTheFigures) {
  const std::vector<TimedSample> samples = {{2.0, 900}, {2.2, 1000}, {2.1, 950}};
  const TimingStats t = summarise_samples(samples, 1980, false, true);
  EXPECT_EQ(t.samples, 3);
  EXPECT_EQ(t.throttled_samples, 3);
  EXPECT_TRUE(t.throttled_samples_kept);
  EXPECT_DOUBLE_EQ(t.median_time, 2.1);
  EXPECT_DOUBLE_EQ(*t.sm_clock_mhz, 950);
}

TEST(TimingSummary, WithoutAClockNothingIsThrottled) {
  const std::vector<TimedSample> samples = {{1.0, std::nullopt}, {3.0, std::nullopt}};
  const TimingStats t = summarise_samples(samples, 1980, true, false);
  EXPECT_EQ(t.samples, 2);
  EXPECT_EQ(t.throttled_samples, 0);
  EXPECT_FALSE(t.sm_clock_mhz);
  EXPECT_DOUBLE_EQ(t.median_time, 2.0);
  // An unknown default clock (0) throttles nothing either.
  const TimingStats unknown = summarise_samples({{1.0, 300}, {1.0, 300}}, 0, true, true);
  EXPECT_EQ(unknown.throttled_samples, 0);
}

} // namespace
} // namespace wl
