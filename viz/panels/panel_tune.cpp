// Tune: the best launch of the kernel on screen over its block shapes and tunables, found by a
// search that measures few of them (`warplens tune`'s strategies), one point at a time on the
// worker's GPU: its progress, the best time after each evaluation, the best few beside the
// default launch with the figures that differ, and every point of the space (measured, skipped
// by the model, refused by the kernel, untried); a click puts a point on screen. In model mode
// the model's ranking of the same space, since nothing can be measured.

#include "drawing/controls.h"
#include "drawing/panel_parts.h"
#include "drawing/widgets.h"
#include "panels/panels.h"
#include "report/figures.h"
#include "tune/tune_report.h"

#include <algorithm>

#include <imgui.h>

namespace wl::viz {

namespace {

constexpr const char* kStrategyNames[] = {"grid", "random", "model"};

// The strategy, the budget and the button that starts (or stops) a tune.
void tune_controls(App& app) {
  TuneWorkflow& t = app.tune;
  const int chosen = std::clamp(t.strategy, 0, 2);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  if (ui::begin_combo("strategy", kStrategyNames[chosen])) {
    for (int i = 0; i < 3; ++i)
      if (ui::selectable(kStrategyNames[i], i == chosen))
        t.strategy = i;
    ImGui::EndCombo();
  }
  help_marker("model: the points the model ranks best first, every other one a neighbour of the "
              "best measured so far, a point whose modelled time cannot beat the best skipped; "
              "random: a random order; grid: every point.");
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
  ui::input_text("budget", t.budget.data(), t.budget.size());
  help_marker("Points to measure at most, 0 to 1,048,576; 0: a quarter of the allowed points (all "
              "for grid). Read when Tune is pressed.");
  if (app.tune_running()) {
    if (ui::button("Stop tune"))
      app.stop_tune();
  } else if (ui::button("Tune")) {
    app.start_tune();
  }
  if (!t.problem.empty())
    error_text(t.problem);
}

std::string cost_text(double ms) { return figure_text(figure("median_time"), ms); }

// Each measured point that came back without a time, and why, as `warplens tune` says it: on
// screen, since a tune that lost points to wrong outputs or launch errors would otherwise look
// merely slow. The first few: a worker that failed every point must not push the best out of sight.
void uncosted_points(const TuneState& s) {
  constexpr std::size_t kShown = 5;
  const std::vector<std::string> lines =
      tune_uncosted_lines(s.space, s.outcome, TuneObjective::time);
  for (std::size_t i = 0; i < lines.size() && i < kShown; ++i)
    error_text(lines[i]);
  if (lines.size() > kShown)
    error_text("and " + counted(lines.size() - kShown, "more point") +
               " without a time (`warplens tune` lists them all)");
}

// Where the tune stands, the best so far against the default, and the best time after each
// evaluation.
void tune_progress(const TuneState& s) {
  const TuneOutcome& o = s.outcome;
  const std::string state =
      s.awaiting ? ": measuring " + tune_point_label(s.space, s.space.points[*s.awaiting]) + " ..."
      : o.stopped.empty() ? std::string()
                          : "; " + o.stopped;
  wrapped_textf("%zu of %s measured (%zu refused by the kernel, %zu skipped by the model)%s",
                o.evaluations.size(), counted(s.space.valid(), "allowed point").c_str(),
                s.space.points.size() - s.space.valid(), o.skipped.size(), state.c_str());
  uncosted_points(s);
  if (!o.best)
    return;
  const TuneEvaluation& best = o.evaluations[*o.best];
  const TuneEvaluation* base = default_evaluation(s.space, o);
  std::string line = "Best so far: " + tune_point_label(s.space, s.space.points[best.point]) +
                     ", " + cost_text(*best.cost);
  if (base && base->cost && base != &best)
    line += format(", %.2fx the default's %s", *base->cost / *best.cost,
                   cost_text(*base->cost).c_str());
  else if (base == &best)
    line += " (the default launch)";
  note_text(line + ".");
  if (s.best_after.size() > 1)
    history_plot(s.best_after, ImGui::GetContentRegionAvail().x, 48);
}

// The best three, the best beside the default launch with each figure that differs (why it
// wins); the next two a line each (`warplens tune` explains every one).
void tune_winners(const TuneState& s) {
  const std::vector<TuneRanked> ranked = tune_ranking(s.space, s.outcome, 3);
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const TuneRanked& r = ranked[i];
    ImGui::Text("%zu. %s: %s", i + 1, r.label.c_str(), cost_text(r.cost).c_str());
    if (i > 0)
      continue;
    for (const TuneDifference& d : r.figures)
      if (d.differs)
        wrapped_textf("    %s: %s", std::string(figure(d.key).display).c_str(), d.text.c_str());
    if (r.limiter.find("; the default's") != std::string::npos)
      wrapped_textf("    occupancy limited by %s", r.limiter.c_str());
  }
}

// What became of a point: its measured time, or why it has none.
std::string point_state(const TuneState& s, std::size_t point) {
  if (!s.space.points[point].refused.empty())
    return "refused (hover the point for why)";
  if (s.awaiting == point)
    return "measuring";
  for (const TuneEvaluation& e : s.outcome.evaluations)
    if (e.point == point)
      return e.cost ? cost_text(*e.cost) : "no time";
  for (const TuneSkip& k : s.outcome.skipped)
    if (k.point == point)
      return "skipped";
  return "-";
}

// Every allowed point in the model's order (then the refused ones): its modelled time and what
// became of it; a click puts it on screen. The panel scrolls, not the table: a table of its own
// scrolled out of sight would draw none of its rows, and a script could not find one.
void tune_space_table(App& app, const TuneState& s) {
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("tune_space", 6, flags))
    return;
  // The model's figures the rank is made of: its time first, then occupancy, then coalescing.
  for (const char* header :
       {"model's rank", "point", "modelled time", "occupancy", "sectors/req", "measured"})
    ImGui::TableSetupColumn(header);
  table_headers_row();
  std::vector<std::size_t> order = s.ranking;
  for (std::size_t i = 0; i < s.space.points.size(); ++i)
    if (!s.space.points[i].refused.empty())
      order.push_back(i);
  // Every row drawn, not clipped: a script (or a person's search) finds any point by its label.
  for (std::size_t row = 0; row < order.size(); ++row) {
    const std::size_t point = order[row];
    const SweepPoint& p = s.space.points[point];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(p.refused.empty() ? std::to_string(row + 1).c_str() : "-");
    ImGui::TableNextColumn();
    const std::string label =
        tune_point_label(s.space, p) + (point == s.space.default_point ? " (default)" : "");
    if (ui::selectable((label + "##tune" + std::to_string(point)).c_str(), false, label))
      app.open_tune_point(point);
    if (!p.refused.empty() && ImGui::IsItemHovered())
      hover_text(p.refused);
    for (const char* key : {"modelled_time", "theoretical_occupancy", "sectors_per_request"}) {
      ImGui::TableNextColumn();
      const std::optional<double> value =
          p.result ? figure_value(figure(key), *p.result) : std::nullopt;
      number_cell(value ? figure_text(figure(key), *value) : "-");
    }
    ImGui::TableNextColumn();
    number_cell(point_state(s, point));
  }
  ImGui::EndTable();
}

} // namespace

void draw_tune(App& app) {
  tune_controls(app);
  const TuneState* s = app.tune.state.get();
  if (!s) {
    empty_state("Not tuned yet: Tune measures the kernel on screen over its block shapes and "
                "tunables, a few points at a time, and sets the best beside the default launch. "
                "`warplens tune` does the same from the command line.");
    return;
  }
  if (s->kernel_id != app.choices.kernel_id)
    note_text("This tune is of " + s->kernel_id + ", not the kernel on screen.");
  if (!s->measured)
    note_text("Model mode: nothing is measured here. The model's ranking of " +
              counted(s->space.valid(), "allowed point") +
              ": what the model strategy would measure first on a GPU.");
  else
    tune_progress(*s);
  tune_winners(*s);
  ImGui::Separator();
  tune_space_table(app, *s);
}

} // namespace wl::viz
