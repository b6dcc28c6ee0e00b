#pragma once
// What a tune found, said so that the answer explains itself: the best few launches, each beside
// the default launch with the figures that differ (time, occupancy and what limits it, registers,
// sectors and wavefronts per request, the modelled time), then what was measured, taken from the
// cache, skipped and refused. As text for people and as JSON.

#include "tune/tune_run.h"

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace wl {

// The figures a winner is set beside the default by, in this order (keys of the figure table).
inline constexpr std::string_view kTuneExplainFigures[] = {"median_time",
                                                           "energy_per_launch",
                                                           "energy_efficiency",
                                                           "theoretical_occupancy",
                                                           "achieved_occupancy",
                                                           "registers",
                                                           "local_memory",
                                                           "shared_memory_per_block",
                                                           "sectors_per_request",
                                                           "wavefronts_per_request",
                                                           "waves",
                                                           "modelled_time"};

// One figure of a launch beside the default's.
struct TuneDifference {
  std::string key = {};
  std::string text = {}; // "50.0 % (default 100.0 %)"
  bool differs = false;  // by more than 2 %, or only one of the two has a value
};

struct TuneRanked {
  std::size_t evaluation = 0; // into TuneOutcome::evaluations
  std::string label = {};     // "block 32x8x1, TILE=32"
  double cost = 0;
  std::vector<TuneDifference> figures = {}; // kTuneExplainFigures where either has a value
  std::string limiter = {}; // "registers" (the default's after a semicolon if other)
};

// The `count` best measured launches, best first.
std::vector<TuneRanked> tune_ranking(const TuneSpace& space, const TuneOutcome& outcome,
                                     std::size_t count);
// The default launch's evaluation, where it was measured.
const TuneEvaluation* default_evaluation(const TuneSpace& space, const TuneOutcome& outcome);
// Why a measured point has no cost under the objective, in words ("it was not timed"); empty
// where it has one.
std::string tune_why_no_cost(const TuneEvaluation& e, TuneObjective objective);
// A line for each measured point without a cost, in the order they landed: "WRONG OUTPUT at
// block 32: c[0]: got 1, want 2" (no candidate, and what a person most needs to hear of) or
// "no time at block 32: " and why. The text's last lines, and the Tune panel's.
std::vector<std::string> tune_uncosted_lines(const TuneSpace& space, const TuneOutcome& outcome,
                                             TuneObjective objective);

std::string tune_text(const TuneSpace& space, const TuneOutcome& outcome, TuneStrategy strategy,
                      TuneObjective objective, std::size_t count);
nlohmann::json tune_json(const TuneSpace& space, const TuneOutcome& outcome, TuneStrategy strategy,
                         TuneObjective objective, std::size_t count);

} // namespace wl
