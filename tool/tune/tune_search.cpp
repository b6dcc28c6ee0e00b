#include "tune/tune_search.h"

#include "base/text_format.h"
#include "report/figures.h"

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>
#include <tuple>
#include <utility>

namespace wl {

namespace {

constexpr std::array<std::pair<TuneStrategy, const char*>, 3> kStrategies = {
    {{TuneStrategy::grid, "grid"},
     {TuneStrategy::random, "random"},
     {TuneStrategy::model, "model"}}};

struct ObjectiveName {
  TuneObjective objective;
  const char* name;
  const char* figure;
};
constexpr std::array<ObjectiveName, 3> kObjectives = {{
    {TuneObjective::time, "time", "median_time"},
    {TuneObjective::energy, "energy", "energy_per_launch"},
    {TuneObjective::gflops_per_joule, "gflops_per_joule", "energy_efficiency"},
}};

// A point is skipped only where its modelled floor is this far above the best measured time: the
// floor is the model's (a compiler that merges accesses into wider ones can beat it a little, and
// the GUI models on the preset on screen, not the worker's GPU).
constexpr double kProofMargin = 1.25;

double model_value(const SweepPoint& point, std::string_view key, double otherwise) {
  if (!point.result)
    return otherwise;
  return figure_value(figure(key), *point.result).value_or(otherwise);
}

// How far a launch's sectors per request are from its ideal (1: coalesced as well as its lanes'
// bytes allow). Not the count itself: a block that leaves warps part-full makes smaller requests,
// which is no better coalescing.
double coalescing_excess(const SweepPoint& point, double otherwise) {
  const Figure& f = figure("sectors_per_request");
  if (!point.result || !f.ideal_value)
    return otherwise;
  const std::optional<double> value = figure_value(f, *point.result);
  const std::optional<double> ideal = f.ideal_value(*point.result);
  return value && ideal && *ideal > 0 ? *value / *ideal : otherwise;
}

} // namespace

std::optional<TuneStrategy> parse_tune_strategy(std::string_view text) {
  for (const auto& [strategy, name] : kStrategies)
    if (text == name)
      return strategy;
  return std::nullopt;
}

const char* tune_strategy_name(TuneStrategy strategy) {
  for (const auto& [s, name] : kStrategies)
    if (s == strategy)
      return name;
  return "?";
}

std::optional<TuneObjective> parse_tune_objective(std::string_view text) {
  for (const ObjectiveName& o : kObjectives)
    if (text == o.name)
      return o.objective;
  return std::nullopt;
}

const char* tune_objective_name(TuneObjective objective) {
  for (const ObjectiveName& o : kObjectives)
    if (o.objective == objective)
      return o.name;
  return "?";
}

const char* tune_objective_figure(TuneObjective objective) {
  for (const ObjectiveName& o : kObjectives)
    if (o.objective == objective)
      return o.figure;
  return "median_time";
}

std::optional<double> tune_cost(const RunResult& result, TuneObjective objective) {
  if (!result.timing || (result.verification && result.verification->failed()))
    return std::nullopt;
  const std::optional<double> value =
      figure(tune_objective_figure(objective)).measured
          ? figure(tune_objective_figure(objective)).measured(result)
          : std::nullopt;
  if (!value || !(*value > 0))
    return std::nullopt;
  return objective == TuneObjective::gflops_per_joule ? -*value : *value;
}

std::vector<std::size_t> model_ranking(const TuneSpace& space) {
  constexpr double kUnknown = std::numeric_limits<double>::infinity();
  std::vector<std::size_t> allowed;
  for (std::size_t i = 0; i < space.points.size(); ++i)
    if (space.points[i].refused.empty())
      allowed.push_back(i);
  const auto rank = [&](std::size_t i) {
    const SweepPoint& p = space.points[i];
    return std::tuple{model_value(p, "modelled_time", kUnknown),
                      -model_value(p, "theoretical_occupancy", 0), coalescing_excess(p, kUnknown),
                      i};
  };
  std::stable_sort(allowed.begin(), allowed.end(),
                   [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
  return allowed;
}

TuneSearch::TuneSearch(const TuneSpace& space, TuneStrategy strategy, TuneObjective objective,
                       std::uint64_t seed)
    : m_space(&space), m_strategy(strategy), m_objective(objective) {
  if (strategy == TuneStrategy::model) {
    m_order = model_ranking(space);
  } else {
    for (std::size_t i = 0; i < space.points.size(); ++i)
      if (space.points[i].refused.empty())
        m_order.push_back(i);
    if (strategy == TuneStrategy::random)
      std::shuffle(m_order.begin(), m_order.end(), std::mt19937_64(seed));
  }
  // The default first, whatever the strategy: the winner is explained against it.
  if (space.default_point != kNoPoint && space.points[space.default_point].refused.empty()) {
    std::erase(m_order, space.default_point);
    m_order.insert(m_order.begin(), space.default_point);
  }
}

bool TuneSearch::done_with(std::size_t point) const { return m_done.contains(point); }

bool TuneSearch::proven_worse(std::size_t point) {
  if (m_objective != TuneObjective::time || !m_best_cost || point == m_space->default_point)
    return false;
  const SweepPoint& p = m_space->points[point];
  const std::optional<double> floor =
      p.result ? figure_value(figure("modelled_time"), *p.result) : std::nullopt;
  if (!floor || *floor <= kProofMargin * *m_best_cost)
    return false;
  m_done.insert(point);
  m_skipped.push_back(
      {point, "its modelled time, " + format_number(*floor, 4) +
                  " ms (the fastest its traffic and arithmetic allow at peak), is over 1.25x the "
                  "best measured, " +
                  format_number(*m_best_cost, 4) + " ms: the model says it cannot win"});
  return true;
}

std::optional<std::size_t> TuneSearch::next_by_model() {
  // Every other turn, the best-ranked untried neighbour of the best point measured so far.
  m_from_neighbours = !m_from_neighbours;
  if (m_from_neighbours && m_best) {
    std::vector<std::size_t> near =
        tune_neighbours(*m_space, *m_best, [&](std::size_t i) { return done_with(i); });
    std::sort(near.begin(), near.end(), [&](std::size_t a, std::size_t b) {
      return std::find(m_order.begin(), m_order.end(), a) <
             std::find(m_order.begin(), m_order.end(), b);
    });
    for (const std::size_t candidate : near)
      if (!proven_worse(candidate)) {
        m_done.insert(candidate);
        return candidate;
      }
  }
  while (m_cursor < m_order.size()) {
    const std::size_t candidate = m_order[m_cursor++];
    if (done_with(candidate) || proven_worse(candidate))
      continue;
    m_done.insert(candidate);
    return candidate;
  }
  return std::nullopt;
}

std::optional<std::size_t> TuneSearch::next() {
  if (m_strategy == TuneStrategy::model)
    return next_by_model();
  while (m_cursor < m_order.size()) {
    const std::size_t candidate = m_order[m_cursor++];
    if (done_with(candidate))
      continue;
    m_done.insert(candidate);
    return candidate;
  }
  return std::nullopt;
}

void TuneSearch::measured(std::size_t point, std::optional<double> cost) {
  m_done.insert(point);
  if (cost && (!m_best_cost || *cost < *m_best_cost)) {
    m_best = point;
    m_best_cost = cost;
  }
}

} // namespace wl
