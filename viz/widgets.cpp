#include "widgets.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <imgui.h>

namespace wl::viz {

namespace {

constexpr ImU32 kLimiterColour = IM_COL32(230, 110, 60, 255);
constexpr ImU32 kCurrentColour = IM_COL32(230, 110, 60, 255);

ImU32 style_colour(ImGuiCol colour, float alpha = 1) { return ImGui::GetColorU32(colour, alpha); }

// Reserves a box for a drawing and returns its corners.
void reserve(float width, float height, ImVec2 &min, ImVec2 &max) {
  min = ImGui::GetCursorScreenPos();
  max = ImVec2(min.x + width, min.y + height);
  ImGui::Dummy(ImVec2(width, height));
}

// Built forwards, character by character: inserting into the string trips GCC 12's -Wrestrict.
std::string group_digits(const std::string &digits) {
  const std::size_t sign = !digits.empty() && digits[0] == '-' ? 1 : 0;
  std::string grouped = digits.substr(0, sign);
  for (std::size_t i = sign; i < digits.size(); ++i) {
    if (i > sign && (digits.size() - i) % 3 == 0) grouped.push_back(',');
    grouped.push_back(digits[i]);
  }
  return grouped;
}

} // namespace

void impact_curve(const char *title, const std::vector<CurvePoint> &points, std::int64_t current_x, const char *x_unit,
                  float width, float height) {
  ImGui::TextUnformatted(title);
  ImVec2 min, max;
  reserve(width, height, min, max);
  ImDrawList *draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(min, max, style_colour(ImGuiCol_FrameBg));
  const float label_height = ImGui::GetTextLineHeight();
  const ImVec2 plot_min(min.x + 4, min.y + 4), plot_max(max.x - 4, max.y - label_height - 2);
  for (double level : {0.25, 0.5, 0.75, 1.0}) { // grid lines at quarters of full occupancy
    const float y = plot_max.y - static_cast<float>(level) * (plot_max.y - plot_min.y);
    draw->AddLine(ImVec2(plot_min.x, y), ImVec2(plot_max.x, y), style_colour(ImGuiCol_Border, 0.5f));
  }
  if (points.size() < 2) return;
  const double x0 = static_cast<double>(points.front().x), x1 = static_cast<double>(points.back().x);
  auto to_screen = [&](double x, double occupancy) {
    const double t = x1 > x0 ? (x - x0) / (x1 - x0) : 0;
    return ImVec2(plot_min.x + static_cast<float>(t) * (plot_max.x - plot_min.x),
                  plot_max.y - static_cast<float>(occupancy) * (plot_max.y - plot_min.y));
  };
  std::vector<ImVec2> line;
  line.reserve(points.size() * 2);
  for (std::size_t i = 0; i < points.size(); ++i) { // steps: occupancy holds until the next point
    line.push_back(to_screen(static_cast<double>(points[i].x), points[i].occupancy));
    if (i + 1 < points.size()) line.push_back(to_screen(static_cast<double>(points[i + 1].x), points[i].occupancy));
  }
  draw->AddPolyline(line.data(), static_cast<int>(line.size()), style_colour(ImGuiCol_PlotLines), 0, 2);
  // The current launch: the last point at or below its x.
  const auto at = std::find_if(points.rbegin(), points.rend(), [&](const CurvePoint &p) { return p.x <= current_x; });
  if (at != points.rend()) {
    const ImVec2 dot = to_screen(
        static_cast<double>(std::clamp<std::int64_t>(current_x, points.front().x, points.back().x)), at->occupancy);
    draw->AddLine(ImVec2(dot.x, plot_min.y), ImVec2(dot.x, plot_max.y), kCurrentColour, 1);
    draw->AddCircleFilled(dot, 5, kCurrentColour);
  }
  char label[96];
  std::snprintf(label, sizeof label, "%lld", static_cast<long long>(points.front().x));
  draw->AddText(ImVec2(plot_min.x, plot_max.y + 2), style_colour(ImGuiCol_Text), label);
  std::snprintf(label, sizeof label, "%lld %s", static_cast<long long>(points.back().x), x_unit);
  const float label_width = ImGui::CalcTextSize(label).x;
  draw->AddText(ImVec2(plot_max.x - label_width, plot_max.y + 2), style_colour(ImGuiCol_Text), label);
}

void limiter_bars(const OccupancyResult &occupancy, int max_blocks_per_sm) {
  const float bar_width = std::max(80.0f, ImGui::GetContentRegionAvail().x - 260);
  const int scale = std::max(1, max_blocks_per_sm);
  for (Resource resource : kAllResources) {
    const int limit = occupancy.limit(resource);
    const bool limiter =
        std::find(occupancy.limiters.begin(), occupancy.limiters.end(), resource) != occupancy.limiters.end();
    ImGui::TextUnformatted(resource_name(resource));
    ImGui::SameLine(130);
    ImVec2 min, max;
    const float height = ImGui::GetTextLineHeight();
    min = ImGui::GetCursorScreenPos();
    ImGui::Dummy(ImVec2(bar_width, height));
    max = ImVec2(min.x + bar_width, min.y + height);
    ImDrawList *draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(min, max, style_colour(ImGuiCol_FrameBg));
    const float fill = limit == kUnlimited ? 1.0f : std::min(1.0f, static_cast<float>(limit) / scale);
    const ImU32 colour =
        limiter ? kLimiterColour : style_colour(ImGuiCol_PlotHistogram, limit == kUnlimited ? 0.3f : 0.8f);
    draw->AddRectFilled(min, ImVec2(min.x + fill * bar_width, max.y), colour);
    ImGui::SameLine();
    if (limit == kUnlimited) ImGui::TextDisabled("not used");
    else ImGui::Text("%d blocks%s", limit, limiter ? "  <- limiter" : "");
  }
}

void history_plot(const std::vector<double> &milliseconds, float width, float height) {
  ImVec2 min, max;
  reserve(width, height, min, max);
  ImDrawList *draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(min, max, style_colour(ImGuiCol_FrameBg));
  if (milliseconds.empty()) return;
  const double top = *std::max_element(milliseconds.begin(), milliseconds.end()) * 1.1;
  const float slot = (width - 8) / static_cast<float>(std::max<std::size_t>(milliseconds.size(), 8));
  for (std::size_t i = 0; i < milliseconds.size(); ++i) {
    const float x = min.x + 4 + slot * static_cast<float>(i);
    const float bar = top > 0 ? static_cast<float>(milliseconds[i] / top) * (height - 8) : 0;
    const bool newest = i + 1 == milliseconds.size();
    draw->AddRectFilled(ImVec2(x + 1, max.y - 4 - bar), ImVec2(x + slot - 1, max.y - 4),
                        newest ? kCurrentColour : style_colour(ImGuiCol_PlotHistogram));
  }
}

void help_marker(const char *text) {
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

void figure_row(const char *label, const std::string &value, const char *tooltip) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(label);
  if (tooltip && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tooltip);
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(value.c_str());
}

void empty_state(const char *text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("%s", text);
  ImGui::PopStyleColor();
}

void recorded_text(const std::string &text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.85f, 0.55f, 0.1f, 1));
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

void error_text(const std::string &text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.9f, 0.3f, 0.25f, 1));
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

std::string format_number(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  std::string s = text;
  const std::size_t dot = s.find('.');
  return group_digits(s.substr(0, dot)) + (dot == std::string::npos ? "" : s.substr(dot));
}

std::string format_count(std::int64_t value) { return group_digits(std::to_string(value)); }

std::string format_bytes(double bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (std::fabs(bytes) >= 1024 && unit < 4) bytes /= 1024, ++unit;
  char text[64];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, units[unit]);
  return text;
}

} // namespace wl::viz
