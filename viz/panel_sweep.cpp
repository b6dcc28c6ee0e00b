// Sweep: the chosen kernel over many block shapes, from the models here or measured on a GPU
// (`warplens sweep --json`, loaded from a file), coloured by any figure: a line over block x for a
// 1D sweep, a heatmap of block x against block y for a 2D one. Shapes the kernel refuses are drawn
// as such with the reason on hover; shapes within the measured noise of the best are marked tied,
// not ranked; a click loads that shape into the Launch panel; the table exports as CSV.

#include "panels.h"

#include "block_text.h"
#include "controls.h"
#include "screenshot.h"
#include "settings.h"
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

// What colours a cell: the figure itself, or for per-request figures its ratio to the ideal.
std::optional<double> colour_value(const SweepPoint &p, SweepMetric metric) {
  if (!p.result) return std::nullopt;
  const std::optional<double> v = sweep_value(*p.result, metric);
  const std::optional<double> ideal = sweep_ideal(*p.result, metric);
  if (v && ideal && *ideal > 0) return *v / *ideal;
  return v;
}

Range value_range(const std::vector<SweepPoint> &points, SweepMetric metric) {
  Range r;
  for (const SweepPoint &p : points)
    if (const std::optional<double> v = colour_value(p, metric)) {
      r.low = r.empty ? *v : std::min(r.low, *v);
      r.high = r.empty ? *v : std::max(r.high, *v);
      r.empty = false;
    }
  return r;
}

// Green for the best end of the range, red for the worst; per-request figures against their
// ideal, so a sweep where every shape is ideal is all green.
ImU32 heat(double value, const Range &range, SweepMetric metric) {
  const bool against_ideal = metric == SweepMetric::sectors_per_request || metric == SweepMetric::wavefronts_per_request;
  const double low = against_ideal ? 1.0 : range.low;
  double t = range.high > low ? (value - low) / (range.high - low) : (against_ideal ? 0.0 : 0.5);
  if (lower_is_better(metric)) t = 1 - t;
  return ImColor::HSV(static_cast<float>(0.33 * std::clamp(t, 0.0, 1.0)), 0.65f, 0.8f);
}

std::string cell_tooltip(const SweepPoint &p, SweepMetric metric, bool tied) {
  std::string text = "block " + format_block(p.block);
  if (!p.result) return text + ": not allowed: " + p.refused;
  const std::optional<double> v = sweep_value(*p.result, metric);
  text += std::string(": ") + sweep_metric_name(metric) + " " + (v ? format_number(*v, 4) : "not in this sweep");
  if (const std::optional<double> ideal = sweep_ideal(*p.result, metric)) text += " (ideal " + format_number(*ideal, 2) + ")";
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

// The legend: a colour bar from best to worst with the figure's values at both ends.
void colour_bar(const Range &range, SweepMetric metric, bool measured) {
  const bool low_best = lower_is_better(metric);
  const bool against_ideal = metric == SweepMetric::sectors_per_request || metric == SweepMetric::wavefronts_per_request;
  const float width = ImGui::GetFontSize() * 12, height = ImGui::GetFontSize() * 0.8f;
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImDrawList *draw = ImGui::GetWindowDrawList();
  constexpr int kSteps = 24;
  for (int i = 0; i < kSteps; ++i) {
    const float t = static_cast<float>(i) / kSteps;
    draw->AddRectFilled(ImVec2(at.x + width * t, at.y), ImVec2(at.x + width * (t + 1.0f / kSteps) + 1, at.y + height),
                        ImColor::HSV(0.33f * (1 - t), 0.65f, 0.8f));
  }
  ImGui::Dummy(ImVec2(width, height));
  const double best = against_ideal ? 1.0 : low_best ? range.low : range.high;
  const double worst = low_best ? range.high : range.low;
  ImGui::SameLine();
  ImGui::TextUnformatted((against_ideal ? "ideal (x1.00)  to  x" + format_number(worst, 2) + " the ideal"
                                        : "best " + format_number(best, 3) + "  to  worst " + format_number(worst, 3))
                             .c_str());
  note_text(std::string(against_ideal ? "Colour: times the ideal for the access width. " : "") +
            (measured ? "White outline: tied with the best within the measured noise. " : "") +
            "Blue outline: the launch on screen. Struck out: not allowed (hover for why).");
}

// A row per block y, a column per block x; a 1D sweep is one row. Each cell is a button a person
// (or a script, by its block "16x8") clicks to load that shape. Returns the clicked point.
const SweepPoint *heatmap(const SweepData &data, SweepMetric metric, const BlockShape &current) {
  const std::vector<SweepPoint> &points = data.points;
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
    ImGui::SetCursorScreenPos(min);
    const std::string name = format_block(p.block);
    // A button per cell: hover and clicks respect what lies above it (an open combo's list).
    if (ImGui::InvisibleButton(("##cell" + name).c_str(), ImVec2(cell - 1, cell - 1)) && p.result) clicked = &p;
    note_last_item(name, ControlKind::cell);
    if (ImGui::IsItemHovered()) hover_text(cell_tooltip(p, metric, tied[i]));
    const std::optional<double> v = colour_value(p, metric);
    if (v) {
      draw->AddRectFilled(min, max, heat(*v, range, metric));
      const double shown_value = *sweep_value(*p.result, metric);
      const std::string shown = format_number(shown_value, shown_value >= 100 ? 0 : shown_value >= 10 ? 1 : 3);
      const float size = ImGui::GetFontSize() * 0.7f;
      if (ImGui::CalcTextSize(shown.c_str()).x * 0.7f < cell - 3)
        draw->AddText(ImGui::GetFont(), size, ImVec2(min.x + 2, min.y + 2), IM_COL32(20, 20, 20, 255), shown.c_str());
    } else {
      draw->AddRectFilled(min, max, refused);
    }
    if (!p.result) draw->AddLine(min, max, edge); // struck out: not allowed
    draw->AddRect(min, max, tied[i] ? IM_COL32(255, 255, 255, 255) : edge, 0, 0, tied[i] ? 2.0f : 1.0f);
    if (p.block == current) draw->AddRect(ImVec2(min.x - 1, min.y - 1), ImVec2(max.x + 1, max.y + 1), IM_COL32(60, 140, 255, 255), 0, 0, 3);
  }
  ImGui::SetCursorScreenPos(origin);
  ImGui::Dummy(ImVec2(label + cell * xs.size(), cell * ys.size()));
  // The x sides under the columns, as many as fit.
  const ImVec2 under = ImGui::GetCursorScreenPos();
  const int every = std::max(1, static_cast<int>(ImGui::GetFontSize() * 3 / cell));
  for (std::size_t col = 0; col < xs.size(); col += every)
    draw->AddText(ImVec2(under.x + label + cell * col, under.y), text, std::to_string(xs[col]).c_str());
  ImGui::Dummy(ImVec2(0, ImGui::GetFontSize()));
  if (!range.empty) colour_bar(range, metric, data.measured);
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

// A timestamped file in the app's folder for saved files, a counter added rather than overwrite one.
void export_csv(App &app) {
  const std::filesystem::path dir = app.screenshot_dir.empty() ? pictures_dir() : app.screenshot_dir;
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  const std::string stem = "warplens-sweep-" + local_time("%Y%m%d-%H%M%S");
  std::filesystem::path file = dir / (stem + ".csv");
  for (int n = 2; std::filesystem::exists(file, error); ++n) file = dir / (stem + "-" + std::to_string(n) + ".csv");
  const std::string problem = write_file_atomically(file, sweep_csv(app.sweep.data->points));
  app.status = problem.empty() ? "sweep saved" : problem;
  if (problem.empty()) app.last_saved_path = file.string();
}

void draw_controls(App &app) {
  ImGui::PushItemWidth(ImGui::GetFontSize() * 8);
  ui::input_text("block x", app.sweep.x_sides.data(), app.sweep.x_sides.size());
  ImGui::SameLine();
  ui::input_text("block y", app.sweep.y_sides.data(), app.sweep.y_sides.size());
  ImGui::PopItemWidth();
  if (ui::button("Model sweep")) app.model_sweep_now();
  if (ImGui::IsItemHovered())
    hover_text("Every shape through the occupancy and access models on " + app.arch().id +
               " (no GPU): theoretical occupancy, sectors and wavefronts per request. `warplens sweep <kernel> --json "
               "FILE` measures one on a GPU; open it with `warplens --sweep-json FILE`.");
  ImGui::SameLine();
  ImGui::BeginDisabled(app.sweep.running || !app.source);
  if (ui::button("Measure sweep")) app.measure_sweep();
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    hover_text("Every shape measured by the worker (timing, verification, the default counters), one session for "
               "all; with no GPU there, the models.");
  if (app.sweep.data) {
    ImGui::SameLine();
    if (ui::button("Export CSV")) export_csv(app);
  }
  if (app.sweep.running && app.source) {
    const auto [done, total] = app.source->sweep_progress();
    ImGui::ProgressBar(total > 0 ? static_cast<float>(done) / total : 0.0f, ImVec2(ImGui::GetFontSize() * 14, 0),
                       total > 0 ? (std::to_string(done) + " of " + std::to_string(total) + " shapes").c_str() : "starting");
    ImGui::SameLine();
    if (ui::button("Cancel")) app.source->cancel_sweep();
  }
  if (!app.sweep.problem.empty()) error_text(app.sweep.problem);
}

// Only the figures the sweep has are offered; the choice falls back to the first of them.
void draw_metric_choice(App &app, const SweepData &data) {
  const std::vector<SweepMetric> offered = offered_metrics(data);
  if (offered.empty()) return;
  if (std::find(offered.begin(), offered.end(), app.sweep.metric) == offered.end()) app.sweep.metric = offered.front();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
  if (ui::begin_combo("colour by", sweep_metric_name(app.sweep.metric))) {
    for (SweepMetric m : offered)
      if (ui::selectable(sweep_metric_name(m), m == app.sweep.metric)) app.sweep.metric = m;
    ImGui::EndCombo();
  }
}

} // namespace

void draw_sweep(App &app) {
  draw_controls(app);
  if (!app.sweep.data) {
    empty_state("No sweep yet: Model sweep sweeps the current kernel over the sides above.");
    return;
  }
  const SweepData &data = *app.sweep.data;
  ImGui::TextDisabled("%s: %s, %zu shapes", data.origin.c_str(), data.kernel_id.c_str(), data.points.size());
  const auto allowed = std::find_if(data.points.begin(), data.points.end(), [](const SweepPoint &p) { return p.result; });
  if (allowed == data.points.end()) {
    error_text(data.points.empty() ? std::string("The sweep has no shapes.")
                                   : "The kernel refused every shape of this sweep; the first: " +
                                         format_block(data.points.front().block) + ": " + data.points.front().refused);
    return;
  }
  draw_metric_choice(app, data);
  if (distinct(data.points, &BlockShape::y).size() == 1) line_chart(data.points, app.sweep.metric);
  if (const SweepPoint *clicked = heatmap(data, app.sweep.metric, app.block())) {
    app.set_block(clicked->block);
    app.run();
  }
}

} // namespace wl::viz
