#pragma once
// Which point of a tune's space to measure next. Three strategies, each measuring the default
// launch first (the winner is explained against it):
//   grid    every allowed point, in the grid's order;
//   random  the allowed points in a seeded random order (a baseline: what a budget buys blind);
//   model   the points the model ranks best first (the least modelled time, then the highest
//           occupancy, then sectors per request the nearest their ideal), interleaved with a greedy
//           local search around the best point measured so far (its nearest untried neighbours, the
//           best ranked first, as Kernel Tuner's greedy strategies do), and skipping a point the
//           model proves cannot win: its modelled time (a floor: its traffic and arithmetic at
//           the device's peaks) is above the best measured time.
// The ranking alone plateaus where the model cannot tell points apart (a launch order, the
// stages of a pipeline: the same traffic and occupancy); the local search then moves along those
// axes from the best measured.

#include "model/run_result.h"
#include "tune/tune_space.h"

#include <cstdint>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace wl {

enum class TuneStrategy { grid, random, model };
// "grid", "random", "model"; nullopt for any other text.
std::optional<TuneStrategy> parse_tune_strategy(std::string_view text);
const char* tune_strategy_name(TuneStrategy strategy);

// What a tune minimises or maximises: the median time, the energy per launch, or the GFLOP per
// joule (both need the energy measured).
enum class TuneObjective { time, energy, gflops_per_joule };
std::optional<TuneObjective> parse_tune_objective(std::string_view text);
const char* tune_objective_name(TuneObjective objective);
// The figure key the objective reads ("median_time", "energy_per_launch", "energy_efficiency").
const char* tune_objective_figure(TuneObjective objective);

// A measured point's cost under the objective, lower better (GFLOP per joule negated); nullopt
// where the measurement has none (outputs wrong or unverified, no energy, no arithmetic).
std::optional<double> tune_cost(const RunResult& result, TuneObjective objective);

struct TuneSkip {
  std::size_t point = kNoPoint;
  std::string why = {};
};

class TuneSearch {
public:
  TuneSearch(const TuneSpace& space, TuneStrategy strategy, TuneObjective objective,
             std::uint64_t seed);
  // The next point to measure; nullopt once every allowed point is measured or skipped.
  std::optional<std::size_t> next();
  // What measuring `point` gave: its cost, or nullopt where it gave none (wrong outputs, refused
  // on the GPU). A point already measured (a cache's) may be told before any next().
  void measured(std::size_t point, std::optional<double> cost);
  // The points the model proved cannot win, with why, in the order they were skipped.
  const std::vector<TuneSkip>& skipped() const { return m_skipped; }
  // The measured point with the least cost, and that cost; nullopt before any has one.
  std::optional<std::size_t> best() const { return m_best; }
  std::optional<double> best_cost() const { return m_best_cost; }

private:
  std::optional<std::size_t> next_by_model();
  bool done_with(std::size_t point) const;
  // Skips a point the model proves cannot beat the best measured; true when it did.
  bool proven_worse(std::size_t point);

  const TuneSpace* m_space;
  TuneStrategy m_strategy;
  TuneObjective m_objective;
  std::vector<std::size_t> m_order; // the strategy's order of the allowed points
  std::size_t m_cursor = 0;         // the next of m_order to consider
  bool m_from_neighbours = false;   // the model strategy's turn: a neighbour of the best next
  std::set<std::size_t> m_done;     // measured, handed out or skipped
  std::vector<TuneSkip> m_skipped;
  std::optional<std::size_t> m_best;
  std::optional<double> m_best_cost;
};

// The model's rank of the allowed points, best first: the least modelled time, then the highest
// occupancy, then sectors per request the nearest their ideal, then the grid's order.
std::vector<std::size_t> model_ranking(const TuneSpace& space);

} // namespace wl
