#pragma once
// The memory chart of one launch, as Nsight Compute's Memory Workload Analysis chart draws it: the
// kernel, its global, local and shared spaces, L1/TEX, shared memory, L2 and DRAM, and on each
// link the figure that crosses it (instructions, requests, wavefronts or bytes), measured beside
// the model's prediction with why they differ, and the link's share of its peak. Each link is a
// figure of the figure table (figures.cpp: its name, unit, prediction and reasons) and names the
// metric ncu's chart shows on it, so `run --json` lists the chart under ncu's names. Plain data:
// the Memory chart panel draws it, the CLI prints it, tests check it.

#include "model/run_result.h"
#include "report/figures.h"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wl {

enum class ChartNode { kernel, global, local, shared, l1tex, shared_memory, l2, dram };

struct ChartNodeRow {
  ChartNode node;
  std::string_view name;              // "L1/TEX cache": the table's name for it
  std::string_view box;               // "L1/TEX": the chart box's title
  std::string_view hit_rate = {};     // a figure key: the cache's hit rate; "" for none
  std::string_view hit_rate_ncu = {}; // the metric ncu's chart shows for it
  std::string_view utilisation = {};  // a figure key: the unit's share of its peak; "" for none
  std::string_view utilisation_ncu = {};
};

inline constexpr std::array kChartNodes = {
    ChartNodeRow{ChartNode::kernel, "Kernel", "Kernel"},
    ChartNodeRow{ChartNode::global, "Global", "Global"},
    ChartNodeRow{ChartNode::local, "Local", "Local"},
    ChartNodeRow{ChartNode::shared, "Shared", "Shared"},
    ChartNodeRow{.node = ChartNode::l1tex,
                 .name = "L1/TEX cache",
                 .box = "L1/TEX",
                 .hit_rate = "l1_hit_rate",
                 .hit_rate_ncu = "l1tex__t_sector_hit_rate.pct"},
    ChartNodeRow{ChartNode::shared_memory, "Shared memory", "Shared mem"},
    ChartNodeRow{.node = ChartNode::l2,
                 .name = "L2 cache",
                 .box = "L2",
                 .hit_rate = "l2_hit_rate",
                 .hit_rate_ncu = "lts__t_sector_hit_rate.pct",
                 .utilisation = "l2_utilisation",
                 .utilisation_ncu = "lts__t_sectors_srcunit_tex.avg.pct_of_peak_sustained_elapsed"},
    ChartNodeRow{ChartNode::dram, "Device memory", "DRAM"},
};

struct ChartLinkRow {
  ChartNode from, to;      // the way the instructions, requests or data go
  std::string_view figure; // a figure key (figures.cpp)
  // The metric ncu's chart shows on this link; "" where it shows none (its Hopper chart has the
  // shared-memory pipe's share of peak, not its wavefronts by direction, which the model predicts).
  std::string_view ncu_metric;
  std::string_view utilisation = {}; // a figure key: the link's share of its peak; "" for none
  std::string_view utilisation_ncu = {};
};

// ncu's chart counts instructions by SASS patching (smsp__sass_inst_executed_op_*); WarpLens
// reads the same count from the hardware counter (smsp__inst_executed_op_*), as its Counters
// panel does: the two are equal for every instruction the warps execute.
inline constexpr std::array kChartLinks = {
    ChartLinkRow{ChartNode::kernel, ChartNode::global, "global_load_instructions",
                 "smsp__sass_inst_executed_op_global_ld.sum"},
    ChartLinkRow{ChartNode::kernel, ChartNode::global, "global_store_instructions",
                 "smsp__sass_inst_executed_op_global_st.sum"},
    ChartLinkRow{ChartNode::kernel, ChartNode::local, "local_load_instructions",
                 "smsp__sass_inst_executed_op_local_ld.sum"},
    ChartLinkRow{ChartNode::kernel, ChartNode::local, "local_store_instructions",
                 "smsp__sass_inst_executed_op_local_st.sum"},
    ChartLinkRow{ChartNode::kernel, ChartNode::shared, "shared_load_instructions",
                 "smsp__sass_inst_executed_op_shared_ld.sum"},
    ChartLinkRow{ChartNode::kernel, ChartNode::shared, "shared_store_instructions",
                 "smsp__sass_inst_executed_op_shared_st.sum"},
    ChartLinkRow{ChartNode::global, ChartNode::l1tex, "global_load_requests",
                 "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"},
    ChartLinkRow{ChartNode::global, ChartNode::l1tex, "global_store_requests",
                 "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"},
    ChartLinkRow{ChartNode::local, ChartNode::l1tex, "local_load_requests",
                 "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum"},
    ChartLinkRow{ChartNode::local, ChartNode::l1tex, "local_store_requests",
                 "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum"},
    ChartLinkRow{ChartNode::shared, ChartNode::shared_memory, "shared_load_wavefronts", "",
                 "shared_utilisation",
                 "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed"},
    ChartLinkRow{ChartNode::shared, ChartNode::shared_memory, "shared_store_wavefronts", "",
                 "shared_utilisation",
                 "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed"},
    ChartLinkRow{ChartNode::l2, ChartNode::l1tex, "l1_read_bytes_from_l2",
                 "l1tex__m_xbar2l1tex_read_bytes.sum", "l1_read_from_l2_utilisation",
                 "l1tex__m_xbar2l1tex_read_bytes.sum.pct_of_peak_sustained_elapsed"},
    ChartLinkRow{ChartNode::l1tex, ChartNode::l2, "l1_write_bytes_to_l2",
                 "l1tex__m_l1tex2xbar_write_bytes.sum", "l1_write_to_l2_utilisation",
                 "l1tex__m_l1tex2xbar_write_bytes.sum.pct_of_peak_sustained_elapsed"},
    ChartLinkRow{ChartNode::dram, ChartNode::l2, "dram_read_bytes", "dram__bytes_read.sum",
                 "dram_read_utilisation", "dram__bytes_read.sum.pct_of_peak_sustained_elapsed"},
    ChartLinkRow{ChartNode::l2, ChartNode::dram, "dram_write_bytes", "dram__bytes_write.sum",
                 "dram_write_utilisation", "dram__bytes_write.sum.pct_of_peak_sustained_elapsed"},
};

const ChartNodeRow& chart_node(ChartNode node);

// One link or cache figure of a launch: measured where the run counted it, predicted where the
// model has it, and, where they differ by more than the comparison's tolerance, why.
struct ChartValue {
  const Figure* figure = nullptr;
  std::string_view ncu_metric = {};
  std::string metric = {}; // the counter measured, as CUPTI names it; "" where not measured
  std::optional<double> measured = std::nullopt, predicted = std::nullopt;
  std::string difference = {}; // "+2.3 %", "none predicted", "-"
  bool flagged = false;
  std::string reason = {};
};

struct ChartLink {
  const ChartLinkRow* row = nullptr;
  ChartValue value = {};
  std::optional<ChartValue> utilisation = std::nullopt;
};

struct ChartNodeFigures {
  const ChartNodeRow* row = nullptr;
  std::optional<ChartValue> hit_rate = std::nullopt, utilisation = std::nullopt;
};

struct MemoryChart {
  std::vector<ChartLink> links = {};        // kChartLinks' order
  std::vector<ChartNodeFigures> nodes = {}; // kChartNodes' order
  // Where the measured side comes from: "this run's counters", "recorded on ..."; "" when no
  // figure of the chart was measured (the chart then says how to measure it).
  std::string measured_by = {};
  int measured_links = 0;
  // Where the profiler's range around the launch (profiled_range_time) is much longer than the
  // kernel's median, its shares of peak are over that range and read low: how much; else "".
  std::string share_note = {};
};

MemoryChart memory_chart(const RunResult& result);

// A side of a chart figure in its format ("2.00 GiB", "2,097,152", "67.6 %"), or "-".
std::string chart_value_text(const ChartValue& value, const std::optional<double>& number);

// The chart as `run` prints it: a line per link, measured beside predicted, with the reasons.
std::string memory_chart_text(const MemoryChart& chart);

} // namespace wl
