// Memory chart: the launch's memory hierarchy as Nsight Compute's Memory Workload Analysis chart
// draws it. Boxes for the kernel, its global, local and shared spaces, L1/TEX, shared memory, L2
// and DRAM; on each link the instructions, requests, wavefronts or bytes that cross it, measured
// where the Run counted the chart's links and the model's figure otherwise; a measured link is
// coloured by its share of peak. The table under the drawing sets every link's measured figure
// beside the predicted one, with why they differ. The data is report/memory_chart.

#include "base/text_format.h"
#include "drawing/controls.h"
#include "drawing/panel_parts.h"
#include "drawing/widgets.h"
#include "panels/panels.h"
#include "report/memory_chart.h"

#include <algorithm>
#include <cmath>

#include <imgui.h>

namespace wl::viz {

namespace {

// Where each box sits: a column (left to right, as the data goes from the kernel to DRAM) and
// its first and last rows of three.
struct BoxPlace {
  ChartNode node;
  int column, first_row, last_row;
};
constexpr BoxPlace kBoxPlaces[] = {
    {ChartNode::kernel, 0, 0, 2}, {ChartNode::global, 1, 0, 0}, {ChartNode::local, 1, 1, 1},
    {ChartNode::shared, 1, 2, 2}, {ChartNode::l1tex, 2, 0, 1},  {ChartNode::shared_memory, 2, 2, 2},
    {ChartNode::l2, 3, 0, 1},     {ChartNode::dram, 4, 0, 1},
};
constexpr int kColumns = 5, kRows = 3;

const BoxPlace& place_of(ChartNode node) {
  return *std::find_if(std::begin(kBoxPlaces), std::end(kBoxPlaces),
                       [&](const BoxPlace& p) { return p.node == node; });
}

// "2.10 M", "268 M", "524 k", "96": a count to three figures, short enough for a link's label.
std::string short_count(double value) {
  const double magnitude = std::fabs(value);
  const auto three_figures = [](double scaled, const char* unit) {
    const int decimals = std::fabs(scaled) >= 100 ? 0 : std::fabs(scaled) >= 10 ? 1 : 2;
    return format_number(scaled, decimals) + unit;
  };
  return magnitude >= 1e9   ? three_figures(value / 1e9, " G")
         : magnitude >= 1e6 ? three_figures(value / 1e6, " M")
         : magnitude >= 1e4 ? three_figures(value / 1e3, " k")
                            : whole_number(value);
}

// A link's label: which way ("ld" or "st") and its value, measured where counted, else the
// model's (drawn dim).
std::string link_label(const ChartLink& link) {
  const ChartValue& v = link.value;
  const std::optional<double> value = v.measured ? v.measured : v.predicted;
  const std::string key(v.figure->key);
  const bool load = key.find("load") != std::string::npos || key.find("read") != std::string::npos;
  const std::string what = load ? "ld " : "st ";
  if (!value)
    return what + "-";
  return what +
         (v.figure->format == FigureFormat::bytes ? format_bytes(*value) : short_count(*value));
}

// The colour of a measured link by its share of peak: from the border's grey at none, through
// green, to red at its peak.
ImU32 utilisation_colour(const std::optional<ChartValue>& utilisation) {
  if (!utilisation || !utilisation->measured)
    return ImGui::GetColorU32(ImGuiCol_Border);
  const float share = std::clamp(static_cast<float>(*utilisation->measured) / 100.0f, 0.0f, 1.0f);
  const ImU32 low = ideal_colour(), high = waste_colour();
  const ImVec4 a = ImGui::ColorConvertU32ToFloat4(low), b = ImGui::ColorConvertU32ToFloat4(high);
  return ImGui::ColorConvertFloat4ToU32(
      ImVec4(a.x + (b.x - a.x) * share, a.y + (b.y - a.y) * share, a.z + (b.z - a.z) * share, 1));
}

struct Grid {
  ImVec2 origin;
  float column_width, gap, row_height;
  ImVec2 box_min(const BoxPlace& p) const {
    return {origin.x + p.column * (column_width + gap), origin.y + p.first_row * row_height + 2};
  }
  ImVec2 box_max(const BoxPlace& p) const {
    return {box_min(p).x + column_width, origin.y + (p.last_row + 1) * row_height - 2};
  }
};

void draw_box(ImDrawList* draw, const Grid& grid, const ChartNodeFigures& node) {
  const BoxPlace& p = place_of(node.row->node);
  const ImVec2 min = grid.box_min(p), max = grid.box_max(p);
  draw->AddRectFilled(min, max, ImGui::GetColorU32(ImGuiCol_FrameBg), 3);
  draw->AddRect(min, max, utilisation_colour(node.utilisation), 3, 0, 2);
  float y = min.y + 3;
  const auto line = [&](const std::string& text) {
    draw->AddText(ImVec2(min.x + 4, y), ImGui::GetColorU32(ImGuiCol_Text), text.c_str());
    y += ImGui::GetTextLineHeight();
  };
  line(std::string(node.row->box));
  if (node.hit_rate && node.hit_rate->measured)
    line("hit " + format_percent(*node.hit_rate->measured));
  if (node.utilisation && node.utilisation->measured)
    line("peak " + format_percent(*node.utilisation->measured));
}

// The links between two boxes on one arrow, their labels stacked over it, an arrowhead at each
// end a link goes to (loads and stores of a level go opposite ways); a label drawn dim is the
// model's figure, the link not having been counted.
void draw_links(ImDrawList* draw, const Grid& grid, const std::vector<const ChartLink*>& links) {
  const BoxPlace &a = place_of(links.front()->row->from), &b = place_of(links.front()->row->to);
  const BoxPlace& left = a.column < b.column ? a : b;
  const BoxPlace& right = a.column < b.column ? b : a;
  const int row = std::max(left.first_row, right.first_row);
  const float y = grid.origin.y + (row + 0.62f) * grid.row_height;
  const float x0 = grid.box_max(left).x + 2, x1 = grid.box_min(right).x - 2;
  ImU32 colour = ImGui::GetColorU32(ImGuiCol_Border);
  bool to_right = false, to_left = false;
  for (const ChartLink* link : links) {
    if (link->utilisation && link->utilisation->measured)
      colour = utilisation_colour(link->utilisation);
    (place_of(link->row->to).column > place_of(link->row->from).column ? to_right : to_left) = true;
  }
  draw->AddLine(ImVec2(x0, y), ImVec2(x1, y), colour, 3);
  if (to_right)
    draw->AddTriangleFilled(ImVec2(x1, y), ImVec2(x1 - 7, y - 5), ImVec2(x1 - 7, y + 5), colour);
  if (to_left)
    draw->AddTriangleFilled(ImVec2(x0, y), ImVec2(x0 + 7, y - 5), ImVec2(x0 + 7, y + 5), colour);
  float text_y = y - 4 - ImGui::GetTextLineHeight() * static_cast<float>(links.size());
  for (const ChartLink* link : links) {
    const ImU32 text =
        ImGui::GetColorU32(link->value.measured ? ImGuiCol_Text : ImGuiCol_TextDisabled);
    draw->AddText(ImVec2(x0 + 9, text_y), text, link_label(*link).c_str());
    text_y += ImGui::GetTextLineHeight();
  }
}

// The widest label of the chart's links and of its boxes' titles and figures.
float widest(const MemoryChart& chart, bool labels) {
  float most = ImGui::CalcTextSize(labels ? "st 2.10 M" : "peak 100.0 %").x;
  if (labels)
    for (const ChartLink& link : chart.links)
      most = std::max(most, ImGui::CalcTextSize(link_label(link).c_str()).x);
  else
    for (const ChartNodeRow& row : kChartNodes)
      most = std::max(most, ImGui::CalcTextSize(std::string(row.box).c_str()).x);
  return most;
}

// Boxes as wide as their words, the gaps between them as wide as the links' labels; a panel
// narrower than that scrolls the chart sideways rather than letting words overlap.
void draw_chart(const MemoryChart& chart) {
  // A label starts 9 px after its box and ends short of the next box's arrowhead.
  const float box_width = widest(chart, false) + 10, label_width = widest(chart, true) + 22;
  const float available = ImGui::GetContentRegionAvail().x;
  const float needed = kColumns * box_width + (kColumns - 1) * label_width;
  const float width = std::max(available, needed);
  const float gap = (width - kColumns * box_width) / (kColumns - 1);
  const float row_height = 3.4f * ImGui::GetTextLineHeight();
  const float height = kRows * row_height + 4;
  const bool scrolls = needed > available;
  if (scrolls)
    ImGui::BeginChild("memory_chart_drawing",
                      ImVec2(available, height + ImGui::GetStyle().ScrollbarSize), false,
                      ImGuiWindowFlags_HorizontalScrollbar);
  const Grid grid{ImGui::GetCursorScreenPos(), box_width, gap, row_height};
  ImGui::Dummy(ImVec2(width, height));
  ImDrawList* draw = ImGui::GetWindowDrawList();
  for (const ChartNodeFigures& node : chart.nodes)
    draw_box(draw, grid, node);
  // The links in the table's order, those between the same two boxes on one arrow.
  std::vector<std::vector<const ChartLink*>> arrows;
  for (const ChartLink& link : chart.links) {
    const auto same_boxes = [&](const std::vector<const ChartLink*>& arrow) {
      const ChartLinkRow& r = *arrow.front()->row;
      return (r.from == link.row->from && r.to == link.row->to) ||
             (r.from == link.row->to && r.to == link.row->from);
    };
    if (const auto it = std::find_if(arrows.begin(), arrows.end(), same_boxes); it != arrows.end())
      it->push_back(&link);
    else
      arrows.push_back({&link});
  }
  for (const auto& arrow : arrows)
    draw_links(draw, grid, arrow);
  if (scrolls)
    ImGui::EndChild();
}

// Every link and cache figure: measured beside predicted, the difference and the share of peak;
// the reasons of those that differ under the table.
void chart_table(const MemoryChart& chart) {
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("memory_chart", 6, flags))
    return;
  for (const char* header : {"link", "figure", "measured", "predicted", "difference", "of peak"})
    ImGui::TableSetupColumn(header);
  table_headers_row();
  std::vector<const ChartValue*> flagged;
  for (const ChartLink& link : chart.links) {
    const ChartValue& v = link.value;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%s -> %s", std::string(chart_node(link.row->from).name).c_str(),
                std::string(chart_node(link.row->to).name).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(std::string(v.figure->display).c_str());
    if (ImGui::IsItemHovered())
      hover_text(std::string(v.figure->meaning) + "\nncu's chart: " +
                 (v.ncu_metric.empty() ? "none (the model's figure)" : std::string(v.ncu_metric)) +
                 (v.metric.empty() ? "" : "\nmeasured here: " + v.metric));
    ImGui::TableNextColumn();
    number_cell(chart_value_text(v, v.measured));
    ImGui::TableNextColumn();
    number_cell(chart_value_text(v, v.predicted));
    ImGui::TableNextColumn();
    if (v.flagged)
      wasteful_text(v.difference);
    else
      number_cell(v.difference.empty() ? "-" : v.difference);
    ImGui::TableNextColumn();
    number_cell(link.utilisation && link.utilisation->measured
                    ? format_percent(*link.utilisation->measured)
                    : "-");
    if (v.flagged)
      flagged.push_back(&v);
  }
  ImGui::EndTable();
  for (const ChartValue* v : flagged)
    wrapped_text(std::string(v->figure->display) + " differs from the model: " +
                 (v->reason.empty() ? "no known reason: the model may be wrong here" : v->reason) +
                 ".");
}

// Whether the chart's caches and links have what only the memory set counts.
bool has_memory_counts(const MemoryChart& chart) {
  return std::any_of(chart.nodes.begin(), chart.nodes.end(), [](const ChartNodeFigures& node) {
    return node.hit_rate && node.hit_rate->measured;
  });
}

// Where the measured side comes from, or how to measure it. In model mode nothing runs, so the
// box that asks the next Run to count the links would do nothing: the recording's figures stand
// where it has them, and the rest is the model's.
void chart_source(App& app, const RunResult& result, const MemoryChart& chart) {
  const bool model_mode = in_model_mode(app);
  if (!model_mode) {
    ui::checkbox("Count the chart's links", &app.choices.measure_memory_chart);
    help_marker("The next Run (F5) also counts the links of the chart, as Nsight Compute's "
                "Memory Workload Analysis chart does: more counter passes over the launch. Live "
                "edits never count them.");
  }
  const std::string links = std::to_string(chart.measured_links) + " of " +
                            std::to_string(chart.links.size()) + " links measured";
  if (chart.measured_by.empty())
    note_text(model_mode ? "Model mode: " + app.untimed_reason() +
                               " The model's figures stand alone, drawn dim."
                         : "Nothing of the chart is measured yet: tick Count the chart's links "
                           "and Run (F5). The model's figures stand alone, drawn dim.");
  else if (!result.recorded_on.empty())
    recorded_text("Measured figures " + chart.measured_by + " (" + links +
                  (has_memory_counts(chart) ? ")."
                                            : "; recorded without the chart's own counters: no "
                                              "hit rates, and shares of peak for DRAM alone, from "
                                              "its bytes over the median time)."));
  else
    note_text("Measured by " + chart.measured_by + ": " + links +
              (has_memory_counts(chart) ? "."
                                        : "; tick Count the chart's links and Run (F5) for the "
                                          "rest, the hit rates and the shares of peak."));
}

// What the drawing's marks mean.
void chart_legend() {
  note_text("Kernel to a space: instructions; a space to L1/TEX: requests; to shared memory: "
            "wavefronts; between L1/TEX, L2 and DRAM: bytes. ld and st share an arrow; a dim "
            "figure is the model's (not measured); a link's colour is its share of peak, green "
            "at none to red at its peak, grey where unknown.");
}

} // namespace

void draw_memory(App& app) {
  const RunResult* result = result_or_why_not(app);
  if (!result)
    return;
  const MemoryChart chart = memory_chart(*result);
  chart_source(app, *result, chart);
  draw_chart(chart);
  chart_legend();
  if (!chart.share_note.empty())
    note_text(chart.share_note);
  chart_table(chart);
}

} // namespace wl::viz
