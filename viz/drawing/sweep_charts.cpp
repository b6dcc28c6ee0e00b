// The Sweep panel's drawings: a 1D sweep as a line chart with axes, a 2D sweep as a heatmap with
// values in its cells and a colour bar. Colours know each figure's direction and, for per-request
// figures, its ideal.

#include "drawing/sweep_charts.h"

#include "base/text_format.h"
#include "drawing/controls.h"
#include "drawing/widgets.h"
#include "model/block_text.h"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <functional>

#include <imgui.h>

namespace wl::viz {

namespace {

// The marks, named once: the legends draw a sample of each beside its meaning rather than name
// its colour.
constexpr ImU32 kCurrentOutline = IM_COL32(60, 140, 255, 255); // heatmap: the launch on screen
constexpr ImU32 kTiedOutline = IM_COL32(255, 255, 255, 255);   // heatmap: tied with the best
constexpr ImU32 kLine = IM_COL32(90, 170, 240, 255);           // line chart: the figure
constexpr ImU32 kSecondLine = IM_COL32(225, 110, 200, 255);    // line chart: a second figure
constexpr ImU32 kCurrentPoint = IM_COL32(240, 170, 40, 255);   // line chart: the launch on screen
// Line chart: the lines of several kernels or GPUs, the sweep's own first.
constexpr std::array<ImU32, 4> kSeriesColours = {kLine, kSecondLine, IM_COL32(120, 200, 90, 255),
                                                 IM_COL32(230, 200, 60, 255)};

enum class Sample { outline, struck_cell, dot, gap, line };

// One legend entry: a small sample of the mark, then its meaning; entries share a line while they
// fit the panel.
void legend_entry(Sample sample, ImU32 colour, const std::string& meaning, bool first) {
  const float size = ImGui::GetFontSize() * 0.8f;
  const float width =
      size + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(meaning.c_str()).x;
  if (!first)
    same_line_if_room(width, 2 * ImGui::GetStyle().ItemSpacing.x);
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const ImVec2 min(at.x + 1, at.y + (ImGui::GetTextLineHeight() - size) / 2),
      max(min.x + size, min.y + size);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  switch (sample) {
  case Sample::outline:
    draw->AddRect(min, max, colour, 0, 0, 2);
    break;
  case Sample::struck_cell:
    draw->AddRectFilled(min, max, ImGui::GetColorU32(ImGuiCol_FrameBg));
    draw->AddLine(min, max, colour);
    draw->AddRect(min, max, colour);
    break;
  case Sample::dot:
    draw->AddCircleFilled(ImVec2((min.x + max.x) / 2, (min.y + max.y) / 2), size / 2.5f, colour);
    break;
  case Sample::line:
    draw->AddLine(ImVec2(min.x - 2, (min.y + max.y) / 2), ImVec2(max.x + 2, (min.y + max.y) / 2),
                  colour, 2);
    break;
  case Sample::gap: // the line stops before a refused shape and starts again after it
    draw->AddLine(ImVec2(min.x - 2, max.y), ImVec2(min.x + size * 0.25f, min.y + size / 2), colour,
                  2);
    draw->AddLine(ImVec2(max.x - size * 0.25f, min.y + size / 2), ImVec2(max.x + 2, min.y), colour,
                  2);
    break;
  }
  ImGui::Dummy(ImVec2(size + 1, ImGui::GetTextLineHeight()));
  ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
  ImGui::TextUnformatted(meaning.c_str());
}

// "3 of 32 points not allowed" under a chart, so refused points are counted, not only drawn.
void refused_count(const std::vector<const SweepPoint*>& points) {
  const auto refused =
      std::count_if(points.begin(), points.end(), [](const SweepPoint* p) { return !p->result; });
  if (refused > 0)
    note_text(std::to_string(refused) + " of " + std::to_string(points.size()) +
              " points not allowed for this kernel (hover one for why).");
}

// The point is the launch on screen: its block and, where it knows them, its parameters.
bool is_current(const SweepPoint& p, const SweepPoint& current) {
  return p.block == current.block &&
         std::all_of(p.params.begin(), p.params.end(), [&](const auto& param) {
           const auto shown = current.params.find(param.first);
           return shown == current.params.end() || shown->second == param.second;
         });
}

struct Range {
  double low = 0, high = 0;
  bool empty = true;
};

// What colours a cell: the figure itself, or for per-request figures its ratio to the ideal.
std::optional<double> colour_value(const SweepPoint& p, SweepMetric metric) {
  if (!p.result)
    return std::nullopt;
  const std::optional<double> v = figure_value(*metric, *p.result);
  const std::optional<double> ideal = sweep_ideal(*p.result, metric);
  if (v && ideal && *ideal > 0)
    return *v / *ideal;
  return v;
}

Range value_range(const std::vector<const SweepPoint*>& points, SweepMetric metric) {
  Range r;
  for (const SweepPoint* p : points)
    if (const std::optional<double> v = colour_value(*p, metric)) {
      r.low = r.empty ? *v : std::min(r.low, *v);
      r.high = r.empty ? *v : std::max(r.high, *v);
      r.empty = false;
    }
  return r;
}

// Green for the best end of the range, red for the worst; per-request figures against their
// ideal, so a sweep where every shape is ideal is all green.
ImU32 heat(double value, const Range& range, SweepMetric metric) {
  const bool against_ideal = metric->ideal_value != nullptr;
  const double low = against_ideal ? 1.0 : range.low;
  if (range.high <= low) // every shape the same (or ideal): each is the best there is
    return ImColor::HSV(0.33f, 0.65f, 0.8f);
  double t = (value - low) / (range.high - low);
  if ((metric->better == Better::lower))
    t = 1 - t;
  return ImColor::HSV(static_cast<float>(0.33 * std::clamp(t, 0.0, 1.0)), 0.65f, 0.8f);
}

std::string cell_tooltip(const SweepPoint& p, const ChartAxes& axes, SweepMetric metric,
                         bool tied) {
  std::string text = point_name(p, axes);
  if (!axes.x.starts_with("block.") || (!axes.y.empty() && !axes.y.starts_with("block.")))
    text += " (block " + format_block(p.block) + ")";
  else
    text = "block " + text;
  if (!p.result)
    return text + ": not allowed: " + p.refused;
  const std::optional<double> v = figure_value(*metric, *p.result);
  text += ": " + figure_label(*metric) + " " + (v ? format_number(*v, 4) : "not in this sweep");
  if (const std::optional<double> ideal = sweep_ideal(*p.result, metric))
    text += " (ideal " + format_number(*ideal, 2) + ")";
  if (p.result->timing)
    text += "; noise " + format_percent(100 * p.result->timing->noise, 2);
  if (tied)
    text += "; tied with the best within the measured noise";
  return text + "\nClick to load this point.";
}

// The values the points take on an axis, smallest first; one 0 for no axis (a single row).
std::vector<std::int64_t> distinct(const std::vector<const SweepPoint*>& points,
                                   const std::string& axis) {
  std::vector<std::int64_t> values;
  for (const SweepPoint* p : points) {
    const std::int64_t v = axis.empty() ? 0 : axis_value(*p, axis);
    if (std::find(values.begin(), values.end(), v) == values.end())
      values.push_back(v);
  }
  std::sort(values.begin(), values.end());
  return values;
}

// The legend: a colour bar from best to worst with the figure's values at both ends.
void colour_bar(const Range& range, SweepMetric metric, bool measured) {
  const bool low_best = (metric->better == Better::lower);
  const bool against_ideal = metric->ideal_value != nullptr;
  const float width = ImGui::GetFontSize() * 12, height = ImGui::GetFontSize() * 0.8f;
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  constexpr int kSteps = 24;
  for (int i = 0; i < kSteps; ++i) {
    const float t = static_cast<float>(i) / kSteps;
    draw->AddRectFilled(ImVec2(at.x + width * t, at.y),
                        ImVec2(at.x + width * (t + 1.0f / kSteps) + 1, at.y + height),
                        ImColor::HSV(0.33f * (1 - t), 0.65f, 0.8f));
  }
  ImGui::Dummy(ImVec2(width, height));
  const double best = against_ideal ? 1.0 : low_best ? range.low : range.high;
  const double worst = low_best ? range.high : range.low;
  ImGui::SameLine();
  ImGui::TextUnformatted(
      (against_ideal ? "ideal (x1.00)  to  x" + format_number(worst, 2) + " the ideal"
                     : "best " + format_number(best, 3) + "  to  worst " + format_number(worst, 3))
          .c_str());
  if (against_ideal)
    note_text("Colour: times the ideal for the access width.");
  if (range.low == range.high) // one colour says nothing by itself: said in words
    note_text("Every point has the same " + std::string(metric->display) +
              ": nothing in this sweep changes it; colour by another figure to compare them.");
  legend_entry(Sample::outline, kCurrentOutline, "the launch on screen", true);
  if (measured)
    legend_entry(Sample::outline, kTiedOutline, "tied with the best (within the noise)", false);
  legend_entry(Sample::struck_cell, ImGui::GetColorU32(ImGuiCol_Border), "not allowed", false);
}

} // namespace

namespace {

// What one heatmap cell shows.
struct CellLook {
  std::optional<ImU32> fill; // none: the point was not allowed, or has no value
  std::string text;          // printed in the cell where it fits (lines split by \n)
  std::string tooltip;
  bool tied = false; // outlined white: tied with the best within the noise
};

// The x values of the columns (under a strip, above a grid), as many as fit.
void column_values(const std::vector<std::int64_t>& xs, float label, float cell) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 under = ImGui::GetCursorScreenPos();
  float widest = 0;
  for (std::int64_t x : xs)
    widest = std::max(widest, ImGui::CalcTextSize(std::to_string(x).c_str()).x);
  const int every =
      std::max(1, static_cast<int>(std::ceil((widest + ImGui::GetFontSize() / 2) / cell)));
  for (std::size_t col = 0; col < xs.size(); col += every) { // centred under its column
    const std::string value = std::to_string(xs[col]);
    const float left = std::max(0.0f, (cell - ImGui::CalcTextSize(value.c_str()).x) / 2);
    draw->AddText(ImVec2(under.x + label + cell * col + left, under.y),
                  ImGui::GetColorU32(ImGuiCol_Text), value.c_str());
  }
  ImGui::Dummy(ImVec2(0, ImGui::GetFontSize()));
}

// A row per value of the y axis, a column per value of the x axis; a 1D sweep is one row. Each
// cell is a button a person (or a script, by its point_name, "16x8") clicks to load that point;
// `look` says what it shows. Returns the clicked point.
const SweepPoint* cell_grid(const std::vector<const SweepPoint*>& points, const ChartAxes& axes,
                            const SweepPoint& current,
                            const std::function<CellLook(std::size_t)>& look) {
  const std::vector<std::int64_t> xs = distinct(points, axes.x), ys = distinct(points, axes.y);
  const auto row_label = [&](std::int64_t y) {
    return axes.y.empty()
               ? std::string()
               : (axes.y == "block.y" ? "y" : axis_title(axes.y)) + " " + std::to_string(y);
  };
  float label = ImGui::GetFontSize() * 3;
  for (std::int64_t y : ys)
    label = std::max(label, ImGui::CalcTextSize(row_label(y).c_str()).x + ImGui::GetFontSize() / 2);
  const float cell = std::clamp(
      (ImGui::GetContentRegionAvail().x - label) / static_cast<float>(xs.size()), 6.0f, 48.0f);
  // A grid of many rows is taller than the panel: its axes are said and its columns numbered
  // above it, where they are in sight; a strip of one row has them under it.
  const std::string axes_said = "Columns: " + axis_title(axes.x) +
                                (axes.y.empty() ? std::string() : "; rows: " + axis_title(axes.y)) +
                                ".";
  const bool tall = ys.size() > 1;
  if (tall) {
    note_text(axes_said);
    column_values(xs, label, cell);
  }
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImU32 refused = ImGui::GetColorU32(ImGuiCol_FrameBg),
              edge = ImGui::GetColorU32(ImGuiCol_Border), text = ImGui::GetColorU32(ImGuiCol_Text);
  const SweepPoint* clicked = nullptr;
  for (std::size_t row = 0; row < ys.size(); ++row)
    draw->AddText(ImVec2(origin.x, origin.y + cell * row + 2), text, row_label(ys[row]).c_str());
  for (std::size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& p = *points[i];
    const auto col = std::find(xs.begin(), xs.end(), axis_value(p, axes.x)) - xs.begin();
    const auto row =
        std::find(ys.begin(), ys.end(), axes.y.empty() ? 0 : axis_value(p, axes.y)) - ys.begin();
    const ImVec2 min(origin.x + label + cell * col, origin.y + cell * row),
        max(min.x + cell - 1, min.y + cell - 1);
    ImGui::SetCursorScreenPos(min);
    const std::string name = point_name(p, axes);
    const CellLook shown = look(i);
    // A button per cell: hover and clicks respect what lies above it (an open combo's list).
    if (ImGui::InvisibleButton(("##cell" + name).c_str(), ImVec2(cell - 1, cell - 1)) && p.result)
      clicked = &p;
    note_last_item(name, ControlKind::cell);
    if (ImGui::IsItemHovered())
      hover_text(shown.tooltip);
    draw->AddRectFilled(min, max, shown.fill.value_or(refused));
    const float size = ImGui::GetFontSize() * 0.7f;
    const ImVec2 text_size = ImGui::GetFont()->CalcTextSizeA(size, FLT_MAX, 0, shown.text.c_str());
    if (shown.fill && text_size.x < cell - 3 && text_size.y < cell - 3)
      draw->AddText(ImGui::GetFont(), size, ImVec2(min.x + 2, min.y + 2), IM_COL32(20, 20, 20, 255),
                    shown.text.c_str());
    if (!p.result)
      draw->AddLine(min, max, edge); // struck out: not allowed
    draw->AddRect(min, max, shown.tied ? kTiedOutline : edge, 0, 0, shown.tied ? 2.0f : 1.0f);
    if (is_current(p, current))
      draw->AddRect(ImVec2(min.x - 1, min.y - 1), ImVec2(max.x + 1, max.y + 1), kCurrentOutline, 0,
                    0, 3);
  }
  ImGui::SetCursorScreenPos(origin);
  ImGui::Dummy(ImVec2(label + cell * xs.size(), cell * ys.size()));
  if (!tall) {
    column_values(xs, label, cell);
    note_text(axes_said);
  }
  return clicked;
}

// A figure's value as a cell prints it: fewer decimals the larger it is, so 4.00 takes the room
// 12.0 does (a 4.000 did not fit a cell where 12.0 did, and was left out).
std::string cell_number(double value) {
  const double size = std::fabs(value);
  return format_number(value, size >= 100 ? 0 : size >= 10 ? 1 : size >= 1 ? 2 : 3);
}

} // namespace

const SweepPoint* heatmap(const SweepData& data, const ChartAxes& axes, SweepMetric metric,
                          const SweepPoint& current) {
  // Per device, a grid per GPU side by side, on one colour scale: the same colour is the same
  // figure on either GPU.
  std::vector<const std::vector<SweepPoint>*> series{&data.points};
  for (const SweepSeries& s : data.devices)
    series.push_back(&s.points);
  std::vector<const SweepPoint*> every;
  for (const std::vector<SweepPoint>* s : series)
    for (const SweepPoint* p : charted_points(*s, axes))
      every.push_back(p);
  const Range range = value_range(every, metric);
  const SweepPoint* clicked = nullptr;
  const bool side_by_side =
      series.size() > 1 && ImGui::BeginTable("##devices", static_cast<int>(series.size()),
                                             ImGuiTableFlags_SizingStretchSame);
  for (const std::vector<SweepPoint>* s : series) {
    if (side_by_side)
      ImGui::TableNextColumn();
    const std::vector<const SweepPoint*> points = charted_points(*s, axes);
    const std::vector<bool> tied = tied_with_best(points, metric);
    const std::string device = series_device(*s);
    if (series.size() > 1)
      ImGui::TextUnformatted(device.empty() ? "no point measured" : screen_text(device).c_str());
    ImGui::PushID(device.c_str());
    const SweepPoint* here = cell_grid(points, axes, current, [&](std::size_t i) {
      const SweepPoint& p = *points[i];
      CellLook look{std::nullopt, "", cell_tooltip(p, axes, metric, tied[i]), tied[i]};
      if (const std::optional<double> v = colour_value(p, metric)) {
        look.fill = heat(*v, range, metric);
        look.text = cell_number(*figure_value(*metric, *p.result));
      }
      return look;
    });
    ImGui::PopID();
    clicked = here ? here : clicked;
    refused_count(points);
  }
  if (side_by_side)
    ImGui::EndTable();
  if (!range.empty)
    colour_bar(range, metric, data.measured);
  return clicked;
}

namespace {

// How much better the second kernel's figure is than the first's, as a signed log2: +1 is twice
// as good (half the time, twice the GB/s), -1 half as good, 0 the same. None where a side has no
// value or the figure has no direction.
std::optional<double> gain(const RunResult& a, const RunResult& b, SweepMetric metric) {
  const std::optional<double> va = figure_value(*metric, a), vb = figure_value(*metric, b);
  if (!va || !vb || !(*va > 0) || !(*vb > 0) || metric->better == Better::neither)
    return std::nullopt;
  const double g = std::log2(*vb / *va);
  return metric->better == Better::lower ? -g : g;
}

// Green where the second kernel is better, red where worse, grey where the same; the stronger,
// the further from the same, up to `extent`.
ImU32 diverging(double g, double extent) {
  const float strength = static_cast<float>(std::clamp(std::abs(g) / extent, 0.0, 1.0));
  return ImColor::HSV(g >= 0 ? 0.33f : 0.0f, 0.7f * strength, 0.82f);
}

// Time figures are judged by the noise rule; a SAME is grey however the medians fell.
std::optional<Verdict> time_verdict(const RunResult& a, const RunResult& b, SweepMetric metric) {
  if (!carries_noise(metric))
    return std::nullopt;
  return compare_times(a, b).verdict;
}

std::string ab_tooltip(const SweepPoint& pa, const SweepPoint* pb, const SweepData& data,
                       const ChartAxes& axes, SweepMetric metric) {
  const std::string& b_id = data.against->kernel_id;
  std::string text = point_name(pa, axes) + " (block " + format_block(pa.block) + ")";
  if (!pa.result)
    return text + ": " + data.kernel_id + " not allowed: " + pa.refused;
  if (!pb || !pb->result)
    return text + ": " + b_id + " not allowed: " + (pb ? pb->refused : "no such point");
  const auto value = [&](const RunResult& r) {
    const std::optional<double> v = figure_value(*metric, r);
    std::string shown = v ? format_number(*v, 4) : "-";
    if (r.timing && carries_noise(metric))
      shown += " (noise " + format_number(100 * r.timing->noise, 2) + " %)";
    return shown;
  };
  text += "\n" + figure_label(*metric) + ": A " + data.kernel_id + " " + value(*pa.result) +
          ", B " + b_id + " " + value(*pb->result);
  const std::optional<double> va = figure_value(*metric, *pa.result),
                              vb = figure_value(*metric, *pb->result);
  if (va && vb && *va > 0)
    text += "\nB / A: x" + format_number(*vb / *va, 3);
  if (const std::optional<Verdict> v = time_verdict(*pa.result, *pb->result, metric)) {
    const TimeComparison c = compare_times(*pa.result, *pb->result);
    text += "\nverdict for B: " + std::string(verdict_word(*v)) +
            (*v == Verdict::unsure ? " (no measured noise: the models' figures)"
                                   : " (the difference against the smaller noise, " +
                                         format_number(100 * c.noise, 2) + " %)");
  }
  return text + "\nClick to load this point.";
}

// The legend of the A/B heatmap: a diverging bar from "worse" to "better" for the second kernel.
void diverging_bar(double extent, const SweepData& data, SweepMetric metric) {
  const float width = ImGui::GetFontSize() * 12, height = ImGui::GetFontSize() * 0.8f;
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  constexpr int kSteps = 24;
  for (int i = 0; i < kSteps; ++i) {
    const double t = static_cast<double>(i) / (kSteps - 1);
    draw->AddRectFilled(
        ImVec2(at.x + width * static_cast<float>(i) / kSteps, at.y),
        ImVec2(at.x + width * static_cast<float>(i + 1) / kSteps + 1, at.y + height),
        diverging((2 * t - 1) * extent, extent));
  }
  ImGui::Dummy(ImVec2(width, height));
  ImGui::SameLine();
  const std::string times = format_number(std::exp2(extent), 2);
  ImGui::TextUnformatted(("x" + times + " worse  to  x" + times + " better").c_str());
  note_text("Colour: B " + data.against->kernel_id + " over A " + data.kernel_id + " by " +
            figure_label(*metric) + " (cells print B / A" +
            (carries_noise(metric) ? " and the verdict for B" : "") + ")" +
            (carries_noise(metric) ? "; grey: SAME, the difference within the smaller noise "
                                     "(nvbench's compare rule)"
                                   : "") +
            ".");
  legend_entry(Sample::outline, kCurrentOutline, "the launch on screen", true);
  legend_entry(Sample::struck_cell, ImGui::GetColorU32(ImGuiCol_Border),
               "not allowed for one of the kernels", false);
}

} // namespace

const SweepPoint* ab_heatmap(const SweepData& data, const ChartAxes& axes, SweepMetric metric,
                             const SweepPoint& current) {
  const std::vector<const SweepPoint*> points = charted_points(data.points, axes);
  std::vector<const SweepPoint*> others;
  double extent = std::log2(1.1); // a chart of tiny differences stays pale
  for (const SweepPoint* p : points) {
    others.push_back(point_at(data.against->points, *p));
    if (p->result && others.back() && others.back()->result)
      if (const std::optional<double> g = gain(*p->result, *others.back()->result, metric))
        extent = std::max(extent, std::abs(*g));
  }
  const SweepPoint* clicked = cell_grid(points, axes, current, [&](std::size_t i) {
    const SweepPoint& pa = *points[i];
    const SweepPoint* pb = others[i];
    CellLook look{std::nullopt, "", ab_tooltip(pa, pb, data, axes, metric), false};
    if (!pa.result || !pb || !pb->result)
      return look;
    const std::optional<double> g = gain(*pa.result, *pb->result, metric);
    if (!g)
      return look;
    const std::optional<Verdict> verdict = time_verdict(*pa.result, *pb->result, metric);
    look.fill = diverging(verdict == Verdict::same ? 0 : *g, extent);
    const double ratio = *figure_value(*metric, *pb->result) / *figure_value(*metric, *pa.result);
    look.text = "x" +
                format_number(ratio, ratio >= 10    ? 1
                                     : ratio >= 0.1 ? 2
                                                    : 3) +
                (verdict ? "\n" + std::string(verdict_word(*verdict)) : "");
    return look;
  });
  diverging_bar(extent, data, metric);
  if (const auto refused = std::count(others.begin(), others.end(), nullptr) +
                           std::count_if(others.begin(), others.end(),
                                         [](const SweepPoint* p) { return p && !p->result; }) +
                           std::count_if(points.begin(), points.end(),
                                         [](const SweepPoint* p) { return !p->result; });
      refused > 0)
    note_text(counted(static_cast<std::size_t>(refused), "refusal") + " among the two kernels' " +
              std::to_string(2 * points.size()) + " points (hover a struck cell for why).");
  const SweepSeries a{data.kernel_id, data.points};
  if (carries_noise(metric))
    note_text("B " + data.against->kernel_id + ": " + verdict_counts(a, *data.against) + ".");
  if (const std::string energy = energy_counts(a, *data.against); !energy.empty())
    note_text("B " + data.against->kernel_id + ": " + energy + ".");
  return clicked;
}

namespace {

// A tick step of 1, 2, 2.5 or 5 times a power of ten, at least `raw`: axes read in round numbers.
double round_step(double raw) {
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double multiple : {1.0, 2.0, 2.5, 5.0})
    if (multiple * power >= raw)
      return multiple * power;
  return 10 * power;
}

// The bottom and the step of a four-tick axis from `low` to at least `high`, on round numbers: an
// occupancy of 97 % ends at 100, not at 97 * 1.05.
std::pair<double, double> round_axis(double low, double high) {
  double step = round_step(high > low ? (high - low) / 4 : 1);
  double bottom = std::floor(low / step) * step;
  while (bottom + 4 * step < high) { // the rounded-down bottom may leave the top short
    step = round_step(step * 1.01);
    bottom = std::floor(low / step) * step;
  }
  return {bottom, step};
}

// The decimals a tick step needs to be written exactly: 2.5 needs one, 0.25 two, 5 none.
int decimals_of(double step) {
  for (int decimals = 0; decimals < 4; ++decimals) {
    const double scaled = step * std::pow(10.0, decimals);
    if (std::abs(scaled - std::round(scaled)) < 1e-6 * scaled)
      return decimals;
  }
  return 4;
}

} // namespace

namespace {

// One figure's scale on a line chart: four round ticks from 0 (or its lowest value, when below 0)
// to at least its highest.
struct YScale {
  SweepMetric metric;
  ImU32 colour;
  double low = 0, step = 1;

  double high() const { return low + 4 * step; }
};

std::optional<YScale> y_scale(const std::vector<const SweepPoint*>& points, SweepMetric metric,
                              ImU32 colour) {
  Range range; // the figure's own values, not their ratio to the ideal
  for (const SweepPoint* p : points)
    if (const std::optional<double> v =
            p && p->result ? figure_value(*metric, *p->result) : std::nullopt) {
      range.low = range.empty ? *v : std::min(range.low, *v);
      range.high = range.empty ? *v : std::max(range.high, *v);
      range.empty = false;
    }
  if (range.empty)
    return std::nullopt;
  const auto [low, step] = round_axis(std::min(0.0, range.low), range.high);
  return YScale{metric, colour, low, step};
}

// Where a chart's plot lies and how a value maps into it.
struct Plot {
  ImVec2 at;
  float width = 0, height = 0;
  double x_low = 0, x_high = 1;
  bool log_scale = false;

  float x(double value) const {
    const double t = log_scale ? std::log2(value / x_low) / std::log2(x_high / x_low)
                               : (value - x_low) / (x_high - x_low);
    return at.x + static_cast<float>(t) * width;
  }
  float y(double value, const YScale& scale) const {
    return at.y + height -
           static_cast<float>((value - scale.low) / (scale.high() - scale.low)) * height;
  }
};

// A y axis's tick values, left of the plot or right of it, in the figure's colour when the chart
// has two; the left one draws the grid.
void y_ticks(const Plot& plot, const YScale& scale, bool right, bool coloured) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float font = ImGui::GetFontSize();
  const ImU32 text = coloured ? scale.colour : ImGui::GetColorU32(ImGuiCol_Text);
  for (int tick = 0; tick <= 4; ++tick) {
    const double value = scale.low + scale.step * tick;
    const float y = plot.y(value, scale);
    const std::string label = format_number(value, decimals_of(scale.step));
    if (!right)
      draw->AddLine(ImVec2(plot.at.x, y), ImVec2(plot.at.x + plot.width, y),
                    ImGui::GetColorU32(ImGuiCol_Border));
    const float x = right ? plot.at.x + plot.width + font / 2
                          : plot.at.x - font / 2 - ImGui::CalcTextSize(label.c_str()).x;
    draw->AddText(ImVec2(x, y - font / 2), text, label.c_str());
  }
}

// The x axis's values under the plot: a label only where it clears the one before and the last
// one, which is always written (sides such as 32, 64, 128, ... crowd at the left).
void x_ticks(const Plot& plot, const std::vector<std::int64_t>& values) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float gap = ImGui::GetFontSize() / 2;
  const auto left_of = [&](std::int64_t v) {
    const float label = ImGui::CalcTextSize(std::to_string(v).c_str()).x;
    return std::min(plot.x(static_cast<double>(v)) - label / 2, plot.at.x + plot.width - label);
  };
  const float last_left = left_of(values.back());
  float clear_from = plot.at.x - ImGui::GetFontSize();
  for (std::int64_t v : values) {
    const std::string label = std::to_string(v);
    const float x = left_of(v), right = x + ImGui::CalcTextSize(label.c_str()).x;
    if (x < clear_from || (v != values.back() && right + gap > last_left))
      continue;
    draw->AddText(ImVec2(x, plot.at.y + plot.height + 2), ImGui::GetColorU32(ImGuiCol_Text),
                  label.c_str());
    clear_from = right + gap;
  }
}

// One figure's line, `thickness` pixels wide: refused points (and an A/B sweep's missing ones,
// null) are gaps, measured ones carry their noise as a band, the launch on screen is the larger
// orange dot, each point a button with its values on hover.
const SweepPoint* draw_series(const Plot& plot, const YScale& scale,
                              const std::vector<const SweepPoint*>& points, const ChartAxes& axes,
                              const SweepPoint& current, const std::string& series,
                              float thickness = 2) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const SweepPoint* clicked = nullptr;
  ImVec2 previous;
  bool have_previous = false;
  for (const SweepPoint* p : points) {
    const std::optional<double> v =
        p && p->result ? figure_value(*scale.metric, *p->result) : std::nullopt;
    if (!v) {
      have_previous = false;
      continue;
    }
    const ImVec2 at(plot.x(static_cast<double>(axis_value(*p, axes.x))), plot.y(*v, scale));
    if (p->result->timing && carries_noise(scale.metric)) {
      const double spread = *v * p->result->timing->noise;
      draw->AddRectFilled(ImVec2(at.x - 3, plot.y(*v + spread, scale)),
                          ImVec2(at.x + 3, plot.y(*v - spread, scale)),
                          (scale.colour & 0x00ffffff) | 0x3c000000);
    }
    if (have_previous)
      draw->AddLine(previous, at, scale.colour, thickness);
    const bool here = is_current(*p, current);
    draw->AddCircleFilled(at, here ? std::max(5.0f, thickness + 1) : thickness + 1,
                          here ? kCurrentPoint : scale.colour);
    previous = at;
    have_previous = true;
    ImGui::SetCursorScreenPos(ImVec2(at.x - 5, at.y - 5));
    if (ImGui::InvisibleButton(
            ("##" + series + std::string(scale.metric->key) + point_name(*p, axes)).c_str(),
            ImVec2(10, 10)))
      clicked = p;
    if (ImGui::IsItemHovered())
      hover_text((series.empty() ? "" : series + ", ") +
                 cell_tooltip(*p, axes, scale.metric, false));
  }
  return clicked;
}

} // namespace

namespace {

// A line of the same figure beside the sweep's own: another kernel's or another GPU's.
struct Series {
  std::string name;
  ImU32 colour;
  std::vector<const SweepPoint*> points; // at the places of the sweep's charted points; null: none
};

// The line of the sweep's own points is named by its kernel beside another kernel, by its GPU
// beside other GPUs.
std::string first_series_name(const SweepData& data) {
  return data.against ? data.kernel_id : series_device(data.points);
}

std::vector<Series> other_series(const SweepData& data,
                                 const std::vector<const SweepPoint*>& points) {
  std::vector<Series> others;
  const auto add = [&](const std::string& name, const std::vector<SweepPoint>& all) {
    Series series{name, kSeriesColours[(others.size() + 1) % kSeriesColours.size()], {}};
    for (const SweepPoint* p : points)
      series.points.push_back(point_at(all, *p));
    others.push_back(std::move(series));
  };
  if (data.against)
    add(data.against->kernel_id, data.against->points);
  for (const SweepSeries& device : data.devices)
    add(series_device(device.points), device.points);
  return others;
}

} // namespace

// A 1D sweep as lines over its x axis: the values at their own positions (not by index), a y axis
// per figure with its values (the second on the right, each in its line's colour), the current
// launch marked, refused points as gaps, each point's values on hover; the noise of measured
// points as a band.
const SweepPoint* line_chart(const SweepData& data, const ChartAxes& axes, SweepMetric metric,
                             SweepMetric second, const SweepPoint& current) {
  std::vector<const SweepPoint*> points = charted_points(data.points, axes);
  std::sort(points.begin(), points.end(), [&](const SweepPoint* a, const SweepPoint* b) {
    return axis_value(*a, axes.x) < axis_value(*b, axes.x);
  });
  // An A/B sweep's second kernel, or a per-device sweep's other GPUs: their points at the same
  // places, a line each of the same figure on the same axis.
  const std::vector<Series> others = other_series(data, points);
  std::vector<const SweepPoint*> every = points;
  for (const Series& series : others)
    every.insert(every.end(), series.points.begin(), series.points.end());
  const std::optional<YScale> left = y_scale(every, metric, kSeriesColours[0]);
  const std::optional<YScale> right = others.empty() && second && second != metric
                                          ? y_scale(points, second, kSecondLine)
                                          : std::nullopt;
  if (!left)
    return nullptr;
  const float font = ImGui::GetFontSize(), axis = font * 4.5f;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  Plot plot;
  plot.at = ImVec2(origin.x + axis, origin.y + font * 0.5f);
  plot.width = std::max(font * 10, ImGui::GetContentRegionAvail().x - axis - (right ? axis : font));
  plot.height = std::clamp(ImGui::GetContentRegionAvail().y - font * 4, font * 5, font * 14);
  plot.x_low = static_cast<double>(axis_value(*points.front(), axes.x));
  plot.x_high = std::max(plot.x_low + 1, static_cast<double>(axis_value(*points.back(), axes.x)));
  std::vector<std::int64_t> xs;
  for (const SweepPoint* p : points)
    if (xs.empty() || xs.back() != axis_value(*p, axes.x))
      xs.push_back(axis_value(*p, axes.x));
  // Block sides spanning 16x or more (32 to 1024 threads) on a log scale, where doubling the block
  // is one step: on a linear one the small blocks crowd into a corner. A parameter's values too
  // when they are not evenly spaced (1, 2, 4, ... 32); stride 1 to 32 step 1 stays linear. Only for
  // positive values (a pad of 0 has no logarithm).
  plot.log_scale = plot.x_low > 0 && plot.x_high / plot.x_low >= 16 &&
                   (axes.x.starts_with("block.") || !evenly_spaced(xs));
  y_ticks(plot, *left, false, right.has_value());
  if (right)
    y_ticks(plot, *right, true, true);
  x_ticks(plot, xs);
  const std::string first_series = others.empty() ? "" : first_series_name(data);
  // Each series is drawn thinner than the one before, so where two agree (two boards of one kind)
  // the first shows as a border around the next instead of vanishing under it.
  const auto thickness = [&](std::size_t drawn_before) {
    return 2.0f + 2.0f * static_cast<float>(others.size() - drawn_before);
  };
  const SweepPoint* clicked =
      draw_series(plot, *left, points, axes, current, first_series, thickness(0));
  if (right)
    if (const SweepPoint* p = draw_series(plot, *right, points, axes, current, ""))
      clicked = p;
  for (std::size_t i = 0; i < others.size(); ++i)
    if (const SweepPoint* p =
            draw_series(plot, YScale{metric, others[i].colour, left->low, left->step},
                        others[i].points, axes, current, others[i].name, thickness(i + 1)))
      clicked = p;
  ImGui::SetCursorScreenPos(origin);
  ImGui::Dummy(ImVec2(axis + plot.width + (right ? axis : 0), plot.height + font * 2));
  const bool threads = axes.x.starts_with("block.");
  note_text(figure_label(*metric) +
            (right ? " (left) and " + figure_label(*second) + " (right)" : "") + " against " +
            axis_title(axes.x) +
            (threads && plot.log_scale ? " (threads, log scale)"
             : threads                 ? " (threads)"
             : plot.log_scale          ? " (log scale)"
                                       : ""));
  if (right) {
    legend_entry(Sample::line, kLine, figure_label(*metric), true);
    legend_entry(Sample::line, kSecondLine, figure_label(*second), false);
  }
  if (!others.empty())
    legend_entry(Sample::line, kSeriesColours[0], first_series, true);
  for (const Series& series : others)
    legend_entry(Sample::line, series.colour, series.name, false);
  if (std::any_of(points.begin(), points.end(),
                  [&](const SweepPoint* p) { return is_current(*p, current); }))
    legend_entry(Sample::dot, kCurrentPoint, "the launch on screen", !right && others.empty());
  if (std::any_of(points.begin(), points.end(), [](const SweepPoint* p) { return !p->result; }))
    legend_entry(Sample::gap, kLine, "a gap: points not allowed (counted under the cells)", false);
  return clicked;
}

namespace {

// A variant's time: measured, its median; by the models, the modelled time at peak.
std::optional<double> variant_ms(const VariantPoint& p) {
  if (!p.result)
    return std::nullopt;
  if (p.result->timing)
    return p.result->timing->median_time;
  return figure_value(figure("modelled_time"), *p.result);
}

// "3.1640 ms, 84.5 % of matmul/cublas": what the end of a bar says.
std::string bar_text(const VariantSweep& sweep, const VariantPoint& p) {
  const std::optional<double> ms = variant_ms(p);
  if (!ms)
    return "-";
  const std::string time = variant_ms_text(*ms) + " ms";
  if (!p.result->timing) // the models' floor, not a time to expect
    return time + " at peak";
  const std::optional<double> share = share_of_peer(sweep, p);
  if (!share)
    return time;
  // Behind the peer, the share of its speed; past it, how many times faster.
  return time + ", " +
         (*share < 1 ? format_number(100 * *share, 1) + " % of the peer"
                     : format_number(*share, 2) + "x the peer");
}

std::string variant_tooltip(const VariantSweep& sweep, const VariantPoint& p) {
  if (!p.result)
    return p.kernel_id + ": " + p.title + "\nrefused: " + p.refused;
  const RunResult& r = *p.result;
  std::string text = p.kernel_id + ": " + p.title + "\nblock " + format_block(r.launch.block) +
                     "\n" + (r.timing ? "median " : "modelled time at peak ") + bar_text(sweep, p);
  if (r.timing)
    text += "\n" + format_number(r.gbps(), 1) + " GB/s" +
            (r.flops > 0 ? ", " + format_number(r.gflops(), 1) + " GFLOP/s" : "");
  return text + "\nclick: open it in the Launch panel";
}

} // namespace

const VariantPoint* variant_bars(const ShownVariants& shown, const std::string& current) {
  const VariantSweep& sweep = shown.sweep;
  double fastest = sweep.peer ? sweep.peer->median_time : DBL_MAX;
  for (const VariantPoint& p : sweep.variants)
    if (const std::optional<double> ms = variant_ms(p); ms && *ms > 0)
      fastest = std::min(fastest, *ms);
  const float font = ImGui::GetFontSize(), row = font * 2.4f, small = font * 0.85f;
  const float width = std::max(font * 24, ImGui::GetContentRegionAvail().x);
  float label = font * 10;
  for (const VariantPoint& p : sweep.variants)
    label = std::max(label, ImGui::GetFont()->CalcTextSizeA(small, FLT_MAX, 0, p.title.c_str()).x);
  label = std::min(label + font, width * 0.45f);
  const float value = font * 15, bar_left = label, bar_width = width - label - value;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text),
              dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const VariantPoint* clicked = nullptr;
  const float bottom = origin.y + row * static_cast<float>(sweep.variants.size());
  if (sweep.peer) { // under the bars and their words
    const float x =
        origin.x + bar_left + bar_width * static_cast<float>(fastest / sweep.peer->median_time);
    draw->AddLine(ImVec2(x, origin.y), ImVec2(x, bottom), kSecondLine, 2);
  }
  for (std::size_t i = 0; i < sweep.variants.size(); ++i) {
    const VariantPoint& p = sweep.variants[i];
    const ImVec2 at(origin.x, origin.y + row * static_cast<float>(i));
    ImGui::SetCursorScreenPos(at);
    if (ImGui::InvisibleButton(("##variant" + p.kernel_id).c_str(), ImVec2(width, row - 2)) &&
        p.result)
      clicked = &p;
    note_last_item(p.kernel_id, ControlKind::cell);
    if (ImGui::IsItemHovered())
      hover_text(variant_tooltip(sweep, p));
    const ImVec4 clip(at.x, at.y, at.x + label - font * 0.5f, at.y + row);
    draw->AddText(ImGui::GetFont(), font, at, text, p.kernel_id.c_str(), nullptr, 0, &clip);
    draw->AddText(ImGui::GetFont(), small, ImVec2(at.x, at.y + font * 1.1f), dim, p.title.c_str(),
                  nullptr, 0, &clip);
    const std::optional<double> ms = variant_ms(p);
    const float bar_top = at.y + row * 0.2f, bar_bottom = at.y + row * 0.8f;
    if (!ms || *ms <= 0) {
      const ImVec4 rest(at.x + bar_left, at.y, at.x + width, at.y + row);
      const std::string words = "refused: " + p.refused;
      const ImVec2 words_at(at.x + bar_left, at.y + row * 0.3f);
      draw->AddRectFilled(
          words_at,
          ImVec2(std::min(rest.z,
                          words_at.x +
                              ImGui::GetFont()->CalcTextSizeA(small, FLT_MAX, 0, words.c_str()).x),
                 words_at.y + small),
          ImGui::GetColorU32(ImGuiCol_WindowBg));
      draw->AddText(ImGui::GetFont(), small, words_at, dim, words.c_str(), nullptr, 0, &rest);
      continue;
    }
    const float length = std::max(2.0f, bar_width * static_cast<float>(fastest / *ms));
    draw->AddRectFilled(ImVec2(at.x + bar_left, bar_top),
                        ImVec2(at.x + bar_left + length, bar_bottom),
                        p.kernel_id == current ? kCurrentPoint : kLine);
    // On the window's colour, so the peer's line does not run through the words.
    const std::string words = bar_text(sweep, p);
    const ImVec2 words_at(at.x + bar_left + length + font * 0.4f, at.y + row * 0.3f);
    const ImVec2 words_size = ImGui::CalcTextSize(words.c_str());
    draw->AddRectFilled(ImVec2(words_at.x - 2, words_at.y),
                        ImVec2(words_at.x + words_size.x + 2, words_at.y + words_size.y),
                        ImGui::GetColorU32(ImGuiCol_WindowBg));
    draw->AddText(words_at, text, words.c_str());
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, bottom + font * 0.3f));
  const bool measured =
      std::any_of(sweep.variants.begin(), sweep.variants.end(),
                  [](const VariantPoint& p) { return p.result && p.result->timing; });
  legend_entry(Sample::dot, kLine,
               measured ? "a variant's median time: the longer the bar, the faster"
                        : "a variant's modelled time at peak, a floor the models see (caches "
                          "and latency unmodelled): measure for the climb",
               true);
  legend_entry(Sample::dot, kCurrentPoint, "the one on screen", false);
  if (sweep.peer) {
    legend_entry(Sample::line, kSecondLine,
                 "the peer, " + sweep.peer->name + ": " +
                     format_number(sweep.peer->median_time, 4) + " ms",
                 false);
    note_text("The peer's time: " + sweep.peer->source + ".");
  }
  return clicked;
}

} // namespace wl::viz
