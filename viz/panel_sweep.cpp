// Sweep: the chosen kernel over many block shapes, from the models here or measured on a GPU
// (`warplens sweep --json`, loaded from a file), coloured by any figure: a line over block x for a
// 1D sweep, a heatmap of block x against block y for a 2D one. Shapes the kernel refuses are drawn
// as such with the reason on hover; shapes within the measured noise of the best are marked tied,
// not ranked; a click loads that shape into the Launch panel; the table exports as CSV.

#include "panels.h"

#include "screenshot.h"
#include "widgets.h"

#include <algorithm>
#include <fstream>

#include <imgui.h>

namespace wl::viz {

namespace {

struct Range {
  double low = 0, high = 0;
  bool empty = true;
};

Range value_range(const std::vector<SweepPoint> &points, SweepMetric metric) {
  Range r;
  for (const SweepPoint &p : points)
    if (const std::optional<double> v = p.result ? sweep_value(*p.result, metric) : std::nullopt) {
      r.low = r.empty ? *v : std::min(r.low, *v);
      r.high = r.empty ? *v : std::max(r.high, *v);
      r.empty = false;
    }
  return r;
}

// Green for the best end of the range, red for the worst.
ImU32 heat(double value, const Range &range, SweepMetric metric) {
  double t = range.high > range.low ? (value - range.low) / (range.high - range.low) : 0.5;
  if (lower_is_better(metric)) t = 1 - t;
  return ImColor::HSV(static_cast<float>(0.33 * t), 0.65f, 0.8f);
}

std::string cell_tooltip(const SweepPoint &p, SweepMetric metric, bool tied) {
  std::string text = "block " + std::to_string(p.block.x) + "x" + std::to_string(p.block.y) + "x" + std::to_string(p.block.z);
  if (!p.result) return text + ": not allowed: " + p.refused;
  const std::optional<double> v = sweep_value(*p.result, metric);
  text += std::string(": ") + sweep_metric_name(metric) + " " + (v ? format_number(*v, 4) : "not in this sweep");
  if (p.result->timing) text += "; noise " + format_number(100 * p.result->timing->noise, 2) + " %";
  if (tied) text += "; tied with the best within the measured noise";
  return text + "\nClick to load this shape.";
}

std::vector<int> distinct(const std::vector<SweepPoint> &points, int BlockShape::*side) {
  std::vector<int> sides;
  for (const SweepPoint &p : points)
    if (std::find(sides.begin(), sides.end(), p.block.*side) == sides.end()) sides.push_back(p.block.*side);
  return sides;
}

// A row per block y, a column per block x; a 1D sweep is one row. Returns the clicked point.
const SweepPoint *heatmap(const std::vector<SweepPoint> &points, SweepMetric metric) {
  const std::vector<int> xs = distinct(points, &BlockShape::x), ys = distinct(points, &BlockShape::y);
  const Range range = value_range(points, metric);
  const std::vector<bool> tied = tied_with_best(points, metric);
  const float label = ImGui::GetFontSize() * 3;
  const float cell = std::clamp((ImGui::GetContentRegionAvail().x - label) / static_cast<float>(xs.size()), 6.0f, 48.0f);
  ImDrawList *draw = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImU32 refused = ImGui::GetColorU32(ImGuiCol_FrameBg), edge = ImGui::GetColorU32(ImGuiCol_Border),
              text = ImGui::GetColorU32(ImGuiCol_Text);
  const SweepPoint *clicked = nullptr;
  for (std::size_t row = 0; row < ys.size(); ++row)
    draw->AddText(ImVec2(origin.x, origin.y + cell * row + 2), text, ("y " + std::to_string(ys[row])).c_str());
  for (std::size_t i = 0; i < points.size(); ++i) {
    const SweepPoint &p = points[i];
    const auto col = std::find(xs.begin(), xs.end(), p.block.x) - xs.begin();
    const auto row = std::find(ys.begin(), ys.end(), p.block.y) - ys.begin();
    const ImVec2 min(origin.x + label + cell * col, origin.y + cell * row), max(min.x + cell - 1, min.y + cell - 1);
    const std::optional<double> v = p.result ? sweep_value(*p.result, metric) : std::nullopt;
    if (v) {
      draw->AddRectFilled(min, max, heat(*v, range, metric));
      const std::string shown = format_number(*v, *v >= 100 ? 0 : *v >= 10 ? 1 : 3);
      const float size = ImGui::GetFontSize() * 0.7f;
      if (ImGui::CalcTextSize(shown.c_str()).x * 0.7f < cell - 3)
        draw->AddText(ImGui::GetFont(), size, ImVec2(min.x + 2, min.y + 2), IM_COL32(20, 20, 20, 255), shown.c_str());
    } else {
      draw->AddRectFilled(min, max, refused);
    }
    if (!p.result) draw->AddLine(min, max, edge); // struck out: not allowed
    draw->AddRect(min, max, tied[i] ? IM_COL32(255, 255, 255, 255) : edge, 0, 0, tied[i] ? 2.0f : 1.0f);
    if (ImGui::IsMouseHoveringRect(min, max)) {
      ImGui::SetTooltip("%s", cell_tooltip(p, metric, tied[i]).c_str());
      if (ImGui::IsMouseClicked(ImGuiMouseButton_Left) && p.result) clicked = &p;
    }
  }
  ImGui::Dummy(ImVec2(label + cell * xs.size(), cell * ys.size()));
  // The x sides under the columns, as many as fit.
  const ImVec2 under = ImGui::GetCursorScreenPos();
  const int every = std::max(1, static_cast<int>(ImGui::GetFontSize() * 3 / cell));
  for (std::size_t col = 0; col < xs.size(); col += every)
    draw->AddText(ImVec2(under.x + label + cell * col, under.y), text, std::to_string(xs[col]).c_str());
  ImGui::Dummy(ImVec2(0, ImGui::GetFontSize()));
  const bool low = lower_is_better(metric);
  if (!range.empty)
    note_text("green: " + format_number(low ? range.low : range.high, 3) + " (best), red: " +
              format_number(low ? range.high : range.low, 3) +
              "; white outline: tied with the best within the measured noise; struck out: not allowed (hover for why)");
  else
    note_text(std::string("This sweep has no ") + sweep_metric_name(metric) + ": a model sweep has no time or counters; "
              "load a sweep measured with `warplens sweep --json`.");
  return clicked;
}

// A 1D sweep's line: the figure over block x, the best point marked.
void line_chart(const std::vector<SweepPoint> &points, SweepMetric metric) {
  std::vector<float> values;
  for (const SweepPoint &p : points)
    if (const std::optional<double> v = p.result ? sweep_value(*p.result, metric) : std::nullopt) values.push_back(float(*v));
  if (values.size() < 2) return;
  ImGui::PlotLines("##sweep_line", values.data(), static_cast<int>(values.size()), 0, sweep_metric_name(metric), FLT_MAX,
                   FLT_MAX, ImVec2(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 6));
}

// A timestamped file in the current folder, a counter added rather than overwrite one.
void export_csv(App &app) {
  const std::string stem = "warplens-sweep-" + local_time("%Y%m%d-%H%M%S");
  std::string name = stem + ".csv";
  for (int n = 2; std::filesystem::exists(name); ++n) name = stem + "-" + std::to_string(n) + ".csv";
  std::ofstream out(name);
  out << sweep_csv(app.sweep.data->points);
  app.status = out ? "sweep saved to " + std::filesystem::absolute(name).string() : "could not write " + name;
}

void draw_controls(App &app) {
  ImGui::PushItemWidth(ImGui::GetFontSize() * 8);
  ImGui::InputText("block x", app.sweep.x_sides.data(), app.sweep.x_sides.size());
  ImGui::SameLine();
  ImGui::InputText("block y", app.sweep.y_sides.data(), app.sweep.y_sides.size());
  ImGui::PopItemWidth();
  if (ImGui::Button("Model sweep")) app.model_sweep_now();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Every shape through the occupancy and access models on %s (no GPU): theoretical occupancy, "
                      "sectors and wavefronts per request. `warplens sweep <kernel> --json FILE` measures one on a "
                      "GPU; open it with `warplens --sweep-json FILE`.",
                      app.arch().id.c_str());
  ImGui::SameLine();
  ImGui::BeginDisabled(app.sweep.running || !app.source);
  if (ImGui::Button("Measure sweep")) app.measure_sweep();
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("Every shape measured by the worker (timing, verification, the default counters), one "
                      "session for all; with no GPU there, the models.");
  if (app.sweep.data) {
    ImGui::SameLine();
    if (ImGui::Button("Export CSV")) export_csv(app);
  }
  if (app.sweep.running && app.source) {
    const auto [done, total] = app.source->sweep_progress();
    ImGui::ProgressBar(total > 0 ? static_cast<float>(done) / total : 0.0f, ImVec2(ImGui::GetFontSize() * 14, 0),
                       total > 0 ? (std::to_string(done) + " of " + std::to_string(total) + " shapes").c_str() : "starting");
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) app.source->cancel_sweep();
  }
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
  if (ImGui::BeginCombo("colour by", sweep_metric_name(app.sweep.metric))) {
    for (SweepMetric m : kAllSweepMetrics)
      if (ImGui::Selectable(sweep_metric_name(m), m == app.sweep.metric)) app.sweep.metric = m;
    ImGui::EndCombo();
  }
  if (!app.sweep.problem.empty()) error_text(app.sweep.problem);
}

} // namespace

void draw_sweep(App &app) {
  if (!begin_panel(app, Panel::sweep)) return;
  draw_controls(app);
  if (!app.sweep.data) {
    empty_state("No sweep yet: Model sweep sweeps the current kernel over the sides above.");
    ImGui::End();
    return;
  }
  const SweepData &data = *app.sweep.data;
  ImGui::TextDisabled("%s: %s, %zu shapes", data.origin.c_str(),
                      data.points.empty() ? "-" : (data.points.front().result ? data.points.front().result->kernel_id.c_str() : "?"),
                      data.points.size());
  if (distinct(data.points, &BlockShape::y).size() == 1) line_chart(data.points, app.sweep.metric);
  if (const SweepPoint *clicked = heatmap(data.points, app.sweep.metric)) {
    app.set_block(clicked->block);
    app.run();
  }
  ImGui::End();
}

} // namespace wl::viz
