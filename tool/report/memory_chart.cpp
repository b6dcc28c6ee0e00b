#include "report/memory_chart.h"

#include "base/text_format.h"
#include "report/counter_comparison.h"

#include <algorithm>

namespace wl {

namespace {

// A figure of the chart for `result`: its comparison row where the run counted it (the
// difference, the flag and the reason the Counters panel shows), the model's value otherwise.
ChartValue chart_value(std::string_view key, std::string_view ncu_metric, const RunResult& result,
                       const std::vector<ComparisonRow>& rows) {
  ChartValue value{.figure = &figure(key), .ncu_metric = ncu_metric};
  if (value.figure->predicted)
    value.predicted = value.figure->predicted(result);
  const CounterValue* counted = result.counters ? result.counters->find(std::string(key)) : nullptr;
  if (counted) {
    value.metric = counted->name;
    value.measured = counted->value;
  }
  const auto row =
      std::find_if(rows.begin(), rows.end(), [&](const ComparisonRow& r) { return r.key == key; });
  if (row != rows.end()) {
    value.difference = difference_text(*row);
    value.flagged = row->flagged;
    value.reason = row->reason;
  }
  return value;
}

std::optional<ChartValue> optional_value(std::string_view key, std::string_view ncu_metric,
                                         const RunResult& result,
                                         const std::vector<ComparisonRow>& rows) {
  if (key.empty())
    return std::nullopt;
  return chart_value(key, ncu_metric, result, rows);
}

// The shares of peak are CUPTI's over the profiled range, which holds the launch's overhead too:
// a 60 µs kernel's range is some 78 µs, and its shares read about 1.3 times low beside ncu's,
// which times the kernel alone.
std::string share_note(const RunResult& result, const MemoryChart& chart) {
  const bool shares = std::any_of(chart.links.begin(), chart.links.end(), [](const ChartLink& l) {
    return l.utilisation && l.utilisation->measured;
  });
  const CounterValue* range =
      result.counters ? result.counters->find("profiled_range_time") : nullptr;
  if (!shares || !range || !result.timing || result.timing->median_time <= 0)
    return "";
  const double range_ms = range->value / 1e6, kernel_ms = result.timing->median_time;
  if (range_ms < 1.1 * kernel_ms)
    return "";
  return "The shares of peak are over the profiler's range around the launch, " +
         format_number(range_ms * 1e3, 1) + " µs, " + format_number(range_ms / kernel_ms, 2) +
         " times the kernel's median of " + format_number(kernel_ms * 1e3, 1) +
         " µs: each reads about that much lower than over the kernel alone (as ncu times it).";
}

std::string measured_by(const RunResult& result, int measured_links) {
  if (measured_links == 0)
    return "";
  return result.recorded_on.empty() ? "this run's counters" : result.recorded_on;
}

} // namespace

const ChartNodeRow& chart_node(ChartNode node) {
  return *std::find_if(kChartNodes.begin(), kChartNodes.end(),
                       [&](const ChartNodeRow& row) { return row.node == node; });
}

MemoryChart memory_chart(const RunResult& result) {
  const std::vector<ComparisonRow> rows = compare_counters(result);
  MemoryChart chart;
  for (const ChartLinkRow& row : kChartLinks) {
    ChartLink link{.row = &row,
                   .value = chart_value(row.figure, row.ncu_metric, result, rows),
                   .utilisation =
                       optional_value(row.utilisation, row.utilisation_ncu, result, rows)};
    chart.measured_links += link.value.measured.has_value();
    chart.predicted_links += link.value.predicted.has_value();
    chart.links.push_back(std::move(link));
  }
  for (const ChartNodeRow& row : kChartNodes)
    chart.nodes.push_back(
        {.row = &row,
         .hit_rate = optional_value(row.hit_rate, row.hit_rate_ncu, result, rows),
         .utilisation = optional_value(row.utilisation, row.utilisation_ncu, result, rows)});
  chart.measured_by = measured_by(result, chart.measured_links);
  chart.share_note = share_note(result, chart);
  return chart;
}

std::string chart_value_text(const ChartValue& value, const std::optional<double>& number) {
  if (!number)
    return "-";
  // A count's unit is its figure's name ("global load instructions"): the number stands alone.
  return value.figure->format == FigureFormat::count ? whole_number(*number)
                                                     : figure_text(*value.figure, *number);
}

std::string memory_chart_text(const MemoryChart& chart) {
  std::string text =
      "\nmemory chart (as Nsight Compute draws it; measured by " +
      (chart.measured_by.empty()
           ? std::string("nothing: run with --metrics memory") + " to count its links"
           : chart.measured_by) +
      ")\n";
  text += format("%-16s %-16s %-28s %18s %18s %10s %8s\n", "from", "to", "figure", "measured",
                 "predicted", "diff", "peak");
  for (const ChartLink& link : chart.links) {
    const ChartValue& v = link.value;
    const std::string peak = link.utilisation && link.utilisation->measured
                                 ? format_percent(*link.utilisation->measured)
                                 : "";
    text += format("%-16s %-16s %-28s %18s %18s %10s %8s%s\n",
                   std::string(chart_node(link.row->from).name).c_str(),
                   std::string(chart_node(link.row->to).name).c_str(),
                   std::string(v.figure->display).c_str(), chart_value_text(v, v.measured).c_str(),
                   chart_value_text(v, v.predicted).c_str(),
                   v.difference.empty() ? "-" : v.difference.c_str(), peak.c_str(),
                   v.flagged ? "  <- differs" : "");
    if (v.flagged)
      text += "      why: " +
              (v.reason.empty() ? "no known reason: the model may be wrong here" : v.reason) + "\n";
  }
  for (const ChartNodeFigures& node : chart.nodes)
    for (const std::optional<ChartValue>& v : {node.hit_rate, node.utilisation})
      if (v && v->measured)
        text += format("%-16s %s: %s\n", std::string(node.row->name).c_str(),
                       std::string(v->figure->display).c_str(),
                       chart_value_text(*v, v->measured).c_str());
  return chart.share_note.empty() ? text : text + chart.share_note + "\n";
}

} // namespace wl
