#include "tune/tune_run.h"

#include "base/text_format.h"

#include <chrono>

namespace wl {

namespace {

// The cache's point, or the point measured now (and appended to the cache).
TuneEvaluation evaluate(const TuneSpace& space, std::size_t point, TuneCache* cache,
                        const TuneMeasure& measure) {
  TuneEvaluation e{.point = point};
  const std::string key = tune_point_key(space.points[point]);
  if (const CachedPoint* cached = cache ? cache->find(key) : nullptr) {
    e.from_cache = true;
    e.result = cached->result;
    e.refused = cached->refused;
    return e;
  }
  SweepPoint measured = measure(space.points[point]);
  e.result = std::move(measured.result);
  e.refused = std::move(measured.refused);
  if (e.refused.empty() && !e.result)
    e.refused = "the measurement brought no result";
  // Only a measurement is kept: a point the GPU refused (a CUDA error, a session that could not
  // be made) may measure on the next run, and the kernel's own refusals are never sent.
  if (cache && e.result)
    cache->append({.key = key, .result = e.result, .refused = ""});
  return e;
}

} // namespace

TuneOutcome run_tune(const TuneSpace& space, TuneSearch& search, TuneObjective objective,
                     const TuneBudget& budget, TuneCache* cache, const TuneMeasure& measure,
                     const std::function<void(const TuneEvaluation&)>& progress) {
  const auto begin = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  };
  TuneOutcome out;
  out.stopped = "every allowed point was measured or skipped";
  while (true) {
    if (budget.evaluations > 0 && out.evaluations.size() >= budget.evaluations) {
      out.stopped = "the budget of " + counted(budget.evaluations, "evaluation") + " was spent";
      break;
    }
    if (budget.seconds > 0 && elapsed() >= budget.seconds) {
      out.stopped = "the budget of " + format_number(budget.seconds, 1) + " s was spent";
      break;
    }
    const std::optional<std::size_t> point = search.next();
    if (!point)
      break;
    TuneEvaluation e = evaluate(space, *point, cache, measure);
    if (e.result)
      e.cost = tune_cost(*e.result, objective);
    e.seconds = elapsed();
    search.measured(*point, e.cost);
    (e.from_cache ? out.from_cache : out.measured) += 1;
    if (e.cost && (!out.best || *e.cost < *out.evaluations[*out.best].cost))
      out.best = out.evaluations.size();
    out.evaluations.push_back(std::move(e));
    if (progress)
      progress(out.evaluations.back());
  }
  out.skipped = search.skipped();
  out.seconds = elapsed();
  return out;
}

} // namespace wl
