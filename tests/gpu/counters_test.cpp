// Hardware counters on a real device: the teaching patterns measure what the model predicts,
// sweeps carry counters for every allowed shape and refuse the rest, and bad metric names are
// refused before any work. Where the process may not read counters (no permission), the tests
// check that the run still completes with the reason instead, then skip.

#include "base/error.h"
#include "engine/engine.h"
#include "engine/sweep_run.h"
#include "engine/system_checks.h"
#include "gpu_test_support.h"
#include "model/kernel_request.h"
#include "model/site_counts.h"
#include "registry.h"
#include "report/counter_comparison.h"
#include "report/figures.h"
#include "report/memory_chart.h"
#include "report/site_report.h"
#include "sweep/sweep_file.h"

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace wl {
namespace {

using test::have_gpu;

EngineOptions quick(const std::string& metrics) {
  EngineOptions options;
  options.metrics = metrics;
  options.timing.min_samples = 3;
  options.timing.max_seconds = 0.01;
  return options;
}

RunResult run(const std::string& id, const std::vector<std::string>& params,
              const std::string& metrics) {
  return run_kernel(resolve_kernel_request(id, params, "", ""), quick(metrics));
}

const ComparisonRow* row(const std::vector<ComparisonRow>& rows, const std::string& key) {
  for (const ComparisonRow& r : rows)
    if (r.key == key)
      return &r;
  return nullptr;
}

// Skips the calling test, with the profiler's own reason, where counters cannot be read here.
#define SKIP_WITHOUT_COUNTERS(result)                                                              \
  do {                                                                                             \
    ASSERT_TRUE((result).counters);                                                                \
    ASSERT_TRUE((result).timing) << "a run without counters still has its timing";                 \
    if (!(result).counters->available)                                                             \
      GTEST_SKIP() << "counters unavailable: " << (result).counters->reason;                       \
  } while (0)

TEST(Counters, GlobalSectorsOfEachStrideMatchTheModel) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  for (const char* stride : {"stride=1", "stride=2", "stride=8", "stride=32"}) {
    const RunResult r = run("coalescing/stride", {stride, "n=1048576"}, "global");
    SKIP_WITHOUT_COUNTERS(r);
    EXPECT_GE(r.counters->passes, 1);
    const std::vector<ComparisonRow> rows = compare_counters(r);
    for (const char* key :
         {"global_load_sectors", "global_store_sectors", "global_load_requests"}) {
      const ComparisonRow* c = row(rows, key);
      ASSERT_NE(c, nullptr) << key;
      ASSERT_TRUE(c->predicted) << key;
      EXPECT_NEAR(c->measured, *c->predicted, 0.01 * *c->predicted) << stride << " " << key;
    }
  }
}

TEST(Counters, SharedWavefrontsOfEachBankStrideMatchTheModel) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  for (const char* stride : {"stride=1", "stride=2", "stride=4", "stride=32", "stride=33"}) {
    const RunResult r = run("bank_conflicts/stride", {stride, "n=1048576"}, "shared");
    SKIP_WITHOUT_COUNTERS(r);
    const std::vector<ComparisonRow> rows = compare_counters(r); // the row points into it
    const ComparisonRow* loads = row(rows, "shared_load_wavefronts");
    ASSERT_NE(loads, nullptr);
    ASSERT_TRUE(loads->predicted);
    // Within 2 %, or flagged with the reason WarpLens shows.
    if (loads->flagged) {
      EXPECT_FALSE(loads->reason.empty()) << stride;
    } else {
      EXPECT_NEAR(loads->measured, *loads->predicted, 0.02 * *loads->predicted) << stride;
    }
  }
}

TEST(Counters, ASweepMeasuresEveryAllowedShapeAndRefusesTheRest) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  const KernelRequest request = resolve_kernel_request("vec_add/scalar", {}, "65536", "");
  const std::vector<BlockShape> shapes = {{32, 1, 1}, {96, 1, 1}, {2048, 1, 1}, {1024, 1, 1}};
  int progress_calls = 0;
  const SweepRun sweep = run_sweep(*request.kernel, request.params, SweepGrid{shapes, {}},
                                   quick("default"), [&](int, int total, const SweepPoint&) {
                                     ++progress_calls;
                                     EXPECT_EQ(total, 4);
                                   });
  ASSERT_EQ(sweep.points.size(), 4u);
  EXPECT_EQ(progress_calls, 4);
  EXPECT_FALSE(sweep.points[2].result);
  EXPECT_NE(sweep.points[2].refused.find("2048"), std::string::npos) << sweep.points[2].refused;
  for (int i : {0, 1, 3}) {
    const SweepPoint& p = sweep.points[i];
    ASSERT_TRUE(p.result) << p.refused;
    ASSERT_TRUE(p.result->verification);
    EXPECT_TRUE(p.result->verification->passed);
    ASSERT_TRUE(p.result->counters);
    if (!p.result->counters->available)
      GTEST_SKIP() << p.result->counters->reason;
    const CounterValue* sectors = p.result->counters->find("global_load_sectors");
    ASSERT_NE(sectors, nullptr);
    EXPECT_EQ(sectors->value, 2 * 65536 * 4 / 32) << "two float inputs, 32-byte sectors";
  }
  const std::string csv = sweep_csv(sweep.points);
  // Counters are columns by their figure's key, as every figure is (the metric's name is in the
  // JSON beside it): gpu__time_duration.sum as a column read as ncu's kernel time.
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_NE(header.find(",global_load_sectors,"), std::string::npos) << header;
  EXPECT_EQ(header.find("gpu__time_duration.sum"), std::string::npos) << header;
  EXPECT_NE(csv.find("refused"), std::string::npos);
}

// The coalescing lesson's chart: one sweep over stride, each point on its own session (its own
// inputs and reference), verified and counted; a value the kernel's check refuses for these
// sizes is listed, not run.
TEST(Counters, ASweepOverAParameterMeasuresEachValueOnItsOwnSession) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  const KernelRequest request = resolve_kernel_request("coalescing/stride", {"n=1048576"}, "", "");
  const SweepGrid grid{{{128, 1, 1}, {256, 1, 1}}, {ParamAxis{"stride", {1, 2, 8, 32}}}};
  const SweepRun sweep =
      run_sweep(*request.kernel, request.params, grid, quick("default"), nullptr);
  ASSERT_EQ(sweep.points.size(), 8u);
  EXPECT_EQ(sweep.sessions, 4);
  for (std::size_t i = 0; i < sweep.points.size(); ++i) {
    const SweepPoint& p = sweep.points[i];
    EXPECT_EQ(p.params.at("stride"), grid.param_axes[0].values[i / 2]) << "blocks fastest";
    EXPECT_EQ(p.block.x, i % 2 ? 256 : 128);
    ASSERT_TRUE(p.result) << p.refused;
    EXPECT_EQ(p.result->params.at("stride"), p.params.at("stride"));
    ASSERT_TRUE(p.result->verification);
    EXPECT_TRUE(p.result->verification->passed) << p.result->verification->first_failure;
    ASSERT_TRUE(p.result->counters);
    if (!p.result->counters->available)
      GTEST_SKIP() << p.result->counters->reason;
    const std::optional<double> measured = figure("sectors_per_request").measured(*p.result);
    const std::optional<double> predicted = figure("sectors_per_request").predicted(*p.result);
    ASSERT_TRUE(measured && predicted);
    EXPECT_NEAR(*measured, *predicted, 0.01 * *predicted) << "stride " << p.params.at("stride");
  }
  // The loads alone (the figure above counts the stores too): stride 1 fetches four sectors per
  // warp, stride 32 one per lane.
  const auto load_sectors_per_load = [](const SweepPoint& p) {
    return p.result->counters->find("global_load_sectors")->value /
           p.result->counters->find("global_load_instructions")->value;
  };
  EXPECT_DOUBLE_EQ(load_sectors_per_load(sweep.points[0]), 4);
  EXPECT_DOUBLE_EQ(load_sectors_per_load(sweep.points[6]), 32);
  EXPECT_NE(sweep_csv(sweep.points).find("block_x,block_y,block_z,n,stride,width,status"),
            std::string::npos);
}

TEST(Counters, AnUnknownMetricIsRefusedBeforeAnyWork) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  try {
    run("vec_add/scalar", {}, "global_load_sectors,no_such_metric");
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_metric"), std::string::npos) << e.what();
  }
}

// Per-instruction counters: each of vec_add's two loads and its store counts its own executions
// and sectors, exactly the model's per-site figures, and after the SASS pass the range profiler
// counts the launch as before.
TEST(SassMetrics, EachMemoryInstructionOfVecAddCountsWhatItsSitePredicts) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  const KernelRequest request = resolve_kernel_request("vec_add/scalar", {"n=1048576"}, "", "");
  KernelSession session(*request.kernel, request.params, quick("global"));
  const RunResult predicted = session.predict(request.block);
  // The per-site pass's metrics: a process keeps one SASS configuration (counters.cpp says why).
  const SassCounts sass = session.count_sass(request.block, site_sass_metrics());
  if (!sass.available)
    GTEST_SKIP() << "SASS metrics unavailable: " << sass.reason;
  std::vector<double> load_sectors, store_sectors;
  for (const SassInstruction& i : sass.instructions) {
    EXPECT_NE(i.function.find("vec_add_scalar"), std::string::npos) << i.function;
    const double sectors = i.values.count("smsp__sass_sectors_mem_global")
                               ? i.values.at("smsp__sass_sectors_mem_global")
                               : 0;
    if (i.values.count("smsp__sass_inst_executed_op_global_ld") &&
        i.values.at("smsp__sass_inst_executed_op_global_ld") > 0) {
      EXPECT_EQ(i.values.at("smsp__sass_inst_executed_op_global_ld"), 1048576 / 32);
      load_sectors.push_back(sectors);
    }
    if (i.values.count("smsp__sass_inst_executed_op_global_st") &&
        i.values.at("smsp__sass_inst_executed_op_global_st") > 0) {
      EXPECT_EQ(i.values.at("smsp__sass_inst_executed_op_global_st"), 1048576 / 32);
      store_sectors.push_back(sectors);
    }
  }
  ASSERT_EQ(load_sectors.size(), 2u) << "load a, load b";
  ASSERT_EQ(store_sectors.size(), 1u) << "store c";
  for (const SitePrediction& site : predicted.prediction.sites)
    EXPECT_EQ(site.sectors, 1048576 / 8) << site.name; // 4 bytes a lane, 32 bytes a sector
  for (const double sectors : load_sectors)
    EXPECT_EQ(sectors, 1048576 / 8);
  EXPECT_EQ(store_sectors.front(), 1048576 / 8);

  const CounterResult after = session.count({request.block}).front();
  ASSERT_TRUE(after.available) << after.reason;
  EXPECT_EQ(after.find("global_load_sectors")->value, 2 * 1048576 / 8);
}

// Per-site measured figures: every site of these kernels gets the instructions on its marked
// line, and their measured requests, sectors and wavefronts equal the model's within 1 %, or the
// site is flagged with the reason the SASS shows. Every memory instruction of the kernel sits on
// some site's line (the CUPTI line table and the markers agree on the GPU too).
TEST(SitesMeasured, EverySiteOfThreeKernelsMatchesItsPredictionOrSaysWhy) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  for (const char* id : {"vec_add/scalar", "transpose/smem", "reduce_sum/sequential"}) {
    const KernelRequest request = resolve_kernel_request(id, {}, "", "");
    KernelSession session(*request.kernel, request.params, quick(""));
    const RunResult predicted = session.predict(request.block);
    const SiteCounts counts = session.count_sites(predicted);
    if (!counts.available && counts.reason.find("SASS") != std::string::npos)
      GTEST_SKIP() << "SASS metrics unavailable: " << counts.reason;
    ASSERT_TRUE(counts.available) << id << ": " << counts.reason;
    EXPECT_TRUE(counts.unclaimed.empty())
        << id << ": " << counts.unclaimed.size() << " memory instructions on no site's line";
    ASSERT_EQ(counts.sites.size(), predicted.prediction.sites.size());
    for (std::size_t s = 0; s < counts.sites.size(); ++s) {
      const SiteMeasurement& m = counts.sites[s];
      const std::string site = std::string(id) + " " + predicted.prediction.sites[s].name;
      EXPECT_GT(m.line, 0) << site;
      EXPECT_FALSE(m.instructions.empty()) << site;
      if (m.flagged)
        EXPECT_NE(m.reason, "") << site;
      else
        EXPECT_LE(std::abs(m.difference), 0.01) << site;
    }
  }
  // vec_add's three sites: one instruction each, exactly the model.
  const KernelRequest request = resolve_kernel_request("vec_add/scalar", {"n=1048576"}, "", "");
  KernelSession session(*request.kernel, request.params, quick(""));
  const SiteCounts counts = session.count_sites(session.predict(request.block));
  ASSERT_TRUE(counts.available) << counts.reason;
  for (const SiteMeasurement& m : counts.sites) {
    EXPECT_EQ(m.instructions.size(), 1u);
    EXPECT_EQ(m.executed, 1048576 / 32);
    EXPECT_EQ(m.sectors, 1048576 / 8);
    EXPECT_FALSE(m.flagged) << m.reason;
  }
}

// A per-site sweep: each stride's own SASS pass, its strided load's sectors the model's at each
// stride (4 a request at stride 1, 32 from stride 8 on), beside the launch counters' sum.
TEST(SitesMeasured, ASweepMeasuresEachPointsSitesInAPassOfItsOwn) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  const KernelRequest request = resolve_kernel_request("coalescing/stride", {"n=1048576"}, "", "");
  const SweepGrid grid{{{256, 1, 1}}, {ParamAxis{"stride", {1, 8, 32}}}};
  EngineOptions options = quick("default");
  options.per_site = true;
  const SweepRun sweep = run_sweep(*request.kernel, request.params, grid, options, nullptr);
  ASSERT_EQ(sweep.points.size(), 3u);
  for (const SweepPoint& p : sweep.points) {
    ASSERT_TRUE(p.result && p.result->site_counts) << p.refused;
    const SiteCounts& counts = *p.result->site_counts;
    if (!counts.available && counts.reason.find("SASS") != std::string::npos)
      GTEST_SKIP() << "SASS metrics unavailable: " << counts.reason;
    ASSERT_TRUE(counts.available) << counts.reason;
    const SitePrediction& load = p.result->prediction.sites.front();
    EXPECT_EQ(counts.sites.front().sectors, static_cast<double>(load.sectors))
        << "stride " << p.params.at("stride");
    EXPECT_EQ(counts.sites.front().executed, static_cast<double>(load.requests));
    if (p.result->counters && p.result->counters->available) {
      EXPECT_EQ(
          site_sums_lines(*p.result).front().find("Global sectors summed over the per-site pass"),
          0u);
    }
  }
  EXPECT_EQ(sweep.points[0].result->prediction.sites.front().sectors_per_request(), 4);
  EXPECT_EQ(sweep.points[2].result->prediction.sites.front().sectors_per_request(), 32);
  EXPECT_NE(sweep_csv(sweep.points).find("\"load in (strided): measured_sectors\""),
            std::string::npos);
}

// Every bundled kernel at its default launch with the roofline's counters: the FP32 operations
// the counters saw equal the kernel's FLOP count within 2 % unless the kernel says why they do not
// (its fp32_counter_note), and every DRAM or L2 difference over 2 % comes with its reason.
TEST(Counters, EveryKernelsFlopsAndBytesMatchTheModelOrSayWhy) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  for (const KernelDesc& kernel : all_kernels()) {
    const RunResult r = run(kernel.id, {}, "roofline");
    SKIP_WITHOUT_COUNTERS(r);
    const std::vector<ComparisonRow> rows = compare_counters(r);
    const ComparisonRow* flops = row(rows, "fp32_operations");
    ASSERT_NE(flops, nullptr) << kernel.id;
    if (kernel.fp32_counter_note.empty() && r.flops > 0) {
      EXPECT_FALSE(flops->flagged) << kernel.id << ": " << difference_text(*flops);
    }
    for (const char* key : {"fp32_operations", "dram_traffic", "l2_traffic"})
      if (const ComparisonRow* c = row(rows, key); c && c->flagged) {
        EXPECT_FALSE(c->reason.empty()) << kernel.id << " " << key << " " << difference_text(*c);
      }
  }
}

// The memory chart of transpose/naive counted with the memory set: every link measured, those the
// model predicts from its sites equal to it (instructions, requests, the bytes stores send L2),
// every other difference over 2 % with its reason, and the caches' hit rates read.
TEST(Counters, TheMemoryChartsLinksAreCountedBesideTheModel) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  const RunResult r = run("transpose/naive", {}, "memory");
  SKIP_WITHOUT_COUNTERS(r);
  const MemoryChart chart = memory_chart(r);
  EXPECT_EQ(chart.measured_by, "this run's counters");
  EXPECT_EQ(chart.measured_links, static_cast<int>(kChartLinks.size()));
  for (const ChartLink& link : chart.links) {
    const std::string key(link.value.figure->key);
    if (key.find("instructions") != std::string::npos ||
        key.find("requests") != std::string::npos || key == "l1_write_bytes_to_l2") {
      EXPECT_FALSE(link.value.flagged) << key << " " << link.value.difference;
    }
    if (link.value.flagged) {
      EXPECT_FALSE(link.value.reason.empty()) << key << " " << link.value.difference;
    }
  }
  for (const ChartNodeFigures& node : chart.nodes) {
    if (node.hit_rate) {
      EXPECT_TRUE(node.hit_rate->measured) << node.row->name;
    }
  }
}

// doctor's lines for what a Run measures: the counters, the stalls and the energy, each read by a
// Run of its own kind; where the counters are allowed, so is the sampling (one permission).
TEST(Doctor, TheCountersStallsAndEnergyEachHaveTheirLine) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  std::map<std::string, SystemCheck> by_what;
  for (const SystemCheck& check : check_gpus())
    by_what[check.what] = check;
  for (const char* what : {"counters", "stalls", "energy"}) {
    ASSERT_TRUE(by_what.contains(what)) << what;
  }
  EXPECT_EQ(by_what["counters"].ok(), by_what["stalls"].ok())
      << by_what["counters"].fix << " / " << by_what["stalls"].fix;
  if (by_what["stalls"].ok()) {
    EXPECT_NE(by_what["stalls"].found.find("GPU 0's warps sampled"), std::string::npos)
        << by_what["stalls"].found;
  }
  if (by_what["energy"].ok()) {
    EXPECT_NE(by_what["energy"].found.find("GPU 0's energy counter read"), std::string::npos)
        << by_what["energy"].found;
  }
}

} // namespace
} // namespace wl
