// Stall samples on the CPU: CUPTI's reason names read as ncu's, instructions summed per line and
// over the launch, the sampling period chosen for a launch's length, the table `run --stalls`
// prints, and the samples through JSON and back, with every value a sampling pass cannot produce
// refused naming its key.

#include "base/error.h"
#include "report/stall_report.h"

#include <string>

#include <gtest/gtest.h>

namespace wl {
namespace {

using nlohmann::json;

StalledInstruction instruction(std::uint32_t pc, int line, std::vector<StallCount> reasons) {
  return StalledInstruction{.pc = pc, .file = "k.cu", .line = line, .reasons = std::move(reasons)};
}

StallSamples two_lines() {
  StallSamples s;
  s.available = true;
  s.function = "_Z1kPf";
  s.file = "k.cu";
  s.period = 6;
  s.total_samples = 1200;
  s.instructions = {
      instruction(16, 4, {{"long_scoreboard", 600, 500}, {"selected", 100, 0}}),
      instruction(32, 4, {{"wait", 100, 20}}),
      instruction(48, 7, {{"barrier", 300, 300}, {"long_scoreboard", 20, 0}}),
      instruction(64, 0, {{"no_instruction", 30, 30}}), // no line: in the launch, on no line
  };
  summarise_stalls(s);
  return s;
}

TEST(StallSamples, CuptiNamesReadAsNcusReasons) {
  EXPECT_EQ(parse_cupti_stall_name("smsp__pcsamp_warps_issue_stalled_long_scoreboard").reason,
            "long_scoreboard");
  const CuptiStallName part =
      parse_cupti_stall_name("smsp__pcsamp_warps_issue_stalled_barrier_not_issued");
  EXPECT_EQ(part.reason, "barrier");
  EXPECT_TRUE(part.not_issued);
  EXPECT_EQ(parse_cupti_stall_name("smsp__pcsamp_warps_issue_stalled_no_instructions").reason,
            "no_instruction");
  EXPECT_EQ(parse_cupti_stall_name("smsp__pcsamp_sample_count").reason, "");
  EXPECT_EQ(parse_cupti_stall_name("smsp__pcsamp_warps_issue_stalled_").reason, "");
  EXPECT_TRUE(known_stall_reason("mio_throttle"));
  EXPECT_FALSE(known_stall_reason("coffee_break"));
}

TEST(StallSamples, InstructionsSumPerLineAndOverTheLaunchMostFirst) {
  const StallSamples s = two_lines();
  EXPECT_EQ(s.samples(), 1150u);
  ASSERT_EQ(s.launch.size(), 5u);
  EXPECT_EQ(s.launch[0].reason, "long_scoreboard");
  EXPECT_EQ(s.launch[0].samples, 620u);
  EXPECT_EQ(s.launch[0].not_issued, 500u);
  EXPECT_EQ(s.launch[1].reason, "barrier");
  // selected and wait tie at 100: ncu's order puts selected before wait.
  EXPECT_EQ(s.launch[2].reason, "selected");
  EXPECT_EQ(s.launch[3].reason, "wait");
  ASSERT_EQ(s.lines.size(), 2u);
  EXPECT_EQ(s.lines[0].line, 4);
  EXPECT_EQ(s.lines[0].samples, 800u);
  EXPECT_EQ(s.lines[1].line, 7);
  EXPECT_EQ(s.lines[1].reasons.front().reason, "barrier");
}

TEST(StallSamples, InstructionsOfAnotherFileStayOffTheLines) {
  StallSamples s = two_lines();
  s.instructions[2].file = "helper.cuh";
  summarise_stalls(s);
  ASSERT_EQ(s.lines.size(), 1u);
  EXPECT_EQ(s.lines[0].line, 4);
  EXPECT_EQ(s.samples(), 1150u); // the launch keeps them
}

TEST(StallSamples, ThePeriodGivesAboutTheSamplesWanted) {
  // 60 us at 1.98 GHz on 132 SMs, 200,000 samples wanted: 2^6 cycles between samples.
  EXPECT_EQ(sampling_period_for(60e-6 * 1.98e9, 132, 200'000), 6);
  EXPECT_EQ(sampling_period_for(100, 132, 200'000), 5);   // CUPTI's shortest
  EXPECT_EQ(sampling_period_for(1e30, 132, 200'000), 31); // and longest
  EXPECT_EQ(sampling_period_for(0, 132, 200'000), 5);     // no timing: the shortest
  EXPECT_EQ(sampling_period_for(1e6, 0, 200'000), 5);
}

TEST(StallSamples, TheTableSaysEachReasonInWordsAndTheLinesThatMatter) {
  RunResult r;
  r.stalls = two_lines();
  const std::string text = stalls_text(r);
  EXPECT_NE(text.find("an SM's warp every 64 cycles; 1,150 samples of _Z1kPf"), std::string::npos)
      << text;
  EXPECT_NE(text.find("long_scoreboard     53.9 %  waiting for a global or local memory load"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("(see Global memory)"), std::string::npos);
  EXPECT_NE(text.find("barrier             26.1 %  waiting at __syncthreads"), std::string::npos);
  EXPECT_NE(text.find("line 4      69.6 %  long_scoreboard 52.2 %, selected 8.7 %, wait 8.7 %"),
            std::string::npos)
      << text;
  r.stalls = StallSamples{.reason = "CUPTI_ERROR_NOT_SUPPORTED"};
  EXPECT_EQ(stalls_text(r), "\nwarp stalls: not sampled (CUPTI_ERROR_NOT_SUPPORTED)\n");
  r.stalls.reset();
  EXPECT_EQ(stalls_text(r), "");
}

TEST(StallSamples, TheSchedulersBusynessComesFirstFromTheLaunchCounters) {
  RunResult r;
  r.arch.sm_count = 132;
  r.stalls = two_lines();
  EXPECT_EQ(issue_use_text(r), ""); // no counters: nothing said
  r.counters = CounterResult{};
  r.counters->available = true;
  r.counters->values = {{"warp_instructions", "smsp__inst_executed.sum", "", "", 132 * 1000.0},
                        {"sm_active_cycles", "sm__cycles_active.avg", "", "", 2000}};
  ASSERT_TRUE(issue_use(r).has_value());
  EXPECT_DOUBLE_EQ(issue_use(r)->per_cycle, 0.5);
  EXPECT_DOUBLE_EQ(issue_use(r)->share, 0.125);
  EXPECT_NE(stalls_text(r).find("The schedulers issued 0.50 of 4 instructions per SM per active "
                                "cycle (12.5 %): the warps waited most cycles"),
            std::string::npos)
      << stalls_text(r);
  r.counters->values[1].value = 300; // 3.33 a cycle
  EXPECT_NE(issue_use_text(r).find("they were mostly busy"), std::string::npos);
}

TEST(StallSamples, CsvHasAColumnPerReasonEmptyWithoutAPass) {
  RunResult r;
  const std::vector<std::string> headers = stall_csv_headers();
  ASSERT_EQ(headers.size(), stall_reasons().size() + 1);
  EXPECT_EQ(headers[0], "stall_samples");
  EXPECT_EQ(headers[7], "stall_long_scoreboard");
  EXPECT_EQ(stall_csv_cells(r), std::vector<std::string>(headers.size()));
  r.stalls = two_lines();
  const std::vector<std::string> cells = stall_csv_cells(r);
  EXPECT_EQ(cells[0], "1150");
  EXPECT_EQ(cells[7], "53.91");
  EXPECT_EQ(cells[1], "26.09"); // barrier
  EXPECT_EQ(cells[2], "0.00");  // branch_resolving: none sampled
}

TEST(StallSamples, EveryReasonHasWordsAndThoseWithACauseAPanel) {
  for (const std::string& reason : stall_reasons()) {
    const StallMeaning& m = stall_meaning(reason);
    EXPECT_EQ(m.reason, reason);
    EXPECT_FALSE(m.words.empty());
  }
  EXPECT_EQ(stall_meaning("long_scoreboard").panel, Panel::global_memory);
  EXPECT_EQ(stall_meaning("mio_throttle").panel, Panel::shared_memory);
  EXPECT_EQ(stall_meaning("short_scoreboard").panel, Panel::shared_memory);
  EXPECT_EQ(stall_meaning("not_selected").panel, Panel::occupancy);
}

TEST(StallSamples, JsonComesBackEqual) {
  const StallSamples s = two_lines();
  const json j = stall_samples_json(s);
  EXPECT_EQ(stall_samples_json(stall_samples_from_json(j, "a result")), j);
}

std::string refusal(const json& j) {
  try {
    stall_samples_from_json(j, "worker answer");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(StallSamples, ValuesNoPassProducesAreRefusedNamingTheKey) {
  const json good = stall_samples_json(two_lines());
  const auto with = [&](const std::string& pointer, const json& value) {
    json j = good;
    j[json::json_pointer(pointer)] = value;
    return refusal(j);
  };
  EXPECT_NE(with("/instructions/0/reasons/0/samples", -5)
                .find("stalls.instructions[0].reasons[0].samples: -5 is out of range"),
            std::string::npos);
  EXPECT_NE(with("/instructions/0/reasons/0/samples", 1.5).find("samples"), std::string::npos);
  EXPECT_NE(with("/instructions/0/reasons/0/reason", "coffee_break").find("coffee_break"),
            std::string::npos);
  EXPECT_NE(with("/instructions/0/reasons/0/not_issued", 601).find("not_issued"),
            std::string::npos);
  EXPECT_NE(with("/instructions/1/pc", 8).find("increasing order"), std::string::npos);
  EXPECT_NE(with("/launch/0/samples", 9999).find("stalls.launch"), std::string::npos);
  EXPECT_NE(with("/lines/0/samples", 1).find("stalls.line"), std::string::npos);
  EXPECT_NE(with("/samples", 1).find("stalls.samples"), std::string::npos);
  EXPECT_NE(with("/period", 40).find("stalls.period"), std::string::npos);
  EXPECT_NE(with("/period", 1e300).find("stalls.period"), std::string::npos);
  EXPECT_NE(with("/seconds", -1).find("stalls.seconds"), std::string::npos);
  EXPECT_NE(with("/bogus", 1).find("bogus"), std::string::npos);
  json huge = good; // each count within bounds, their sum past them (it would wrap a uint64)
  for (json& i : huge["instructions"])
    i["reasons"][0]["samples"] = std::int64_t{1} << 53;
  EXPECT_NE(refusal(huge).find("at most 2^53 samples over the launch"), std::string::npos)
      << refusal(huge);
  json twice = good;
  twice["instructions"][0]["reasons"].push_back(twice["instructions"][0]["reasons"][0]);
  EXPECT_NE(refusal(twice).find("each reason once"), std::string::npos);
  json none = good;
  none["available"] = false;
  EXPECT_NE(refusal(none).find("none when the samples are not available"), std::string::npos);
}

} // namespace
} // namespace wl
