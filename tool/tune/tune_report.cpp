#include "tune/tune_report.h"

#include "base/text_format.h"
#include "model/occupancy.h"
#include "report/figures.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

namespace wl {

namespace {

std::string limiters_of(const RunResult& result) {
  std::string names;
  if (result.occupancy)
    for (const Resource r : result.occupancy->limiters)
      names += (names.empty() ? "" : " and ") + std::string(resource_name(r));
  return names;
}

bool differs(double a, double b) {
  const double scale = std::max(std::fabs(a), std::fabs(b));
  return scale > 0 && std::fabs(a - b) > 0.02 * scale;
}

// A figure's value in a launch, where it has one (a plain pair: GCC 12 cannot follow an optional
// double through the comparison below and warns of a read it never makes).
struct FigureRead {
  bool has = false;
  double value = 0;
};
FigureRead read_figure(const Figure& f, const RunResult* result) {
  const std::optional<double> v = result ? figure_value(f, *result) : std::nullopt;
  return v ? FigureRead{true, *v} : FigureRead{};
}

// The explained figures of `result` beside `baseline`'s (itself when none was measured).
std::vector<TuneDifference> differences(const RunResult& result, const RunResult* baseline) {
  std::vector<TuneDifference> out;
  for (const std::string_view key : kTuneExplainFigures) {
    const Figure& f = figure(key);
    const FigureRead now = read_figure(f, &result), then = read_figure(f, baseline);
    if (!now.has && !then.has)
      continue;
    TuneDifference d{.key = std::string(key)};
    d.text = now.has ? figure_text(f, now.value) : "none";
    if (baseline && baseline != &result) {
      d.text += " (default " + (then.has ? figure_text(f, then.value) : std::string("none")) + ")";
      d.differs = now.has != then.has || (now.has && differs(now.value, then.value));
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::string cost_text(TuneObjective objective, double cost) {
  const Figure& f = figure(tune_objective_figure(objective));
  return figure_text(f, objective == TuneObjective::gflops_per_joule ? -cost : cost);
}

// Whether the point was measured computing wrong outputs: no candidate, whatever its time.
bool outputs_wrong(const TuneEvaluation& e) {
  return e.result && e.result->verification && e.result->verification->failed();
}

// The objective as the noun a missing cost is said with: "no time at block 32: ...".
const char* objective_noun(TuneObjective objective) {
  switch (objective) {
  case TuneObjective::time:
    return "time";
  case TuneObjective::energy:
    return "energy";
  case TuneObjective::gflops_per_joule:
    return "GFLOP per joule";
  }
  return "cost";
}

// The launches ranked best first, each with what differs from the default's (why it wins).
std::string ranking_text(const TuneSpace& space, const TuneOutcome& outcome,
                         TuneObjective objective, const std::vector<TuneRanked>& ranked) {
  std::string text;
  const TuneEvaluation* base = default_evaluation(space, outcome);
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const TuneRanked& r = ranked[i];
    text += format("%zu. %s: %s", i + 1, r.label.c_str(), cost_text(objective, r.cost).c_str());
    if (base && base->cost && &outcome.evaluations[r.evaluation] != base)
      // Costs are lower-better; GFLOP per joule is negated into one, so its ratio turns over.
      text += format(", %.2fx the default's", objective == TuneObjective::gflops_per_joule
                                                  ? r.cost / *base->cost
                                                  : *base->cost / r.cost);
    if (&outcome.evaluations[r.evaluation] == base)
      text += " (the default launch)";
    text += "\n";
    for (const TuneDifference& d : r.figures)
      if (d.differs)
        text += "     " + std::string(figure(d.key).display) + ": " + d.text + "\n";
    if (r.limiter.find("; the default's") != std::string::npos)
      text += "     occupancy limited by " + r.limiter + "\n";
  }
  if (!base)
    text += "The default launch was not measured: nothing to set the winner beside.\n";
  return text;
}

} // namespace

const TuneEvaluation* default_evaluation(const TuneSpace& space, const TuneOutcome& outcome) {
  for (const TuneEvaluation& e : outcome.evaluations)
    if (e.point == space.default_point && e.result)
      return &e;
  return nullptr;
}

std::vector<TuneRanked> tune_ranking(const TuneSpace& space, const TuneOutcome& outcome,
                                     std::size_t count) {
  std::vector<std::size_t> costed;
  for (std::size_t i = 0; i < outcome.evaluations.size(); ++i)
    if (outcome.evaluations[i].cost)
      costed.push_back(i);
  std::stable_sort(costed.begin(), costed.end(), [&](std::size_t a, std::size_t b) {
    return *outcome.evaluations[a].cost < *outcome.evaluations[b].cost;
  });
  costed.resize(std::min(costed.size(), count));
  const TuneEvaluation* base = default_evaluation(space, outcome);
  std::vector<TuneRanked> ranked;
  for (const std::size_t i : costed) {
    const TuneEvaluation& e = outcome.evaluations[i];
    TuneRanked r{
        .evaluation = i, .label = tune_point_label(space, space.points[e.point]), .cost = *e.cost};
    r.figures = differences(*e.result, base ? &*base->result : nullptr);
    r.limiter = limiters_of(*e.result);
    if (base && base != &e && limiters_of(*base->result) != r.limiter)
      r.limiter += "; the default's: " + limiters_of(*base->result);
    ranked.push_back(std::move(r));
  }
  return ranked;
}

std::string tune_text(const TuneSpace& space, const TuneOutcome& outcome, TuneStrategy strategy,
                      TuneObjective objective, std::size_t count) {
  std::string text = "tune (" + std::string(tune_strategy_name(strategy)) + ", " +
                     tune_objective_name(objective) +
                     "): " + counted(outcome.evaluations.size(), "evaluation") + " of " +
                     counted(space.valid(), "allowed point") + " (" +
                     counted(space.points.size() - space.valid(), "refused point") +
                     "): " + std::to_string(outcome.measured) + " measured, " +
                     std::to_string(outcome.from_cache) + " from the cache, " +
                     std::to_string(outcome.skipped.size()) + " skipped by the model; " +
                     outcome.stopped + " (" + format_number(outcome.seconds, 1) + " s)\n";
  const std::vector<TuneRanked> ranked = tune_ranking(space, outcome, count);
  if (ranked.empty())
    text += "No point was measured with a figure to rank by (" +
            std::string(tune_objective_name(objective)) + ").\n";
  else
    text += ranking_text(space, outcome, objective, ranked);
  for (const TuneSkip& s : outcome.skipped)
    text += "skipped " + tune_point_label(space, space.points[s.point]) + ": " + s.why + "\n";
  for (const std::string& line : tune_uncosted_lines(space, outcome, objective))
    text += line + "\n";
  return text;
}

std::vector<std::string> tune_uncosted_lines(const TuneSpace& space, const TuneOutcome& outcome,
                                             TuneObjective objective) {
  std::vector<std::string> lines;
  for (const TuneEvaluation& e : outcome.evaluations) {
    if (e.cost)
      continue;
    const std::string label = tune_point_label(space, space.points[e.point]);
    if (outputs_wrong(e))
      lines.push_back("WRONG OUTPUT at " + label + ": " + e.result->verification->first_failure);
    else
      lines.push_back("no " + std::string(objective_noun(objective)) + " at " + label + ": " +
                      tune_why_no_cost(e, objective));
  }
  return lines;
}

std::string tune_why_no_cost(const TuneEvaluation& e, TuneObjective objective) {
  if (e.cost)
    return "";
  if (!e.refused.empty())
    return e.refused;
  if (!e.result)
    return "the measurement brought no result";
  if (outputs_wrong(e))
    return "its outputs were wrong: " + e.result->verification->first_failure;
  if (!e.result->timing)
    return "it was not timed";
  const Figure& f = figure(tune_objective_figure(objective));
  const std::optional<double> value = f.measured ? f.measured(*e.result) : std::nullopt;
  if (!value)
    return "its measurement has no " + std::string(f.display);
  return "its " + std::string(f.display) + " was " + figure_text(f, *value) +
         ", nothing to rank by";
}

nlohmann::json tune_json(const TuneSpace& space, const TuneOutcome& outcome, TuneStrategy strategy,
                         TuneObjective objective, std::size_t count) {
  nlohmann::json evaluations = nlohmann::json::array();
  for (const TuneEvaluation& e : outcome.evaluations) {
    nlohmann::json j = {{"point", tune_point_key(space.points[e.point])},
                        {"label", tune_point_label(space, space.points[e.point])},
                        {"from_cache", e.from_cache},
                        {"seconds", e.seconds}};
    if (e.cost)
      j["cost"] = objective == TuneObjective::gflops_per_joule ? -*e.cost : *e.cost;
    if (!e.refused.empty())
      j["refused"] = e.refused;
    if (outputs_wrong(e))
      j["wrong_outputs"] = e.result->verification->first_failure;
    if (!e.cost)
      j["why_no_cost"] = tune_why_no_cost(e, objective);
    evaluations.push_back(std::move(j));
  }
  nlohmann::json best = nlohmann::json::array();
  for (const TuneRanked& r : tune_ranking(space, outcome, count)) {
    nlohmann::json figures = nlohmann::json::object();
    for (const TuneDifference& d : r.figures)
      figures[d.key] = {{"text", d.text}, {"differs", d.differs}};
    best.push_back(
        {{"label", r.label},
         {"point", tune_point_key(space.points[outcome.evaluations[r.evaluation].point])},
         {"cost", objective == TuneObjective::gflops_per_joule ? -r.cost : r.cost},
         {"limited_by", r.limiter},
         {"figures", figures}});
  }
  nlohmann::json skipped = nlohmann::json::array();
  for (const TuneSkip& s : outcome.skipped)
    skipped.push_back({{"point", tune_point_key(space.points[s.point])}, {"why", s.why}});
  return {{"strategy", tune_strategy_name(strategy)},
          {"objective", tune_objective_name(objective)},
          {"objective_figure", tune_objective_figure(objective)},
          {"points", space.points.size()},
          {"allowed", space.valid()},
          {"axes", space.axes},
          {"measured", outcome.measured},
          {"from_cache", outcome.from_cache},
          {"stopped", outcome.stopped},
          {"seconds", outcome.seconds},
          {"best", best},
          {"evaluations", evaluations},
          {"skipped", skipped}};
}

} // namespace wl
