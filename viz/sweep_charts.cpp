// The Sweep panel's drawings: a 1D sweep as a line chart with axes, a 2D sweep as a heatmap with
// values in its cells and a colour bar. Colours know each figure's direction and, for per-request
// figures, its ideal.

#include "sweep_charts.h"

#include "block_text.h"
#include "controls.h"
#include "widgets.h"

#include <algorithm>
#include <cmath>

#include <imgui.h>

namespace wl::viz {

namespace {

// The marks, named once: the legends draw a sample of each beside its meaning rather than name
// its colour.
constexpr ImU32 kCurrentOutline = IM_COL32(60, 140, 255, 255); // heatmap: the launch on screen
constexpr ImU32 kTiedOutline = IM_COL32(255, 255, 255, 255);   // heatmap: tied with the best
constexpr ImU32 kLine = IM_COL32(90, 170, 240, 255), kNoiseBand = IM_COL32(90, 170, 240, 60);
constexpr ImU32 kCurrentPoint = IM_COL32(240, 170, 40, 255); // line chart: the launch on screen

enum class Sample { outline, struck_cell, dot, gap };

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
    text += "; noise " + format_number(100 * p.result->timing->noise, 2) + " %";
  if (tied)
    text += "; tied with the best within the measured noise";
  return text + "\nClick to load this point.";
}

// The values the points take on an axis, in the order met; one 0 for no axis (a single row).
std::vector<std::int64_t> distinct(const std::vector<const SweepPoint*>& points,
                                   const std::string& axis) {
  std::vector<std::int64_t> values;
  for (const SweepPoint* p : points) {
    const std::int64_t v = axis.empty() ? 0 : axis_value(*p, axis);
    if (std::find(values.begin(), values.end(), v) == values.end())
      values.push_back(v);
  }
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
  legend_entry(Sample::outline, kCurrentOutline, "the launch on screen", true);
  if (measured)
    legend_entry(Sample::outline, kTiedOutline, "tied with the best (within the noise)", false);
  legend_entry(Sample::struck_cell, ImGui::GetColorU32(ImGuiCol_Border), "not allowed", false);
}

} // namespace

// A row per value of the y axis, a column per value of the x axis; a 1D sweep is one row. Each
// cell is a button a person (or a script, by its point_name, "16x8") clicks to load that point.
// Returns the clicked point.
const SweepPoint* heatmap(const SweepData& data, const ChartAxes& axes, SweepMetric metric,
                          const SweepPoint& current) {
  const std::vector<const SweepPoint*> points = charted_points(data, axes);
  const std::vector<std::int64_t> xs = distinct(points, axes.x), ys = distinct(points, axes.y);
  const Range range = value_range(points, metric);
  const std::vector<bool> tied = tied_with_best(points, metric);
  const auto row_label = [&](std::int64_t y) {
    return axes.y.empty() ? std::string()
                          : (axes.y == "block.y" ? "y" : axis_title(axes.y)) + " " + std::to_string(y);
  };
  float label = ImGui::GetFontSize() * 3;
  for (std::int64_t y : ys)
    label = std::max(label, ImGui::CalcTextSize(row_label(y).c_str()).x + ImGui::GetFontSize() / 2);
  const float cell = std::clamp(
      (ImGui::GetContentRegionAvail().x - label) / static_cast<float>(xs.size()), 6.0f, 48.0f);
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
    // A button per cell: hover and clicks respect what lies above it (an open combo's list).
    if (ImGui::InvisibleButton(("##cell" + name).c_str(), ImVec2(cell - 1, cell - 1)) && p.result)
      clicked = &p;
    note_last_item(name, ControlKind::cell);
    if (ImGui::IsItemHovered())
      hover_text(cell_tooltip(p, axes, metric, tied[i]));
    const std::optional<double> v = colour_value(p, metric);
    if (v) {
      draw->AddRectFilled(min, max, heat(*v, range, metric));
      const double shown_value = *figure_value(*metric, *p.result);
      const std::string shown = format_number(shown_value, shown_value >= 100  ? 0
                                                           : shown_value >= 10 ? 1
                                                                               : 3);
      const float size = ImGui::GetFontSize() * 0.7f;
      if (ImGui::CalcTextSize(shown.c_str()).x * 0.7f < cell - 3)
        draw->AddText(ImGui::GetFont(), size, ImVec2(min.x + 2, min.y + 2),
                      IM_COL32(20, 20, 20, 255), shown.c_str());
    } else {
      draw->AddRectFilled(min, max, refused);
    }
    if (!p.result)
      draw->AddLine(min, max, edge); // struck out: not allowed
    draw->AddRect(min, max, tied[i] ? kTiedOutline : edge, 0, 0, tied[i] ? 2.0f : 1.0f);
    if (is_current(p, current))
      draw->AddRect(ImVec2(min.x - 1, min.y - 1), ImVec2(max.x + 1, max.y + 1), kCurrentOutline, 0,
                    0, 3);
  }
  ImGui::SetCursorScreenPos(origin);
  ImGui::Dummy(ImVec2(label + cell * xs.size(), cell * ys.size()));
  // The x values under the columns, as many as fit, and the axis named after them.
  const ImVec2 under = ImGui::GetCursorScreenPos();
  const int every = std::max(1, static_cast<int>(ImGui::GetFontSize() * 3 / cell));
  for (std::size_t col = 0; col < xs.size(); col += every)
    draw->AddText(ImVec2(under.x + label + cell * col, under.y), text,
                  std::to_string(xs[col]).c_str());
  ImGui::Dummy(ImVec2(0, ImGui::GetFontSize()));
  note_text("Columns: " + axis_title(axes.x) +
            (axes.y.empty() ? std::string() : "; rows: " + axis_title(axes.y)) + ".");
  if (!range.empty)
    colour_bar(range, metric, data.measured);
  refused_count(points);
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

// A 1D sweep as a line over its x axis: the values at their own positions (not by index), the y
// axis with its figure, unit and values, the current launch marked, refused points as gaps, each
// point's values on hover; the noise of measured points as a band.
const SweepPoint* line_chart(const SweepData& data, const ChartAxes& axes, SweepMetric metric,
                             const SweepPoint& current) {
  std::vector<const SweepPoint*> points = charted_points(data, axes);
  const auto x_of = [&](const SweepPoint& p) { return axis_value(p, axes.x); };
  std::sort(points.begin(), points.end(),
            [&](const SweepPoint* a, const SweepPoint* b) { return x_of(*a) < x_of(*b); });
  Range range; // the figure's own values, not their ratio to the ideal
  for (const SweepPoint* p : points)
    if (const std::optional<double> v =
            p->result ? figure_value(*metric, *p->result) : std::nullopt) {
      range.low = range.empty ? *v : std::min(range.low, *v);
      range.high = range.empty ? *v : std::max(range.high, *v);
      range.empty = false;
    }
  if (points.empty() || range.empty)
    return nullptr;
  const auto [low, step] = round_axis(std::min(0.0, range.low), range.high);
  const double high = low + 4 * step;
  const double x_low = static_cast<double>(x_of(*points.front())),
               x_high = std::max(x_low + 1, static_cast<double>(x_of(*points.back())));
  const float font = ImGui::GetFontSize(), axis = font * 4.5f;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = std::max(font * 10, ImGui::GetContentRegionAvail().x - axis - font);
  const float height = std::clamp(ImGui::GetContentRegionAvail().y - font * 4, font * 5, font * 14);
  const ImVec2 plot(origin.x + axis, origin.y + font * 0.5f);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), grid = ImGui::GetColorU32(ImGuiCol_Border);
  // Values spanning 16x or more (32 to 1024 threads) on a log scale, where doubling the block is
  // one step: on a linear one the small blocks crowd into a corner. Only for positive values (a
  // pad of 0 has no logarithm).
  const bool log_scale = x_low > 0 && x_high / x_low >= 16;
  const auto x_at = [&](double x) {
    const double t = log_scale ? std::log2(x / x_low) / std::log2(x_high / x_low)
                               : (x - x_low) / (x_high - x_low);
    return plot.x + static_cast<float>(t) * width;
  };
  const auto y_at = [&, low = low](double y) {
    return plot.y + height - static_cast<float>((y - low) / (high - low)) * height;
  };
  for (int tick = 0; tick <= 4; ++tick) { // y ticks with their values
    const double y = low + step * tick;
    draw->AddLine(ImVec2(plot.x, y_at(y)), ImVec2(plot.x + width, y_at(y)), grid);
    draw->AddText(ImVec2(origin.x, y_at(y) - font / 2), text,
                  format_number(y, decimals_of(step)).c_str());
  }
  // x ticks at the swept sides, inside the plot: a label only where it clears the one before and
  // the last side's, which is always written (sides such as 32, 64, 128, ... crowd at the left).
  const auto tick_left = [&](const SweepPoint& p) {
    const float label = ImGui::CalcTextSize(std::to_string(x_of(p)).c_str()).x;
    return std::min(x_at(static_cast<double>(x_of(p))) - label / 2, plot.x + width - label);
  };
  const float gap = font / 2, last_left = tick_left(*points.back());
  float clear_from = plot.x - font;
  for (const SweepPoint* p : points) {
    const std::string side = std::to_string(x_of(*p));
    const float x = tick_left(*p), right = x + ImGui::CalcTextSize(side.c_str()).x;
    const bool last = p == points.back();
    if (x < clear_from || (!last && right + gap > last_left))
      continue;
    draw->AddText(ImVec2(x, plot.y + height + 2), text, side.c_str());
    clear_from = right + gap;
  }
  const SweepPoint* clicked = nullptr;
  ImVec2 previous;
  bool have_previous = false;
  for (const SweepPoint* p : points) {
    const std::optional<double> v = p->result ? figure_value(*metric, *p->result) : std::nullopt;
    if (!v) {
      have_previous = false; // a refused shape is a gap
      continue;
    }
    const ImVec2 at(x_at(static_cast<double>(x_of(*p))), y_at(*v));
    if (p->result->timing && carries_noise(metric)) {
      const double spread = *v * p->result->timing->noise;
      draw->AddRectFilled(ImVec2(at.x - 3, y_at(*v + spread)), ImVec2(at.x + 3, y_at(*v - spread)),
                          kNoiseBand);
    }
    if (have_previous)
      draw->AddLine(previous, at, kLine, 2);
    draw->AddCircleFilled(at, is_current(*p, current) ? 5.0f : 3.0f,
                          is_current(*p, current) ? kCurrentPoint : kLine);
    previous = at;
    have_previous = true;
    ImGui::SetCursorScreenPos(ImVec2(at.x - 5, at.y - 5));
    if (ImGui::InvisibleButton(("##point" + point_name(*p, axes)).c_str(), ImVec2(10, 10)))
      clicked = p;
    if (ImGui::IsItemHovered())
      hover_text(cell_tooltip(*p, axes, metric, false));
  }
  ImGui::SetCursorScreenPos(origin);
  ImGui::Dummy(ImVec2(axis + width, height + font * 2));
  const bool threads = axes.x.starts_with("block.");
  note_text(figure_label(*metric) + " against " + axis_title(axes.x) +
            (threads && log_scale ? " (threads, log scale)"
             : threads            ? " (threads)"
             : log_scale          ? " (log scale)"
                                  : ""));
  legend_entry(Sample::dot, kCurrentPoint, "the launch on screen", true);
  if (std::any_of(points.begin(), points.end(), [](const SweepPoint* p) { return !p->result; }))
    legend_entry(Sample::gap, kLine, "a gap: points not allowed (counted under the cells)", false);
  return clicked;
}

} // namespace wl::viz
