#include "tune/tune_run.h"

#include "base/text_format.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

namespace wl {

namespace {

using Clock = std::chrono::steady_clock;

// The search, the cache and the outcome, shared by the measurers: each takes a point under the
// lock, measures it outside, and records what it gave under the lock again.
class TuneRun {
public:
  TuneRun(const TuneSpace& space, TuneSearch& search, TuneObjective objective,
          const TuneBudget& budget, TuneCache* cache,
          const std::function<void(const TuneEvaluation&)>& progress)
      : m_space(space), m_search(search), m_objective(objective), m_budget(budget), m_cache(cache),
        m_progress(progress) {
    m_out.stopped = "every allowed point was measured or skipped";
  }

  // One measurer's loop, until no point is left for it or it stops.
  void serve(const TuneMeasure& measure) {
    while (const std::optional<std::size_t> point = take()) {
      try {
        SweepPoint measured = measure(m_space.points[*point]);
        land(*point, std::move(measured));
      } catch (const TuneMeasurerStopped& stopped) {
        give_back(*point, stopped.reason);
        return;
      } catch (...) {
        fail(*point, std::current_exception());
        return;
      }
    }
  }

  TuneOutcome finish(std::size_t measurers) {
    if (m_failure)
      std::rethrow_exception(m_failure);
    if (m_stops.size() == measurers && !m_returned.empty()) {
      m_out.stopped = "every measurer stopped before the end";
      for (const std::string& why : m_stops)
        m_out.stopped += "; " + why;
    }
    m_out.skipped = m_search.skipped();
    m_out.seconds = elapsed();
    return std::move(m_out);
  }

private:
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - m_begin).count(); }

  // The next point for a measurer: one given back by a measurer that stopped, else the search's
  // next within the budget; a point in the cache is recorded here and the next one taken. With
  // none left while others are being measured, it waits: a landing may make a new best, whose
  // neighbours the model strategy measures next, and a measurer that stops gives its point back.
  std::optional<std::size_t> take() {
    std::unique_lock lock(m_mutex);
    while (!m_failure) {
      if (!m_returned.empty()) {
        const std::size_t point = m_returned.front();
        m_returned.pop_front();
        ++m_in_flight;
        return point;
      }
      if (const std::optional<std::size_t> point = spent() ? std::nullopt : m_search.next()) {
        ++m_handed;
        if (record_cached(*point))
          continue;
        ++m_in_flight;
        return point;
      }
      // Budget spent or no point now: a measurer may still stop and give its point back.
      if (m_in_flight == 0)
        return std::nullopt;
      m_landed.wait(lock);
    }
    return std::nullopt;
  }

  bool spent() {
    if (m_budget.evaluations > 0 && m_handed >= m_budget.evaluations) {
      m_out.stopped = "the budget of " + counted(m_budget.evaluations, "evaluation") + " was spent";
      return true;
    }
    if (m_budget.seconds > 0 && elapsed() >= m_budget.seconds) {
      m_out.stopped = "the budget of " + format_number(m_budget.seconds, 1) + " s was spent";
      return true;
    }
    return false;
  }

  // Under the lock: a point the cache holds, recorded as taken from it.
  bool record_cached(std::size_t point) {
    const CachedPoint* cached =
        m_cache ? m_cache->find(tune_point_key(m_space.points[point])) : nullptr;
    if (!cached)
      return false;
    record(
        {.point = point, .from_cache = true, .result = cached->result, .refused = cached->refused});
    return true;
  }

  void land(std::size_t point, SweepPoint measured) {
    TuneEvaluation e{.point = point,
                     .result = std::move(measured.result),
                     .refused = std::move(measured.refused)};
    if (e.refused.empty() && !e.result)
      e.refused = "the measurement brought no result";
    const std::lock_guard lock(m_mutex);
    // Only a measurement is kept: a point the GPU refused (a CUDA error, a session that could
    // not be made) may measure on the next run, and the kernel's own refusals are never sent.
    if (m_cache && e.result)
      m_cache->append(
          {.key = tune_point_key(m_space.points[point]), .result = e.result, .refused = ""});
    --m_in_flight;
    record(std::move(e));
    m_landed.notify_all();
  }

  // Under the lock.
  void record(TuneEvaluation e) {
    if (e.result)
      e.cost = tune_cost(*e.result, m_objective);
    e.seconds = elapsed();
    m_search.measured(e.point, e.cost);
    (e.from_cache ? m_out.from_cache : m_out.measured) += 1;
    if (e.cost && (!m_out.best || *e.cost < *m_out.evaluations[*m_out.best].cost))
      m_out.best = m_out.evaluations.size();
    m_out.evaluations.push_back(std::move(e));
    if (m_progress)
      m_progress(m_out.evaluations.back());
  }

  void give_back(std::size_t point, const std::string& why) {
    const std::lock_guard lock(m_mutex);
    m_returned.push_front(point);
    m_stops.push_back(why);
    --m_in_flight;
    m_landed.notify_all();
  }

  void fail(std::size_t point, std::exception_ptr failure) {
    const std::lock_guard lock(m_mutex);
    m_returned.push_front(point);
    if (!m_failure)
      m_failure = failure;
    --m_in_flight;
    m_landed.notify_all();
  }

  const TuneSpace& m_space;
  TuneSearch& m_search;
  const TuneObjective m_objective;
  const TuneBudget m_budget;
  TuneCache* const m_cache;
  const std::function<void(const TuneEvaluation&)>& m_progress;
  const Clock::time_point m_begin = Clock::now();

  std::mutex m_mutex;
  std::condition_variable m_landed;
  TuneOutcome m_out;
  std::deque<std::size_t> m_returned; // handed out to a measurer that stopped
  std::size_t m_handed = 0;           // points handed out (the budget counts them)
  std::size_t m_in_flight = 0;
  std::vector<std::string> m_stops;
  std::exception_ptr m_failure;
};

} // namespace

TuneOutcome run_tune(const TuneSpace& space, TuneSearch& search, TuneObjective objective,
                     const TuneBudget& budget, TuneCache* cache,
                     const std::vector<TuneMeasure>& measures,
                     const std::function<void(const TuneEvaluation&)>& progress) {
  TuneRun run(space, search, objective, budget, cache, progress);
  std::vector<std::thread> others;
  for (std::size_t i = 1; i < measures.size(); ++i)
    others.emplace_back([&run, &measures, i] { run.serve(measures[i]); });
  if (!measures.empty())
    run.serve(measures.front());
  for (std::thread& t : others)
    t.join();
  return run.finish(measures.size());
}

} // namespace wl
