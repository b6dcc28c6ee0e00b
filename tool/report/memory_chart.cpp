#include "report/memory_chart.h"

#include "base/text_format.h"
#include "report/counter_comparison.h"

#include <algorithm>

namespace wl {

namespace {

// The model's figure on a link: the figure's prediction; where it has none but the launch's
// prediction is whole (sites, and no part of the code left out), none of that traffic: 0.
std::optional<double> chart_prediction(const Figure& figure, const RunResult& result) {
  if (!figure.predicted)
    return std::nullopt;
  if (const std::optional<double> predicted = figure.predicted(result))
    return predicted;
  const bool whole = !result.prediction.sites.empty() && result.prediction.notes.empty();
  return whole ? std::optional(0.0) : std::nullopt;
}

// The counter a measured figure was read from, as CUPTI names it; a figure read from another
// counter (the L1-L2 bytes from L2's sectors, as an older recording has them) says how.
std::string metric_of(std::string_view key, const RunResult& result) {
  if (!result.counters)
    return "";
  if (const CounterValue* v = result.counters->find(std::string(key)))
    return v->name;
  for (const auto& [bytes, sectors] : kL1BytesFromSectors)
    if (key == bytes)
      if (const CounterValue* v = result.counters->find(std::string(sectors)))
        return "32 x " + v->name;
  return "";
}

// A figure of the chart for `result`: measured where the run (or the recording) has it, the
// model's figure, and the comparison the Counters panel makes of the two.
ChartValue chart_value(std::string_view key, std::string_view ncu_metric, const RunResult& result) {
  ChartValue value{.figure = &figure(key), .ncu_metric = ncu_metric};
  value.predicted = chart_prediction(*value.figure, result);
  if (value.figure->measured)
    value.measured = value.figure->measured(result);
  if (!value.measured)
    return value;
  value.metric = metric_of(key, result);
  const ComparisonRow row = compare_value(result, *value.figure, *value.measured, value.predicted);
  value.difference = difference_text(row);
  value.flagged = row.flagged;
  value.reason = row.reason;
  return value;
}

std::optional<ChartValue> optional_value(std::string_view key, std::string_view ncu_metric,
                                         const RunResult& result) {
  if (key.empty())
    return std::nullopt;
  return chart_value(key, ncu_metric, result);
}

// A DRAM link's share of peak where the run did not count it: its bytes over the median time at
// the preset's DRAM bandwidth, as the Timings panel's share of DRAM peak is made.
std::optional<ChartValue> share_from_timing(const ChartLink& link, const RunResult& result) {
  const std::string_view key = link.row->utilisation;
  if (key != "dram_read_utilisation" && key != "dram_write_utilisation")
    return std::nullopt;
  const std::optional<double> measured =
      link.value.measured ? share_of_dram_peak(result, *link.value.measured) : std::nullopt;
  if (!measured)
    return std::nullopt;
  ChartValue share{.figure = &figure(key), .ncu_metric = link.row->utilisation_ncu};
  share.measured = measured;
  share.metric = "its bytes over the median time at " +
                 format_number(result.arch.dram_bandwidth_gbps, 0) + " GB/s";
  return share;
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
  MemoryChart chart;
  for (const ChartLinkRow& row : kChartLinks) {
    ChartLink link{.row = &row,
                   .value = chart_value(row.figure, row.ncu_metric, result),
                   .utilisation = optional_value(row.utilisation, row.utilisation_ncu, result)};
    if (!link.utilisation || !link.utilisation->measured)
      if (std::optional<ChartValue> share = share_from_timing(link, result))
        link.utilisation = std::move(share);
    chart.measured_links += link.value.measured.has_value();
    chart.links.push_back(std::move(link));
  }
  for (const ChartNodeRow& row : kChartNodes)
    chart.nodes.push_back(
        {.row = &row,
         .hit_rate = optional_value(row.hit_rate, row.hit_rate_ncu, result),
         .utilisation = optional_value(row.utilisation, row.utilisation_ncu, result)});
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
