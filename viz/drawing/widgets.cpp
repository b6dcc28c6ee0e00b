#include "drawing/widgets.h"

#include "base/text_format.h"
#include "drawing/controls.h"
#include "model/launch_model.h"
#include "registry.h"
#include "report/counter_comparison.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <set>

#include <imgui.h>
#include <imgui_internal.h> // the log's line position, for a table's header row

namespace wl::viz {

namespace {

constexpr ImU32 kLimiterColour = IM_COL32(230, 110, 60, 255);
constexpr ImU32 kCurrentColour = IM_COL32(230, 110, 60, 255);
const ImVec4 kIdeal(70 / 255.0f, 150 / 255.0f, 90 / 255.0f, 1),
    kWaste(190 / 255.0f, 70 / 255.0f, 60 / 255.0f, 1), kWastefulText(0.9f, 0.45f, 0.25f, 1);

ImU32 style_colour(ImGuiCol colour, float alpha = 1) { return ImGui::GetColorU32(colour, alpha); }

// Reserves a box for a drawing and returns its corners.
void reserve(float width, float height, ImVec2& min, ImVec2& max) {
  min = ImGui::GetCursorScreenPos();
  max = ImVec2(min.x + width, min.y + height);
  ImGui::Dummy(ImVec2(width, height));
}

} // namespace

void impact_curve(const char* title, const std::vector<CurvePoint>& points, std::int64_t current_x,
                  const char* x_unit, float width, float height) {
  ImGui::TextUnformatted(title);
  ImVec2 min, max;
  reserve(width, height, min, max);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(min, max, style_colour(ImGuiCol_FrameBg));
  const float label_height = ImGui::GetTextLineHeight();
  const ImVec2 plot_min(min.x + 4, min.y + 4), plot_max(max.x - 4, max.y - label_height - 2);
  for (double level : {0.25, 0.5, 0.75, 1.0}) { // grid lines at quarters of full occupancy
    const float y = plot_max.y - static_cast<float>(level) * (plot_max.y - plot_min.y);
    draw->AddLine(ImVec2(plot_min.x, y), ImVec2(plot_max.x, y),
                  style_colour(ImGuiCol_Border, 0.5f));
  }
  if (points.size() < 2) { // said in the box, not left empty: the parameters allow no other value
    const ImVec2 after = ImGui::GetCursorScreenPos();
    ImGui::SetCursorScreenPos(ImVec2(plot_min.x + 4, plot_min.y + 4));
    ImGui::PushTextWrapPos(ImGui::GetCursorPos().x + (plot_max.x - plot_min.x - 8));
    ImGui::TextDisabled("no other %s fits this launch's parameters: nothing to draw", title);
    ImGui::PopTextWrapPos();
    ImGui::SetCursorScreenPos(after);
    return;
  }
  const double x0 = static_cast<double>(points.front().x),
               x1 = static_cast<double>(points.back().x);
  auto to_screen = [&](double x, double occupancy) {
    const double t = x1 > x0 ? (x - x0) / (x1 - x0) : 0;
    return ImVec2(plot_min.x + static_cast<float>(t) * (plot_max.x - plot_min.x),
                  plot_max.y - static_cast<float>(occupancy) * (plot_max.y - plot_min.y));
  };
  std::vector<ImVec2> line;
  line.reserve(points.size() * 2);
  for (std::size_t i = 0; i < points.size(); ++i) { // steps: occupancy holds until the next point
    line.push_back(to_screen(static_cast<double>(points[i].x), points[i].occupancy));
    if (i + 1 < points.size())
      line.push_back(to_screen(static_cast<double>(points[i + 1].x), points[i].occupancy));
  }
  draw->AddPolyline(line.data(), static_cast<int>(line.size()), style_colour(ImGuiCol_PlotLines), 0,
                    2);
  // The current launch: the last point at or below its x.
  const auto at = std::find_if(points.rbegin(), points.rend(),
                               [&](const CurvePoint& p) { return p.x <= current_x; });
  if (at != points.rend()) {
    const ImVec2 dot = to_screen(
        static_cast<double>(std::clamp<std::int64_t>(current_x, points.front().x, points.back().x)),
        at->occupancy);
    draw->AddLine(ImVec2(dot.x, plot_min.y), ImVec2(dot.x, plot_max.y), kCurrentColour, 1);
    draw->AddCircleFilled(dot, 5, kCurrentColour);
  }
  char label[96];
  std::snprintf(label, sizeof label, "%lld", static_cast<long long>(points.front().x));
  draw->AddText(ImVec2(plot_min.x, plot_max.y + 2), style_colour(ImGuiCol_Text), label);
  std::snprintf(label, sizeof label, "%lld %s", static_cast<long long>(points.back().x), x_unit);
  const float label_width = ImGui::CalcTextSize(label).x;
  draw->AddText(ImVec2(plot_max.x - label_width, plot_max.y + 2), style_colour(ImGuiCol_Text),
                label);
}

namespace {

// A log-scaled axis: decades from `low` to `high` mapped onto [from, to].
struct LogAxis {
  double low, high;
  float from, to;
  float at(double value) const {
    const double t = (std::log10(std::clamp(value, low, high)) - std::log10(low)) /
                     (std::log10(high) - std::log10(low));
    return from + static_cast<float>(t) * (to - from);
  }
};

// Powers of ten from below `low` to above `high`, so the chart shows whole decades.
std::pair<double, double> decades_around(double low, double high) {
  return {std::pow(10.0, std::floor(std::log10(low))), std::pow(10.0, std::ceil(std::log10(high)))};
}

void draw_decades(ImDrawList* draw, const LogAxis& x, const LogAxis& y) {
  const ImU32 grid = style_colour(ImGuiCol_Border, 0.5f),
              text = style_colour(ImGuiCol_TextDisabled);
  for (double v = x.low; v <= x.high * 1.001; v *= 10) {
    draw->AddLine(ImVec2(x.at(v), y.from), ImVec2(x.at(v), y.to), grid);
    draw->AddText(ImVec2(x.at(v) + 2, y.from - ImGui::GetTextLineHeight()), text,
                  format_number(v, v < 1 ? 3 : 0).c_str());
  }
  for (double v = y.low * 10; v <= y.high * 1.001; v *= 10) { // the lowest is the x axis's
    draw->AddLine(ImVec2(x.from, y.at(v)), ImVec2(x.to, y.at(v)), grid);
    const std::string label =
        format_number(v, v < 1 ? 3 : 0) + (v * 10 > y.high ? " GFLOP/s (log)" : "");
    draw->AddText(ImVec2(x.from + 2, y.at(v)), text, label.c_str());
  }
}

} // namespace

// Where a memory roof enters the chart: its left edge, or further right where bandwidth x
// intensity is still under the y axis's lowest value (drawn from the left edge, a clamped start
// would bend the roof down into the corner, under the points that sit on it).
double roof_start(const LogAxis& x, const LogAxis& y, double gbps) {
  return std::clamp(y.low / gbps, x.low, x.high);
}

// A memory roof: bandwidth x intensity from where it enters the chart up to the FP32 roof.
void memory_roof(ImDrawList* draw, const LogAxis& x, const LogAxis& y, double gbps,
                 double fp32_gflops, ImU32 colour, float thickness) {
  const double bend = fp32_gflops > 0 ? std::clamp(fp32_gflops / gbps, x.low, x.high) : x.high;
  const double start = std::min(roof_start(x, y, gbps), bend);
  draw->AddLine(ImVec2(x.at(start), y.at(gbps * start)), ImVec2(x.at(bend), y.at(gbps * bend)),
                colour, thickness);
}

void roofline_chart(double dram_gbps, double l2_gbps, double fp32_gflops,
                    const std::vector<ChartPoint>& points, float width, float height) {
  ImVec2 min, max;
  reserve(width, height, min, max);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(min, max, style_colour(ImGuiCol_FrameBg));
  // The axes hold the ridge and every point, with a decade of room.
  const double ridge = dram_gbps > 0 && fp32_gflops > 0 ? fp32_gflops / dram_gbps : 1;
  double low_x = ridge / 100, high_x = ridge * 100;
  for (const ChartPoint& p : points) {
    low_x = std::min(low_x, p.intensity / 2);
    high_x = std::max(high_x, p.intensity * 2);
  }
  const double top = fp32_gflops > 0 ? fp32_gflops : dram_gbps * high_x;
  const double high_y = top * 2;
  double low_y = std::min(dram_gbps * low_x, top) / 2;
  for (const ChartPoint& p : points)
    if (p.gflops > 0)
      low_y = std::min(low_y, p.gflops / 2);
  low_y = std::max(low_y, 1e-3); // log axes: never at or below zero
  const auto [x0, x1] = decades_around(low_x, high_x);
  const auto [y0, y1] = decades_around(low_y, high_y);
  const float pad = ImGui::GetTextLineHeight() + 4;
  const LogAxis x{x0, x1, min.x + 4, max.x - 4}, y{y0, y1, max.y - pad, min.y + 4};
  draw_decades(draw, x, y);
  // The roofs: DRAM bandwidth x intensity up to the ridge, L2's above it (thinner), then the FP32
  // peak.
  const ImU32 roof = style_colour(ImGuiCol_PlotLines);
  memory_roof(draw, x, y, dram_gbps, fp32_gflops, roof, 2);
  const ImU32 thin_roof = style_colour(ImGuiCol_PlotLines, 0.6f);
  // Each memory roof named above its middle (L2) or below it (DRAM), clear of the axis labels.
  const auto name_roof = [&](double gbps, const char* name, bool above) {
    const double bend = fp32_gflops > 0 ? std::clamp(fp32_gflops / gbps, x.low, x.high) : x.high;
    const double middle = std::sqrt(std::min(roof_start(x, y, gbps), bend) * bend);
    const ImVec2 at(x.at(middle) + (above ? -ImGui::CalcTextSize(name).x : 4),
                    y.at(gbps * middle) + (above ? -ImGui::GetTextLineHeight() - 2 : 2));
    if (at.y > min.y && at.y + ImGui::GetTextLineHeight() < max.y - pad)
      draw->AddText(at, style_colour(ImGuiCol_Text, 0.7f), name);
  };
  name_roof(dram_gbps, "DRAM", false);
  if (l2_gbps > 0) {
    memory_roof(draw, x, y, l2_gbps, fp32_gflops, thin_roof, 1);
    name_roof(l2_gbps, "L2", true);
  }
  if (fp32_gflops > 0) {
    // The FP32 peak from where the L2 roof meets it (thin) and from the DRAM ridge on.
    const double bend = std::clamp(ridge, x0, x1);
    if (l2_gbps > 0 && fp32_gflops / l2_gbps < ridge)
      draw->AddLine(ImVec2(x.at(std::clamp(fp32_gflops / l2_gbps, x0, x1)), y.at(fp32_gflops)),
                    ImVec2(x.at(bend), y.at(fp32_gflops)), thin_roof, 1);
    draw->AddLine(ImVec2(x.at(bend), y.at(fp32_gflops)), ImVec2(x.at(x1), y.at(fp32_gflops)), roof,
                  2);
    draw->AddText(ImVec2(max.x - ImGui::CalcTextSize("FP32").x - 6,
                         y.at(fp32_gflops) - ImGui::GetTextLineHeight() - 2),
                  style_colour(ImGuiCol_Text, 0.7f), "FP32");
  }
  const char* x_title = "FLOP per byte (log): dot by DRAM bytes, square by L2 bytes";
  draw->AddText(ImVec2(max.x - ImGui::CalcTextSize(x_title).x - 4, max.y - pad + 2),
                style_colour(ImGuiCol_Text), x_title);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (const ChartPoint& p : points) {
    if (p.gflops <= 0)
      continue;
    const ImVec2 at(x.at(p.intensity), y.at(p.gflops));
    if (p.kind == ChartPoint::Kind::launch && p.predicted)
      draw->AddCircle(at, 6, kCurrentColour, 0, 2);
    else if (p.kind == ChartPoint::Kind::launch)
      draw->AddCircleFilled(at, 6, kCurrentColour);
    else if (p.kind == ChartPoint::Kind::l2)
      draw->AddRect(ImVec2(at.x - 5, at.y - 5), ImVec2(at.x + 5, at.y + 5), kCurrentColour, 0, 0,
                    2);
    else if (p.kind == ChartPoint::Kind::baseline)
      draw->AddCircle(at, 6, style_colour(ImGuiCol_Text), 0, 2);
    else
      draw->AddCircleFilled(at, 3, style_colour(ImGuiCol_PlotLines, 0.7f));
    if (std::fabs(mouse.x - at.x) <= 6 && std::fabs(mouse.y - at.y) <= 6 &&
        ImGui::IsWindowHovered())
      hover_text(p.label);
  }
}

void limiter_bars(const OccupancyResult& occupancy, int max_blocks_per_sm) {
  // Names, bars and values share the width at any font size: the longest name and value measured.
  // "shared_memory" is the key in JSON; a person reads "shared memory".
  const auto shown_name = [](Resource resource) {
    std::string name = resource_name(resource);
    std::replace(name.begin(), name.end(), '_', ' ');
    return name;
  };
  float name_width = 0;
  for (Resource resource : kAllResources)
    name_width = std::max(name_width, ImGui::CalcTextSize(shown_name(resource).c_str()).x);
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  const float value_width = ImGui::CalcTextSize("228 blocks  <- limiter").x;
  const float bar_width =
      std::max(ImGui::GetFontSize() * 3,
               ImGui::GetContentRegionAvail().x - name_width - value_width - 3 * spacing);
  const int scale = std::max(1, max_blocks_per_sm);
  const float left = ImGui::GetCursorPosX();
  for (Resource resource : kAllResources) {
    const int limit = occupancy.limit(resource);
    const bool limiter = std::find(occupancy.limiters.begin(), occupancy.limiters.end(),
                                   resource) != occupancy.limiters.end();
    ImGui::TextUnformatted(shown_name(resource).c_str());
    ImGui::SameLine(left + name_width + spacing);
    ImVec2 min, max;
    const float height = ImGui::GetTextLineHeight();
    min = ImGui::GetCursorScreenPos();
    ImGui::Dummy(ImVec2(bar_width, height));
    max = ImVec2(min.x + bar_width, min.y + height);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(min, max, style_colour(ImGuiCol_FrameBg));
    const float fill =
        limit == kUnlimited ? 1.0f : std::min(1.0f, static_cast<float>(limit) / scale);
    const ImU32 colour =
        limiter ? kLimiterColour
                : style_colour(ImGuiCol_PlotHistogram, limit == kUnlimited ? 0.3f : 0.8f);
    draw->AddRectFilled(min, ImVec2(min.x + fill * bar_width, max.y), colour);
    ImGui::SameLine();
    if (limit == kUnlimited)
      ImGui::TextDisabled("no limit");
    else
      ImGui::Text("%s%s", counted(static_cast<std::size_t>(limit), "block").c_str(),
                  limiter ? "  <- limiter" : "");
  }
}

void history_plot(const std::vector<double>& milliseconds, float width, float height) {
  ImVec2 min, max;
  reserve(width, height, min, max);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(min, max, style_colour(ImGuiCol_FrameBg));
  if (milliseconds.empty())
    return;
  const double top = *std::max_element(milliseconds.begin(), milliseconds.end()) * 1.1;
  const float slot =
      (width - 8) / static_cast<float>(std::max<std::size_t>(milliseconds.size(), 8));
  for (std::size_t i = 0; i < milliseconds.size(); ++i) {
    const float x = min.x + 4 + slot * static_cast<float>(i);
    const float bar = top > 0 ? static_cast<float>(milliseconds[i] / top) * (height - 8) : 0;
    const bool newest = i + 1 == milliseconds.size();
    draw->AddRectFilled(ImVec2(x + 1, max.y - 4 - bar), ImVec2(x + slot - 1, max.y - 4),
                        newest ? kCurrentColour : style_colour(ImGuiCol_PlotHistogram));
  }
}

namespace {

ImU32 lane_colour(int lane) {
  return ImColor::HSV(static_cast<float>(lane) / kWarpSize, 0.6f, 0.9f);
}

} // namespace

void same_line_if_room(float width, float spacing) {
  const float gap = spacing >= 0 ? spacing : ImGui::GetStyle().ItemSpacing.x;
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (ImGui::GetItemRectMax().x + gap + width <= right)
    ImGui::SameLine(0, spacing);
}

float labelled_field_width(float field_width, const char* label) {
  return field_width + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x;
}

void hover_text(const std::string& text) {
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32);
  ImGui::TextUnformatted(screen_text(text).c_str());
  ImGui::PopTextWrapPos();
  note_tooltip(text);
  ImGui::EndTooltip();
}

// In the screenshot's words (ImGui's log) the first row then starts a line of its own: where the
// header's last cells are scrolled out of sight, the log would run on.
void table_headers_row() {
  ImGui::TableHeadersRow();
  ImGui::GetCurrentContext()->LogLinePosY = -FLT_MAX; // the next cell's "|" begins a new line
}

void number_cell(const std::string& text) {
  const float room = ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize(text.c_str()).x;
  if (room > 0)
    ImGui::SetCursorPosX(ImGui::GetCursorPosX() + room);
  else if (room < -0.5f)
    note_cut_off(text);
  ImGui::TextUnformatted(text.c_str());
}

void warp_map(const WarpMap& map) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  // Rows shrink to fit the panel's height (down to a readable minimum), so a 32-line warp shows
  // whole.
  // The offsets' column as wide as the widest ("+1,114,112 B" for lines far apart).
  const auto offset_label = [&](std::size_t row) {
    const long long delta = static_cast<long long>(map.lines[row] - map.lines.front()) * kLineBytes;
    return "+" + format_count(delta).append(" B");
  };
  const float font = ImGui::GetFontSize();
  float label_width = font * 5.5f;
  for (std::size_t row = 0; row < map.lines.size(); ++row)
    label_width =
        std::max(label_width, ImGui::CalcTextSize(offset_label(row).c_str()).x + font / 2);
  const float row_height = std::clamp(ImGui::GetContentRegionAvail().y /
                                          std::max<float>(1, static_cast<float>(map.lines.size())),
                                      font * 0.8f, font * 1.4f);
  const float bytes_width = std::max(64.0f, ImGui::GetContentRegionAvail().x - label_width);
  const float per_byte = bytes_width / kLineBytes;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  // Fetched but unused bytes in a mid grey that stands out on both themes, as the legend says.
  const ImU32 unused = IM_COL32(128, 128, 128, 255), edge = ImGui::GetColorU32(ImGuiCol_Border),
              text = ImGui::GetColorU32(ImGuiCol_Text), dark_text = IM_COL32(20, 20, 20, 255);
  for (std::size_t row = 0; row < map.lines.size(); ++row) {
    const float y = origin.y + row_height * static_cast<float>(row), x = origin.x + label_width;
    draw->AddText(ImVec2(origin.x, y + 2), text, offset_label(row).c_str());
    for (int s = 0; s < 4; ++s) {
      const ImVec2 min(x + s * kSectorBytes * per_byte, y + 1),
          max(min.x + kSectorBytes * per_byte, y + row_height - 1);
      if (map.sectors[row][s].fetched)
        draw->AddRectFilled(min, max, unused);
      draw->AddRect(min, max, edge);
    }
  }
  std::string numbered; // the lane numbers drawn, for a screenshot's record of the words shown
  for (const LaneMark& mark : map.lanes) {
    const float y = origin.y + row_height * static_cast<float>(mark.row);
    const ImVec2 min(origin.x + label_width + mark.offset * per_byte, y + 3),
        max(min.x + mark.width * per_byte, y + row_height - 3);
    draw->AddRectFilled(min, max, lane_colour(mark.lane));
    // Every lane numbered: two digits in a smaller font where the bar is narrow.
    const std::string number = std::to_string(mark.lane);
    const float fitting = (max.x - min.x - 2) / ImGui::CalcTextSize(number.c_str()).x * font;
    const float small = std::min(font * 0.7f, fitting);
    if (small >= font * 0.45f) {
      draw->AddText(ImGui::GetFont(), small, ImVec2(min.x + 1, min.y), dark_text, number.c_str());
      numbered += (numbered.empty() ? "" : " ") + number;
    }
    if (ImGui::IsMouseHoveringRect(min, max))
      hover_text("lane " + number);
  }
  ImGui::Dummy(
      ImVec2(label_width + bytes_width, row_height * static_cast<float>(map.lines.size())));
  ImGui::LogText("\nlanes numbered: %s\n", numbered.c_str()); // only while a log is taken
}

int bank_grid_rows(const std::vector<BankSlot>& slots) {
  int transactions = 0, total_rows = 0;
  for (const BankSlot& s : slots)
    transactions = std::max(transactions, s.transaction + 1);
  for (int t = 0; t < transactions; ++t) {
    int rows = 0;
    for (const BankSlot& s : slots)
      if (s.transaction == t)
        rows = std::max(rows, s.wavefront + 1);
    total_rows += rows + 2; // the bank numbers and the transaction's title
  }
  return total_rows;
}

void bank_grid(const std::vector<BankSlot>& slots, int width, int reserved_rows) {
  int transactions = 0;
  for (const BankSlot& s : slots)
    transactions = std::max(transactions, s.transaction + 1);
  const int drawn_rows = bank_grid_rows(slots), total_rows = std::max(drawn_rows, reserved_rows);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  // 32 banks across the panel's width, never past its edge; a lane number is written where it fits.
  const float cell = std::max(4.0f, (ImGui::GetContentRegionAvail().x - 2) / kBankCount);
  // Rows shrink to fit the panel's height (down to a readable minimum), so a 32-way conflict shows
  // whole.
  const float font = ImGui::GetFontSize(), small = font * 0.7f;
  const float row_height = std::clamp((ImGui::GetContentRegionAvail().y - font * 1.5f) /
                                          static_cast<float>(std::max(1, total_rows)),
                                      font * 0.75f, font * 1.1f);
  const ImU32 first_pass = ideal_colour(), conflict = waste_colour(),
              edge = ImGui::GetColorU32(ImGuiCol_Border), text = IM_COL32(245, 245, 245, 255);
  for (int t = 0; t < transactions; ++t) {
    int rows = 0;
    for (const BankSlot& s : slots)
      if (s.transaction == t)
        rows = std::max(rows, s.wavefront + 1);
    // The passes the transaction's distinct words need at best are the ideal; rows past them are
    // what a conflict adds.
    std::set<std::uint64_t> words;
    for (const BankSlot& s : slots)
      if (s.transaction == t)
        words.insert(s.word);
    const int ideal_rows = static_cast<int>((words.size() + kBankCount - 1) / kBankCount);
    if (transactions > 1)
      ImGui::TextDisabled("transaction %d (lanes %d-%d)", t, t * 16, t * 16 + 15);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    for (int bank = 0; bank < kBankCount; bank += 4)
      draw->AddText(ImVec2(origin.x + bank * cell, origin.y),
                    ImGui::GetColorU32(ImGuiCol_TextDisabled), std::to_string(bank).c_str());
    const float top = origin.y + row_height;
    for (int row = 0; row < rows; ++row)
      for (int bank = 0; bank < kBankCount; ++bank) {
        std::string lanes;
        bool broadcast = false;
        for (const BankSlot& s : slots)
          if (s.transaction == t && s.bank == bank && s.wavefront == row) {
            if (!lanes.empty())
              lanes += ',';
            lanes += std::to_string(s.lane);
            broadcast = broadcast || s.broadcast;
          }
        const ImVec2 min(origin.x + bank * cell, top + row * row_height),
            max(min.x + cell - 1, min.y + row_height - 1);
        if (!lanes.empty()) {
          draw->AddRectFilled(min, max, row < ideal_rows ? first_pass : conflict);
          const std::string shown = lanes.find(',') == std::string::npos ? lanes : "*";
          // Two-digit lanes in a smaller size where the usual one does not fit the cell.
          const float width = ImGui::CalcTextSize(shown.c_str()).x / font;
          for (const float size : {small, font * 0.55f})
            if (width * size <= cell - 2) {
              draw->AddText(ImGui::GetFont(), size, ImVec2(min.x + 1, min.y + 1), text,
                            shown.c_str());
              break;
            }
          if (ImGui::IsMouseHoveringRect(min, max))
            ImGui::SetTooltip("bank %d, wavefront %d: lane%s %s%s", bank, row,
                              lanes.find(',') == std::string::npos ? "" : "s", lanes.c_str(),
                              broadcast ? " (one word, broadcast)" : "");
        }
        draw->AddRect(min, max, edge);
      }
    ImGui::Dummy(ImVec2(cell * kBankCount, row_height * static_cast<float>(rows + 1)));
  }
  if (total_rows > drawn_rows) // the room a taller grid of this site took: nothing moves below
    ImGui::Dummy(
        ImVec2(cell * kBankCount, row_height * static_cast<float>(total_rows - drawn_rows)));
  note_text(
      std::to_string(width) + "-byte lanes cover " +
      std::to_string(std::max(1, width / kBankBytes)) + (width > kBankBytes ? " banks" : " bank") +
      " each; " +
      (width == 16
           ? "the warp is served as two half-warp transactions, each in as many passes as its rows"
           : "the warp's request is served in as many passes (rows) as its busiest bank needs"));
}

std::uint32_t ideal_colour(float alpha) {
  return ImGui::ColorConvertFloat4ToU32(ImVec4(kIdeal.x, kIdeal.y, kIdeal.z, alpha));
}

std::uint32_t waste_colour(float alpha) {
  return ImGui::ColorConvertFloat4ToU32(ImVec4(kWaste.x, kWaste.y, kWaste.z, alpha));
}

void wasteful_text(const std::string& text, bool wrapped) {
  ImGui::PushStyleColor(ImGuiCol_Text, kWastefulText);
  if (wrapped)
    wrapped_text(text);
  else
    ImGui::TextUnformatted(screen_text(text).c_str());
  ImGui::PopStyleColor();
}

std::string wrap_between_words(const std::string& text, float width,
                               const std::function<float(std::string_view)>& width_of) {
  const float space = width_of(" ");
  std::string wrapped;
  float line = 0;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t end = std::min(text.find_first_of(" \n", at), text.size());
    const float word = width_of(std::string_view(text).substr(at, end - at));
    if (line > 0 && line + space + word > width) {
      wrapped += '\n';
      line = 0;
    } else if (at > 0 && text[at - 1] == ' ') {
      wrapped += ' ';
      line += space;
    }
    wrapped.append(text, at, end - at);
    line += word;
    if (end < text.size() && text[end] == '\n') {
      wrapped += '\n';
      line = 0;
    }
    at = end + 1;
  }
  return wrapped;
}

void wrapped_text(const std::string& text) {
  ImGuiContext& g = *ImGui::GetCurrentContext();
  const ImGuiWindow* window = ImGui::GetCurrentWindow();
  const float wrap_pos = window->DC.TextWrapPos < 0 ? 0.0f : window->DC.TextWrapPos;
  // A pixel to spare: a line measured word by word must never be rewrapped whole.
  const float width = ImGui::CalcWrapWidthForPos(window->DC.CursorPos, wrap_pos) - 1;
  const std::string shown = screen_text(text);
  if (width <= 0) {
    ImGui::TextWrapped("%s", shown.c_str());
    return;
  }
  const auto width_of = [](std::string_view words) {
    return ImGui::CalcTextSize(words.data(), words.data() + words.size()).x;
  };
  // Drawn in the lines measured here, logged as the text it is: a sentence reads whole in a
  // screenshot's sidecar whatever width the window gave it.
  const ImVec2 at = window->DC.CursorPos;
  const bool logging = g.LogEnabled;
  g.LogEnabled = false;
  ImGui::TextWrapped("%s", wrap_between_words(shown, width, width_of).c_str());
  g.LogEnabled = logging;
  if (logging)
    ImGui::LogRenderedText(&at, shown.data(), shown.data() + shown.size());
}

void wrapped_textf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  char buffer[2048];
  const int needed = std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  if (needed < 0)
    return;
  if (static_cast<std::size_t>(needed) < sizeof buffer) {
    wrapped_text(buffer);
    return;
  }
  std::string text(static_cast<std::size_t>(needed) + 1, '\0');
  va_start(args, format);
  std::vsnprintf(text.data(), text.size(), format, args);
  va_end(args);
  text.pop_back();
  wrapped_text(text);
}

void help_marker(const char* text) {
  if (ImGui::IsItemHovered()) // the field it explains: hovering the field shows its help too
    hover_text(text);
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered())
    hover_text(text);
}

bool begin_figure_table(const char* id) {
  if (!ImGui::BeginTable(id, 2, ImGuiTableFlags_SizingFixedFit))
    return false;
  ImGui::TableSetupColumn("figure",
                          ImGuiTableColumnFlags_WidthFixed); // as wide as the longest name
  ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
  return true;
}

void figure_row(const char* label, const std::string& value, const char* tooltip) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(label);
  if (tooltip && ImGui::IsItemHovered())
    hover_text(tooltip);
  ImGui::TableNextColumn();
  // A sentence ("not measured (needs ...)") wraps in its column.
  wrapped_text(value);
}

void figure_row(const Figure& figure, const std::string& value) {
  figure_row(std::string(figure.display).c_str(), value, std::string(figure.meaning).c_str());
}

void empty_state(const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  wrapped_text(text);
  ImGui::PopStyleColor();
}

void note_text(const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  wrapped_text(text);
  ImGui::PopStyleColor();
}

void recorded_text(const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.85f, 0.55f, 0.1f, 1));
  wrapped_text(text);
  ImGui::PopStyleColor();
}

void push_error_color() { ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.9f, 0.3f, 0.25f, 1)); }
void pop_error_color() { ImGui::PopStyleColor(); }

void error_text(const std::string& text) {
  push_error_color();
  wrapped_text(text);
  pop_error_color();
}

std::string change_text(std::optional<double> now, std::optional<double> baseline, bool points) {
  if (!now || !baseline)
    return "-";
  if (!points && *baseline == 0)
    return *now == 0 ? "same" : "-";
  const double change = points ? *now - *baseline : 100 * (*now - *baseline) / *baseline;
  if (std::abs(change) < 0.05)
    return "no change"; // never "-0.0"
  std::string text = change > 0 ? "+" : "";
  return text.append(format_number(change, 1)).append(points ? " points" : " %");
}

ImFont* code_font() {
  const ImFontAtlas& fonts = *ImGui::GetIO().Fonts;
  return fonts.Fonts.Size > 1 ? fonts.Fonts[1] : ImGui::GetFont();
}

} // namespace wl::viz
