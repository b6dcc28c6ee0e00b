// A launch's energy from what the engine read around its batch: the counter's difference over the
// window, the power both ways, the clocks' reasons in words, and the JSON a worker sends, read
// back equal and held to what a batch can produce.

#include "base/error.h"
#include "model/energy.h"
#include "protocol/run_result_json.h"
#include "report/energy_report.h"
#include "report/figures.h"
#include "report/run_report.h"

#include <gtest/gtest.h>

namespace wl {
namespace {

// A window of 0.3 s between two of the counter's steps (it moves every 100 ms), busy at 400 W:
// 120 J; the batch of 3,000 launches took 0.305 s on the GPU.
EnergyReadings batch_readings() {
  EnergyReadings r;
  r.launches = 3000;
  r.batch_ms = 305;
  r.window_seconds = 0.3;
  r.energy_before_mj = 1'000'000;
  r.energy_after_mj = 1'120'000;
  for (int i = -5; i <= 35; ++i) {
    const double at = i * 0.01;
    r.readings.push_back({.at = at,
                          .power_w = i < 0 || i > 30 ? 100.0 : (i % 2 ? 395.0 : 405.0),
                          .sm_mhz = 1980.0,
                          .memory_mhz = 2619.0,
                          .energy_mj = 1'000'000 + 40'000 * (std::max(i, 0) / 10),
                          .clock_events = i < 0 || i > 30 ? 0x1 : 0x4});
  }
  return r;
}

TEST(Energy, ABatchsPowerOverABusyWindowGivesJoulesPerLaunch) {
  const EnergyStats e = summarise_energy(batch_readings());
  ASSERT_TRUE(e.available) << e.reason;
  EXPECT_DOUBLE_EQ(e.window_joules, 120);
  EXPECT_NEAR(e.mean_power_w(), 400, 1e-9);
  EXPECT_NEAR(e.joules_per_launch(), 400 * 0.305 / 3000, 1e-12);
  EXPECT_NEAR(e.sampled_power_w, 400, 1);
  EXPECT_EQ(e.power_readings, 31) << "0 to 0.30 s: the readings outside are not counted";
  EXPECT_NEAR(e.counter_step_ms, 100, 1e-6);
  EXPECT_EQ(e.sm_clock_mhz, 1980);
  EXPECT_EQ(e.memory_clock_mhz, 2619);
  EXPECT_EQ(e.clock_events, 0x4u) << "read over the window only";
  EXPECT_EQ(clock_event_words(throttle_events(e.clock_events)), "power cap (software)");
}

TEST(Energy, ACounterThatStoodStillOrWentBackIsSaidNotUsed) {
  EnergyReadings still = batch_readings();
  still.energy_after_mj = still.energy_before_mj;
  EXPECT_FALSE(summarise_energy(still).available);
  EXPECT_NE(summarise_energy(still).reason.find("did not move"), std::string::npos);
  EnergyReadings back = batch_readings();
  back.energy_after_mj = 10;
  const EnergyStats e = summarise_energy(back);
  EXPECT_FALSE(e.available);
  EXPECT_NE(e.reason.find("went backwards"), std::string::npos) << e.reason;
}

TEST(Energy, TheBatchLastsAtLeastItsSpanAndOneLaunch) {
  EXPECT_EQ(energy_chunk(0.1), 100);
  EXPECT_EQ(energy_chunk(1000), 1);
  EXPECT_EQ(energy_chunk(0), 1);
  EXPECT_EQ(energy_chunk(1e-9), 1'000'000);
}

TEST(Energy, EveryHeldDownReasonIsNamedAndIdleIsNone) {
  EXPECT_EQ(clock_event_words(0x1), "");
  EXPECT_EQ(clock_event_words(0x48), "slowdown (hardware: heat or power), thermal slowdown "
                                     "(hardware)");
  EXPECT_EQ(throttle_events(0x113), 0u) << "idle, set clocks, sync boost, display clock";
  EXPECT_NE(clock_event_words(0x10000).find("reason bits 65536"), std::string::npos);
}

TEST(Energy, JoulesAreShownInTheUnitThatSuits) {
  EXPECT_EQ(format_joules(1.2), "1.20 J");
  EXPECT_EQ(format_joules(0.0412), "41.20 mJ");
  EXPECT_EQ(format_joules(0.412), "412.0 mJ");
  EXPECT_EQ(format_joules(3.1e-6), "3.10 µJ");
}

TEST(Energy, TheJsonIsReadBackEqual) {
  const EnergyStats e = summarise_energy(batch_readings());
  const EnergyStats back = energy_from_json(energy_json(e), "the test");
  EXPECT_EQ(energy_json(back), energy_json(e));
}

// A worker may be remote and wrong: energy that goes backwards, a power no board draws, a window
// shorter than the batch it was counted around, figures that do not follow from each other.
TEST(Energy, WhatNoBatchCanProduceIsRefusedNamingTheKey) {
  const nlohmann::json good = energy_json(summarise_energy(batch_readings()));
  const auto refused = [](nlohmann::json j, const std::string& key, const std::string& value) {
    try {
      energy_from_json(j, "worker answer");
      ADD_FAILURE() << "not refused: " << j.dump();
    } catch (const UsageError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("energy." + key), std::string::npos) << what;
      EXPECT_NE(what.find(value), std::string::npos) << what;
    }
  };
  nlohmann::json backwards = good;
  backwards["window_joules"] = -5;
  refused(backwards, "window_joules", "-5");
  nlohmann::json furnace = good;
  furnace["window_joules"] = 1e6;
  furnace["mean_power_w"] = 1e6 / 0.3;
  furnace["joules_per_launch"] = 1e6 / 0.3 * 0.305 / 3000;
  refused(furnace, "window_joules", "W on average");
  nlohmann::json long_window = good;
  long_window["window_seconds"] = 3;
  refused(long_window, "window_seconds", "3");
  nlohmann::json inconsistent = good;
  inconsistent["joules_per_launch"] = 1;
  refused(inconsistent, "joules_per_launch", "1");
  nlohmann::json none = good;
  none["available"] = false;
  refused(none, "window_joules", "not available");
  nlohmann::json typo = good;
  typo["jouls"] = 3;
  refused(typo, "jouls", "jouls");
}

TEST(Energy, TheFigureTableShowsItOnTheTimingsPanel) {
  RunResult r;
  r.flops = 2e9;
  r.energy = summarise_energy(batch_readings());
  const Figure* per_launch = nullptr;
  for (const Figure& f : all_figures())
    if (f.key == "energy_per_launch")
      per_launch = &f;
  ASSERT_NE(per_launch, nullptr);
  EXPECT_EQ(per_launch->panel, Panel::timings);
  EXPECT_EQ(figure_text(*per_launch, r).value_or(""),
            "40.67 mJ (3,000 launches in 305.0 ms); clocks held down by power cap (software)");
  const std::string text = energy_text(r);
  EXPECT_NE(text.find("49.18 GFLOP/J"), std::string::npos) << text;
  EXPECT_NE(text.find("400 W by the energy counter, 400 W by 31 instantaneous readings"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("120.00 J over 300 ms between two of the counter's steps, the GPU busy "
                      "throughout (it moves every 100 ms)"),
            std::string::npos)
      << text;
}

} // namespace
} // namespace wl
