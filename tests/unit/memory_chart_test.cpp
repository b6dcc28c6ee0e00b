// The memory chart: every link a figure of the table with ncu's metric, the model's figure on
// each link it predicts, the counters' beside it with the difference and the reason where they
// differ, and the chart in `run`'s text and JSON under ncu's names.

#include "model/model_kernel.h"
#include "report/memory_chart.h"
#include "report/run_report.h"
#include "test_support.h"

#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace wl {
namespace {

RunResult modelled_launch(const std::string& id) {
  return model_kernel(resolve_kernel_request(id, {}, "", ""), test::preset("h100"));
}

// Counters as a run of the memory set would bring them: key, the CUPTI name, the value.
void with_counters(RunResult& result, const std::vector<std::pair<std::string, double>>& values) {
  CounterResult counters;
  counters.available = true;
  for (const auto& [key, value] : values) {
    CounterValue v;
    v.key = key;
    v.name = "cupti." + key;
    v.value = value;
    counters.values.push_back(v);
  }
  result.counters = counters;
}

const ChartLink& chart_link(const MemoryChart& chart, std::string_view key) {
  for (const ChartLink& link : chart.links)
    if (link.value.figure->key == key)
      return link;
  throw std::runtime_error("no link " + std::string(key));
}

TEST(MemoryChart, EveryLinkIsAFigureOfTheTableWithNcusMetric) {
  std::set<std::string_view> ncu_names;
  for (const ChartLinkRow& row : kChartLinks) {
    const Figure* f = find_figure(row.figure);
    ASSERT_NE(f, nullptr) << row.figure;
    EXPECT_TRUE(f->counter) << row.figure << " is measured by a counter";
    EXPECT_TRUE(row.ncu_metric.empty() || ncu_names.insert(row.ncu_metric).second)
        << row.ncu_metric << " twice";
    if (!row.utilisation.empty()) {
      ASSERT_NE(find_figure(row.utilisation), nullptr) << row.utilisation;
      EXPECT_NE(row.utilisation_ncu.find("pct_of_peak"), std::string_view::npos);
    }
    EXPECT_NE(row.from, row.to);
  }
  for (const ChartNodeRow& row : kChartNodes)
    for (std::string_view key : {row.hit_rate, row.utilisation}) {
      if (!key.empty()) {
        EXPECT_NE(find_figure(key), nullptr) << key;
      }
    }
}

TEST(MemoryChart, TheModelPredictsTheLinksItKnows) {
  // transpose/naive, 8192 x 8192 floats: loads of 4 sectors a request, stores of 32.
  const MemoryChart chart = memory_chart(modelled_launch("transpose/naive"));
  EXPECT_EQ(chart.measured_links, 0);
  EXPECT_EQ(chart.measured_by, "");
  const double elements = 8192.0 * 8192.0;
  EXPECT_DOUBLE_EQ(*chart_link(chart, "global_load_instructions").value.predicted, elements / 32);
  EXPECT_DOUBLE_EQ(*chart_link(chart, "l1_read_bytes_from_l2").value.predicted, 4 * elements);
  EXPECT_DOUBLE_EQ(*chart_link(chart, "l1_write_bytes_to_l2").value.predicted, 32 * elements);
  EXPECT_DOUBLE_EQ(*chart_link(chart, "dram_read_bytes").value.predicted, 4 * elements);
  EXPECT_DOUBLE_EQ(*chart_link(chart, "dram_write_bytes").value.predicted, 4 * elements);
  // No local bytes: no local traffic; no shared site in a whole prediction: no shared traffic.
  EXPECT_DOUBLE_EQ(*chart_link(chart, "local_load_requests").value.predicted, 0);
  EXPECT_DOUBLE_EQ(*chart_link(chart, "shared_load_wavefronts").value.predicted, 0);
  // A library call has no sites: nothing of its traffic is predicted.
  EXPECT_FALSE(chart_link(memory_chart(modelled_launch("matmul/cublas")), "global_load_requests")
                   .value.predicted);
}

TEST(MemoryChart, MeasuredLinksStandBesideThePredictionWithWhyTheyDiffer) {
  RunResult result = modelled_launch("transpose/naive");
  const double elements = 8192.0 * 8192.0;
  with_counters(result,
                {{"global_load_instructions", elements / 32},
                 {"l1_hit_rate", 67.6},
                 {"l1_read_bytes_from_l2", 2 * elements}, // half of the 4 bytes a float predicted
                 {"l1_read_from_l2_utilisation", 1.05},
                 {"l2_hit_rate", 89.2},
                 {"dram_write_bytes", 4 * elements}});
  const MemoryChart chart = memory_chart(result);
  EXPECT_EQ(chart.measured_by, "this run's counters");
  EXPECT_EQ(chart.measured_links, 3);
  const ChartLink& loads = chart_link(chart, "global_load_instructions");
  EXPECT_FALSE(loads.value.flagged);
  EXPECT_EQ(loads.value.metric, "cupti.global_load_instructions");
  const ChartLink& read = chart_link(chart, "l1_read_bytes_from_l2");
  EXPECT_TRUE(read.value.flagged);
  EXPECT_EQ(read.value.difference, "-50.0 %");
  EXPECT_TRUE(test::contains(read.value.reason, "L1 served 67.6 % of the sectors"))
      << read.value.reason;
  ASSERT_TRUE(read.utilisation && read.utilisation->measured);
  EXPECT_DOUBLE_EQ(*read.utilisation->measured, 1.05);
  const ChartNodeFigures& l2 = chart.nodes[static_cast<int>(ChartNode::l2)];
  ASSERT_TRUE(l2.hit_rate && l2.hit_rate->measured);
  EXPECT_DOUBLE_EQ(*l2.hit_rate->measured, 89.2);
  EXPECT_EQ(chart.share_note, "") << "no range to set the shares against";
  // A short kernel: its range of 78 µs holds the launch's overhead beside the kernel's 60 µs.
  CounterValue range;
  range.key = "profiled_range_time";
  range.value = 78016;
  result.counters->values.push_back(range);
  result.timing = TimingStats{};
  result.timing->median_time = 0.06;
  EXPECT_TRUE(
      test::contains(memory_chart(result).share_note,
                     "around the launch, 78.0 µs, 1.30 times the kernel's median of 60.0 µs"))
      << memory_chart(result).share_note;
  // Recorded counters say where they were recorded.
  result.recorded_on = "recorded on NVIDIA H100 80GB HBM3, 2026-11-26";
  EXPECT_EQ(memory_chart(result).measured_by, result.recorded_on);
}

TEST(MemoryChart, RunsTextAndJsonCarryItUnderNcusNamesOnlyWhenItsLinksWereCounted) {
  RunResult result = modelled_launch("transpose/naive");
  with_counters(result, {{"global_load_instructions", 1}});
  EXPECT_FALSE(run_json(result).contains("memory_chart")) << "the default set counts no link";
  EXPECT_FALSE(test::contains(run_text(result), "memory chart"));
  with_counters(result, {{"global_load_instructions", 2097152},
                         {"l1_hit_rate", 67.6},
                         {"dram_read_bytes", 295545856},
                         {"dram_read_utilisation", 5.98}});
  const nlohmann::json chart = run_json(result)["memory_chart"];
  EXPECT_EQ(chart["by_ncu_name"]["smsp__sass_inst_executed_op_global_ld.sum"], 2097152);
  EXPECT_EQ(chart["by_ncu_name"]["l1tex__t_sector_hit_rate.pct"], 67.6);
  EXPECT_EQ(chart["by_ncu_name"]["dram__bytes_read.sum.pct_of_peak_sustained_elapsed"], 5.98);
  EXPECT_EQ(chart["links"].size(), kChartLinks.size());
  EXPECT_EQ(chart["links"][0]["from"], "Kernel");
  EXPECT_EQ(chart["links"][0]["to"], "Global");
  const std::string text = run_text(result);
  EXPECT_TRUE(test::contains(text, "memory chart (as Nsight Compute draws it; measured by this "
                                   "run's counters)"))
      << text;
  EXPECT_TRUE(test::contains(text, "L1/TEX cache     L1 hit rate: 67.6 %")) << text;
}

} // namespace
} // namespace wl
