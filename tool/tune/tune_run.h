#pragma once
// A tune from start to end, whatever measures its points (this process's GPU, workers): the
// search hands out points until the budget is spent or none is left; each point found in the
// cache is taken from it, every other one measured and appended to the cache as it lands, so a
// tune killed and run again measures no point twice. Several measurers (a worker per GPU) each
// take the search's next point when their last has landed, so a fast GPU takes more.

#include "tune/tune_cache.h"
#include "tune/tune_search.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace wl {

struct TuneBudget {
  std::size_t evaluations = 0; // points measured or taken from the cache; 0: no limit
  double seconds = 0;          // wall time measuring; 0: no limit
};

struct TuneEvaluation {
  std::size_t point = kNoPoint;
  bool from_cache = false;
  std::optional<RunResult> result = std::nullopt;
  std::string refused = {};        // why the GPU or the kernel refused the point
  std::optional<double> cost = {}; // under the objective (tune_cost)
  double seconds = 0;              // since the tune began, when it landed
};

struct TuneOutcome {
  std::vector<TuneEvaluation> evaluations = {}; // in the order they landed
  std::vector<TuneSkip> skipped = {};           // the model's proofs (the model strategy's)
  std::optional<std::size_t> best = {};         // the index into `evaluations` of the best
  std::string stopped = {};                     // why the tune stopped, in words
  std::size_t measured = 0, from_cache = 0;
  double seconds = 0;
};

// Measures one modelled point of the space: the same point with its measured result, or refused
// with the reason. Errors that end the tune (no GPU here) are thrown; a measurer that can take no
// more points while others may (its worker stopped) throws TuneMeasurerStopped.
using TuneMeasure = std::function<SweepPoint(const SweepPoint& modelled)>;
struct TuneMeasurerStopped {
  std::string reason;
};

// `progress` is called as each point lands, one call at a time (from the measurers' threads).
TuneOutcome run_tune(const TuneSpace& space, TuneSearch& search, TuneObjective objective,
                     const TuneBudget& budget, TuneCache* cache,
                     const std::vector<TuneMeasure>& measures,
                     const std::function<void(const TuneEvaluation&)>& progress = {});
inline TuneOutcome run_tune(const TuneSpace& space, TuneSearch& search, TuneObjective objective,
                            const TuneBudget& budget, TuneCache* cache, const TuneMeasure& measure,
                            const std::function<void(const TuneEvaluation&)>& progress = {}) {
  return run_tune(space, search, objective, budget, cache, std::vector<TuneMeasure>{measure},
                  progress);
}

} // namespace wl
