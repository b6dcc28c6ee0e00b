#include "engine/sweep_run.h"

#include "base/error.h"
#include "base/text_format.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <thread>

namespace wl {

namespace {

// The counters of every shape that ran, a batch of shapes per profiling session: each pass
// runs the whole batch, so the session's fixed cost is shared.
// The points from `first` on are this session's.
void add_counters(KernelSession& session, std::vector<SweepPoint>& points,
                  std::size_t first_point) {
  constexpr std::size_t kShapesPerSession = 64;
  std::vector<SweepPoint*> measured;
  for (std::size_t i = first_point; i < points.size(); ++i)
    if (points[i].result)
      measured.push_back(&points[i]);
  for (std::size_t first = 0; first < measured.size(); first += kShapesPerSession) {
    const std::size_t last = std::min(measured.size(), first + kShapesPerSession);
    std::vector<BlockShape> blocks;
    for (std::size_t i = first; i < last; ++i)
      blocks.push_back(measured[i]->block);
    std::vector<CounterResult> counters = session.count(blocks);
    for (std::size_t i = first; i < last; ++i)
      measured[i]->result->counters = std::move(counters[i - first]);
  }
}

// Every site's measured figures of each shape that ran, a SASS pass per shape (CUPTI's patched
// counting covers one launch at a time), after the counters so it never touches their launches.
void add_site_counts(KernelSession& session, std::vector<SweepPoint>& points,
                     std::size_t first_point) {
  for (std::size_t i = first_point; i < points.size(); ++i)
    if (points[i].result)
      points[i].result->site_counts = session.count_sites(*points[i].result);
}

// The model of every shape, made on the other cores while the GPU measures the shapes in order:
// each worker takes the next shape nobody has started, so the first shapes are ready first.
class Predictions {
public:
  Predictions(const KernelSession& session, const std::vector<BlockShape>& shapes)
      : m_session(session), m_shapes(shapes), m_promises(shapes.size()) {
    for (std::promise<RunResult>& p : m_promises)
      m_futures.push_back(p.get_future());
    const unsigned workers = std::clamp(std::thread::hardware_concurrency(), 2u, 16u) - 1;
    for (unsigned w = 0; w < std::min<std::size_t>(workers, shapes.size()); ++w)
      m_workers.emplace_back([this] { work(); });
  }

  // Throws what the model threw for that shape (UsageError for a shape the kernel refuses).
  RunResult get(std::size_t index) { return m_futures[index].get(); }

private:
  void work() {
    for (std::size_t i = m_next++; i < m_shapes.size(); i = m_next++) {
      try {
        m_promises[i].set_value(m_session.predict(m_shapes[i]));
      } catch (...) {
        m_promises[i].set_exception(std::current_exception());
      }
    }
  }

  const KernelSession& m_session;
  const std::vector<BlockShape>& m_shapes;
  std::vector<std::promise<RunResult>> m_promises;
  std::vector<std::future<RunResult>> m_futures;
  std::atomic<std::size_t> m_next{0};
  std::vector<std::jthread> m_workers; // last: joined before the rest is destroyed
};

} // namespace

namespace {

void add_setup(SessionSetup& sum, const SessionSetup& one) {
  sum.device += one.device;
  sum.inputs += one.inputs;
  sum.reference += one.reference;
  sum.upload += one.upload;
  sum.counters += one.counters;
  sum.code += one.code;
  sum.total += one.total;
}

// The shapes of one parameter set on its own session, appended to run.points; each point is
// refused with the reason when the set is refused or its session cannot be made.
void sweep_shapes_of(const KernelDesc& kernel, const Params& params,
                     const std::vector<BlockShape>& shapes, const EngineOptions& options,
                     std::size_t total, SweepRun& run,
                     const std::function<void(int, int, const SweepPoint&)>& progress,
                     SessionCache& sessions) {
  const auto report = [&] {
    if (progress)
      progress(static_cast<int>(run.points.size()), static_cast<int>(total), run.points.back());
  };
  KernelSession* session = nullptr;
  bool made = true;
  std::string refused;
  try {
    check_kernel_params(kernel, params);
  } catch (const Error& e) {
    refused = e.what();
  }
  try {
    if (refused.empty())
      session = &sessions.get(kernel, params, options, &made);
  } catch (const Error& e) {
    // Before any session was made, the device itself may be missing or unusable: the whole
    // sweep stops with the reason. After one, it is this set's (too large for the memory).
    if (run.sessions == 0)
      throw;
    refused = e.what();
  }
  if (!session) {
    for (const BlockShape& shape : shapes) {
      run.points.push_back({shape, refused, std::nullopt, params});
      report();
    }
    return;
  }
  ++run.sessions;
  const std::size_t first = run.points.size();
  Predictions predictions(*session, shapes);
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    SweepPoint point{shapes[i], "", std::nullopt, params};
    try {
      point.result = session->measure(predictions.get(i), false);
    } catch (const Error& e) {
      point.refused = e.what();
    }
    run.points.push_back(std::move(point));
    report();
  }
  if (!options.metrics.empty())
    add_counters(*session, run.points, first);
  if (options.per_site)
    add_site_counts(*session, run.points, first);
  if (made) // after the points: the counter profiler opens alongside until the first count
    add_setup(run.setup, session->setup());
}

} // namespace

SweepRun run_sweep(const KernelDesc& kernel, const Params& params, const SweepGrid& grid,
                   const EngineOptions& options,
                   const std::function<void(int, int, const SweepPoint&)>& progress,
                   SessionCache* sessions) {
  const std::vector<Params> sets = param_sets(params, grid, kMaxSweepShapesLimit);
  SessionCache own; // a session per set, each freed as the next is made
  SweepRun run;
  const bool counted = !options.metrics.empty();
  const CounterCosts counters_before = counted ? counter_costs() : CounterCosts{};
  const auto start = std::chrono::steady_clock::now();
  for (const Params& set : sets)
    sweep_shapes_of(kernel, set, grid.shapes, options, grid.points(), run, progress,
                    sessions ? *sessions : own);
  run.shape_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() -
      run.setup.total;
  if (counted)
    run.counters = counter_costs_since(counters_before);
  return run;
}

std::string sweep_cost_summary(const SweepRun& run) {
  const std::string sessions =
      run.sessions > 1 ? format(" over %d parameter sets", run.sessions) : std::string();
  const SessionSetup& s = run.setup;
  double model = 0, verify = 0, timing = 0, counters = 0, sites = 0;
  int ran = 0;
  for (const SweepPoint& p : run.points) {
    if (!p.result)
      continue;
    ++ran;
    model += p.result->prediction.seconds;
    if (p.result->verification)
      verify += p.result->verification->seconds;
    if (p.result->timing)
      timing += p.result->timing->seconds;
    if (p.result->counters)
      counters += p.result->counters->seconds;
    if (p.result->site_counts)
      sites += p.result->site_counts->seconds;
  }
  const auto ms_each = [&](double seconds) { return ran ? 1e3 * seconds / ran : 0.0; };
  const std::string counter_phases =
      run.counters.passes.empty() ? "" : format("\n%s", counter_cost_summary(run.counters).c_str());
  return format(
      "set-up%s %.2f s (device %.2f, inputs %.2f, reference %.2f, upload %.2f, counter profiler "
      "%.2f alongside); %d points measured in %.2f s, %.1f ms each (verify %.1f, timing %.1f, "
      "counters %.1f%s; the model, %.1f ms each, made alongside on other cores)%s",
      sessions.c_str(), s.total, s.device, s.inputs, s.reference, s.upload, s.counters, ran,
      run.shape_seconds, ms_each(run.shape_seconds), ms_each(verify), ms_each(timing),
      ms_each(counters), sites > 0 ? format(", per-site pass %.1f", ms_each(sites)).c_str() : "",
      ms_each(model), counter_phases.c_str());
}

std::string counter_cost_summary(const CounterCosts& c) {
  double passes = 0;
  std::string each;
  for (const double p : c.passes) {
    passes += p;
    each += (each.empty() ? "" : ", ") + format("%.3f", p);
  }
  return format("counters: CUPTI opened in %.2f s, %s in %.2f s, sessions set up in %.3f s, %s in "
                "%.3f s (%s; L2 flushes %.3f s of them), decoded in %.3f s",
                c.open, counted(static_cast<std::size_t>(c.configs_built), "config image").c_str(),
                c.configure, c.session,
                format("%zu pass%s", c.passes.size(), c.passes.size() == 1 ? "" : "es").c_str(),
                passes, each.c_str(), c.flushes, c.decode);
}

} // namespace wl
