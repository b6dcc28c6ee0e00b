// The tune workflow: a tune of the kernel on screen, one point at a time through the source.

#include "base/error.h"
#include "base/text_format.h"
#include "registry.h"
#include "workflows/app.h"

#include <algorithm>
#include <charconv>

namespace wl::viz {

namespace {

constexpr TuneStrategy kTuneStrategies[] = {TuneStrategy::grid, TuneStrategy::random,
                                            TuneStrategy::model};

// The budget field's text as a count of points: a whole number from 0 to what a sweep may hold.
std::size_t typed_budget(const char* text) {
  const std::string typed = text;
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(typed.data(), typed.data() + typed.size(), value);
  if (typed.empty() || error != std::errc{} || end != typed.data() + typed.size() ||
      value > kMaxSweepShapesLimit)
    throw UsageError("budget '" + typed + "': allowed a whole number from 0 (a quarter of the " +
                     "allowed points, all for grid) to " + std::to_string(kMaxSweepShapesLimit));
  return value;
}

} // namespace

bool App::tune_running() const { return tune.state && tune.state->awaiting.has_value(); }

void App::start_tune() {
  tune.problem.clear();
  if (tune_running() || sweep.running) {
    tune.problem = "A tune or a sweep is being measured: wait for it, or stop it.";
    return;
  }
  try {
    const KernelRequest base = resolve_kernel_request(choices.kernel_id, {}, "", "");
    Params params = choices.params; // the sizes on screen; the tuned parameters take each value
    const SweepGrid grid = default_tune_grid(*base.kernel, base.block);
    for (const ParamAxis& axis : grid.param_axes)
      params[axis.name] = base.params.at(axis.name);
    const TuneStrategy strategy = kTuneStrategies[std::clamp(
        tune.strategy, 0, static_cast<int>(std::size(kTuneStrategies)) - 1)];
    auto state =
        std::make_shared<TuneState>(model_tune_space(*base.kernel, params, grid, params, base.block,
                                                     arch(), kSweepModelBudget, kMaxSweepShapes),
                                    strategy, static_cast<std::uint64_t>(std::max(tune.seed, 0)));
    if (state->space.valid() == 0)
      throw UsageError("every point of the tune was refused (the first: " +
                       state->space.points.front().refused + ")");
    state->kernel_id = choices.kernel_id;
    state->ranking = model_ranking(state->space);
    state->measured = source_measures();
    const std::size_t budget = typed_budget(tune.budget.data());
    state->budget = budget > 0 ? budget
                    : strategy == TuneStrategy::grid
                        ? state->space.valid()
                        : std::max<std::size_t>(1, (state->space.valid() + 3) / 4);
    tune.state = std::move(state);
    if (tune.state->measured)
      advance_tune();
  } catch (const Error& e) {
    tune.problem = e.what();
  }
}

void App::advance_tune() {
  TuneState& t = *tune.state;
  if (t.stop_asked) {
    t.outcome.stopped = "stopped (Stop tune)";
    return;
  }
  if (t.outcome.evaluations.size() >= t.budget) {
    t.outcome.stopped = "the budget of " + counted(t.budget, "evaluation") + " was spent";
    return;
  }
  const std::optional<std::size_t> next = t.search.next();
  if (!next) {
    t.outcome.stopped = "every allowed point was measured or skipped";
    t.outcome.skipped = t.search.skipped();
    return;
  }
  const SweepPoint& p = t.space.points[*next];
  // The tune's kernel, whichever the person has put on screen since it began.
  const KernelDesc* tuned = find_kernel(t.kernel_id);
  if (!tuned) {
    tune.problem = t.kernel_id + " is no longer in the catalog: the tune stops.";
    return;
  }
  try {
    source->submit_sweep(KernelRequest{tuned, p.params, p.block}, SweepGrid{{p.block}, {}}, arch());
    t.awaiting = *next;
  } catch (const Error& e) {
    tune.problem = e.what();
  }
}

void App::take_tune_point(std::optional<SweepData> data, const std::string& error) {
  TuneState& t = *tune.state;
  const std::size_t point = *t.awaiting;
  t.awaiting.reset();
  TuneEvaluation e{.point = point};
  if (data && !data->points.empty()) {
    e.result = std::move(data->points.front().result);
    e.refused = std::move(data->points.front().refused);
  } else {
    e.refused = error.empty() ? "the worker answered with no point" : error;
  }
  if (e.result)
    e.cost = tune_cost(*e.result, TuneObjective::time);
  t.search.measured(point, e.cost);
  if (e.cost && (!t.outcome.best || *e.cost < *t.outcome.evaluations[*t.outcome.best].cost))
    t.outcome.best = t.outcome.evaluations.size();
  ++t.outcome.measured;
  t.outcome.evaluations.push_back(std::move(e));
  t.best_after.push_back(t.outcome.best ? *t.outcome.evaluations[*t.outcome.best].cost : 0);
  t.outcome.skipped = t.search.skipped();
  advance_tune();
}

void App::stop_tune() {
  if (!tune.state)
    return;
  tune.state->stop_asked = true;
  if (!tune_running())
    advance_tune(); // says so now: no answer is coming to say it
}

void App::open_tune_point(std::size_t point) {
  if (!tune.state || point >= tune.state->space.points.size() ||
      !select_kernel(tune.state->kernel_id))
    return;
  const SweepPoint& p = tune.state->space.points[point];
  for (const auto& [name, value] : p.params)
    choices.params[name] = value;
  choices.set_block(p.block);
}

} // namespace wl::viz
