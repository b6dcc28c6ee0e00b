// Per-site attribution on the CPU: measured instructions, as the SASS pass reports them, sorted
// onto the sites written on their lines, compared with the model, and the reason for a difference
// read from the instructions; and the whole measurement through JSON and back.

#include "base/error.h"
#include "base/text_format.h"
#include "io/assets.h"
#include "model/arch.h"
#include "model/kernel_request.h"
#include "model/kernel_source.h"
#include "model/launch_model.h"
#include "model/model_kernel.h"
#include "model/sass_text.h"
#include "report/site_report.h"
#include "sweep/sweep_file.h"

#include <gtest/gtest.h>

namespace wl {
namespace {

struct Case {
  KernelRequest request;
  LaunchPrediction prediction;
  SiteLines lines;
};

Case make_case(const std::string& id, const std::vector<std::string>& params) {
  Case c{resolve_kernel_request(id, params, "", ""), {}, {}};
  c.prediction = predict_launch(
      *c.request.kernel, make_launch(*c.request.kernel, c.request.params, c.request.block, 132),
      ModelBudget{0});
  c.lines = site_lines(*c.request.kernel, c.request.params);
  return c;
}

// The instruction a site would be if the hardware did exactly what the model says.
MeasuredInstruction as_predicted(const Case& c, std::size_t site, std::uint32_t pc) {
  const SitePrediction& p = c.prediction.sites[site];
  MeasuredInstruction m;
  m.pc = pc;
  m.file = c.lines.file;
  m.line = c.lines.lines[site];
  m.space = p.space;
  m.op = p.op;
  m.width = p.width;
  m.executed = static_cast<double>(p.requests);
  m.issued = m.executed;
  m.lanes = 32 * m.executed;
  m.sectors = static_cast<double>(p.sectors);
  m.wavefronts = static_cast<double>(p.wavefronts);
  return m;
}

// One instruction per site, 16 bytes apart, each doing what the model says.
std::vector<MeasuredInstruction> every_site_as_predicted(const Case& c) {
  std::vector<MeasuredInstruction> measured;
  for (std::size_t s = 0; s < c.prediction.sites.size(); ++s)
    measured.push_back(as_predicted(c, s, static_cast<std::uint32_t>(0x100 + 16 * s)));
  return measured;
}

TEST(SiteCounts, InstructionsThatDoWhatTheModelSaysMatchEverySiteAndNoneIsLeftOver) {
  const Case c = make_case("vec_add/scalar", {"n=1048576"});
  const SiteCounts counts = attribute_sites(*c.request.kernel, c.request.params, c.prediction,
                                            every_site_as_predicted(c));
  ASSERT_TRUE(counts.available);
  EXPECT_TRUE(counts.unclaimed.empty());
  for (const SiteMeasurement& m : counts.sites) {
    EXPECT_EQ(m.instructions.size(), 1u);
    EXPECT_FALSE(m.flagged) << m.reason;
    EXPECT_EQ(m.difference, 0);
  }
}

TEST(SiteCounts, AMergedWideLoadIsFlaggedWithTheMergeAsItsReason) {
  const Case c = make_case("matmul/tiled", {"m=256", "n=256", "k=256"});
  std::vector<MeasuredInstruction> measured;
  for (std::size_t s = 0; s < c.prediction.sites.size(); ++s) {
    MeasuredInstruction m = as_predicted(c, s, static_cast<std::uint32_t>(0x100 + 16 * s));
    if (c.prediction.sites[s].name == "load A tile") { // four 4-byte loads as one LDS.128
      m.sass = "@!P0 LDS.128 R8, [R20]";
      m.width = 16;
      m.executed /= 4;
      m.lanes /= 4;
      m.wavefronts /= 4;
    }
    measured.push_back(m);
  }
  const SiteCounts counts =
      attribute_sites(*c.request.kernel, c.request.params, c.prediction, measured);
  for (std::size_t s = 0; s < counts.sites.size(); ++s) {
    const bool merged = c.prediction.sites[s].name == "load A tile";
    EXPECT_EQ(counts.sites[s].flagged, merged) << c.prediction.sites[s].name;
    if (merged) {
      EXPECT_NE(counts.sites[s].reason.find(
                    "merged 4 neighbouring 4-byte loads into one LDS.128 (1 instruction"),
                std::string::npos)
          << counts.sites[s].reason;
    }
  }
}

// An LDGSTS (cp.async) is a global load and a shared store in one instruction: its values become
// two accesses at one PC, the load with the sectors and the store with the wavefronts, which
// matmul/async_copy's two sites on the copy's line each claim. Measured on the H200 at 1024^3,
// store A tile took 3 wavefronts a request where the banks give 2: flagged, with why.
TEST(SiteCounts, AnAsyncCopyIsAGlobalLoadAndASharedStoreAndItsWavefrontsSayWhy) {
  const std::vector<MeasuredInstruction> halves =
      memory_accesses(0x40, {{"smsp__sass_inst_executed", 10},
                             {"smsp__sass_inst_executed_op_ldgsts", 10},
                             {"smsp__sass_thread_inst_executed_op_ldgsts_pred_on", 320},
                             {"smsp__sass_inst_executed_op_memory_32b", 10},
                             {"smsp__sass_sectors_mem_global", 40},
                             {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared", 30}});
  ASSERT_EQ(halves.size(), 2u);
  EXPECT_EQ(halves[0].space, MemorySpace::global);
  EXPECT_EQ(halves[0].op, AccessOp::load);
  EXPECT_EQ(halves[0].sectors, 40);
  EXPECT_EQ(halves[0].wavefronts, 0);
  EXPECT_EQ(halves[1].space, MemorySpace::shared);
  EXPECT_EQ(halves[1].op, AccessOp::store);
  EXPECT_EQ(halves[1].wavefronts, 30);
  EXPECT_EQ(halves[1].sectors, 0);
  for (const MeasuredInstruction& half : halves) {
    EXPECT_EQ(half.pc, 0x40u);
    EXPECT_EQ(half.executed, 10);
    EXPECT_EQ(half.lanes, 320);
    EXPECT_EQ(half.width, 4);
    EXPECT_TRUE(half.async_copy);
  }

  const Case c = make_case("matmul/async_copy", {"m=1024", "n=1024", "k=1024"});
  std::vector<MeasuredInstruction> measured;
  for (std::size_t s = 0; s < c.prediction.sites.size(); ++s) {
    MeasuredInstruction m = as_predicted(c, s, static_cast<std::uint32_t>(0x100 + 16 * s));
    const std::string& name = c.prediction.sites[s].name;
    m.async_copy =
        name == "load A" || name == "load B" || name == "store A tile" || name == "store B tile";
    if (name == "store A tile")
      m.wavefronts *= 1.5;
    measured.push_back(m);
  }
  const SiteCounts counts =
      attribute_sites(*c.request.kernel, c.request.params, c.prediction, measured);
  for (std::size_t s = 0; s < counts.sites.size(); ++s) {
    const bool more = c.prediction.sites[s].name == "store A tile";
    EXPECT_EQ(counts.sites[s].flagged, more) << c.prediction.sites[s].name;
    if (more) {
      EXPECT_EQ(counts.sites[s].reason,
                "LDGSTS (cp.async, 1 instruction on the line) writes shared memory as its global "
                "data arrives: its wavefronts follow the sectors and lines it reads as well as the "
                "banks it writes, and the model counts the banks alone");
    }
  }
  EXPECT_TRUE(memory_accesses(0x40, {{"smsp__sass_inst_executed", 10}}).empty());
}

TEST(SiteCounts, AHelperInlinedTwiceIsSplitAtTheWidestGapEvenWhenOneCopyIsUnrolled) {
  const Case c = make_case("softmax/block_tree", {"rows=64", "cols=1024"});
  std::vector<MeasuredInstruction> measured;
  std::size_t max_site = 0, sum_site = 0;
  for (std::size_t s = 0; s < c.prediction.sites.size(); ++s) {
    const std::string& name = c.prediction.sites[s].name;
    if (name == "tree load target (max)")
      max_site = s;
    else if (name == "tree load target (sum)")
      sum_site = s;
    else
      measured.push_back(as_predicted(c, s, static_cast<std::uint32_t>(0x4000 + 16 * s)));
  }
  // The max copy as one instruction early in the kernel, the sum copy unrolled in four later.
  measured.push_back(as_predicted(c, max_site, 0x100));
  MeasuredInstruction part = as_predicted(c, sum_site, 0x2000);
  part.executed /= 4, part.lanes /= 4, part.wavefronts /= 4;
  for (std::uint32_t k = 0; k < 4; ++k) {
    part.pc = 0x2000 + 0x40 * k;
    measured.push_back(part);
  }
  const SiteCounts counts =
      attribute_sites(*c.request.kernel, c.request.params, c.prediction, measured);
  EXPECT_EQ(counts.sites[max_site].instructions.size(), 1u);
  EXPECT_EQ(counts.sites[sum_site].instructions.size(), 4u);
  EXPECT_FALSE(counts.sites[max_site].flagged) << counts.sites[max_site].reason;
  EXPECT_FALSE(counts.sites[sum_site].flagged) << counts.sites[sum_site].reason;
  EXPECT_TRUE(counts.sites[max_site].measured_with.empty());
}

TEST(SiteCounts, AnAccessOnNoSitesLineIsLeftOverAndASiteWithNoInstructionSaysSo) {
  const Case c = make_case("vec_add/scalar", {"n=1048576"});
  std::vector<MeasuredInstruction> measured = {as_predicted(c, 0, 0x100),
                                               as_predicted(c, 1, 0x110)};
  MeasuredInstruction stray = as_predicted(c, 0, 0x120);
  stray.line = 1;
  measured.push_back(stray);
  const SiteCounts counts =
      attribute_sites(*c.request.kernel, c.request.params, c.prediction, measured);
  EXPECT_EQ(counts.unclaimed.size(), 1u);
  EXPECT_TRUE(counts.sites[2].flagged);
  EXPECT_NE(counts.sites[2].reason.find("no global store instruction on line"), std::string::npos)
      << counts.sites[2].reason;
}

TEST(SiteCounts, TheMeasurementGoesThroughJsonAndBackAndABadIndexIsRefused) {
  const Case c = make_case("vec_add/scalar", {"n=1048576"});
  const SiteCounts counts = attribute_sites(*c.request.kernel, c.request.params, c.prediction,
                                            every_site_as_predicted(c));
  nlohmann::json j = site_counts_json(counts);
  const SiteCounts back = site_counts_from_json(j, "result", counts.sites.size());
  EXPECT_EQ(site_counts_json(back), j);
  nlohmann::json lying = j;
  lying["instructions"][0]["async_copy"] = "yes"; // a worker's answer that is no true or false
  try {
    site_counts_from_json(lying, "result", counts.sites.size());
    FAIL() << "an async_copy that is no boolean was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("async_copy"), std::string::npos) << e.what();
  }
  j["sites"][0]["instructions"] = {7};
  try {
    site_counts_from_json(j, "result", counts.sites.size());
    FAIL() << "an instruction index past the list was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("site_counts.sites"), std::string::npos) << e.what();
  }
}

// A kernel file's pass: no sites, so each instruction stays on its own line; a line sums its
// instructions by space, an instruction in a header is left over, and the issues of every
// instruction count on their line whether it touches memory or not.
MeasuredInstruction on_line(const std::string& file, int line, MemorySpace space, double executed,
                            double traffic, std::uint32_t pc) {
  MeasuredInstruction m;
  m.pc = pc;
  m.file = file;
  m.line = line;
  m.space = space;
  m.executed = m.issued = executed;
  m.lanes = 32 * executed;
  (space == MemorySpace::global ? m.sectors : m.wavefronts) = traffic;
  return m;
}

TEST(LineCounts, AFilesInstructionsAreSummedPerLineAndSpaceAndAHeadersAreLeftOver) {
  using enum MemorySpace;
  const SiteCounts counts = attribute_lines("mine.cu",
                                            {on_line("mine.cu", 12, global, 100, 400, 0x40),
                                             on_line("mine.cu", 12, global, 100, 800, 0x20),
                                             on_line("mine.cu", 14, shared, 50, 200, 0x60),
                                             on_line("helpers.cuh", 3, global, 10, 40, 0x80)},
                                            {{.line = 14, .issued = 50, .wavefronts = 200},
                                             {.line = 11, .issued = 700},
                                             {.line = 12, .issued = 250, .sectors = 1500}},
                                            LaunchPrediction{});
  ASSERT_TRUE(counts.available);
  EXPECT_EQ(counts.instructions.front().pc, 0x20u) << "in PC order";
  EXPECT_EQ(counts.global_sectors, 1240);
  EXPECT_EQ(counts.shared_wavefronts, 200);
  ASSERT_EQ(counts.unclaimed, std::vector<std::size_t>{3});
  const std::vector<LineMeasurement> lines = measured_lines(counts);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].line, 11);
  EXPECT_EQ(lines[0].issued, 700);
  EXPECT_TRUE(lines[0].memory.empty());
  EXPECT_EQ(lines[1].global_requests, 200);
  EXPECT_EQ(lines[1].access_sectors, 1200);
  EXPECT_EQ(lines[1].sectors, 1500) << "an atomic's 300 sectors count on its line, not per request";
  EXPECT_EQ(lines[1].memory.size(), 2u);
  EXPECT_EQ(lines[2].shared_requests, 50);
  EXPECT_EQ(lines[2].access_wavefronts, 200);
  EXPECT_EQ(lines[2].wavefronts, 200);
  RunResult r;
  r.site_counts = counts;
  EXPECT_EQ(site_counts_summary(r), "lines: 3 measured, 4 memory instructions");
  const std::string text = site_counts_text(r);
  EXPECT_NE(text.find("measured per line"), std::string::npos) << text;
  EXPECT_NE(text.find("1 memory instructions sit on lines of other files"), std::string::npos)
      << text;
}

SitePrediction file_site(int line, MemorySpace space, AccessOp op, std::int64_t requests,
                         std::int64_t traffic, bool exact = true) {
  SitePrediction p;
  p.name = "line " + std::to_string(line);
  p.line = line;
  p.space = space;
  p.op = op;
  p.width = 4;
  p.requests = requests;
  (space == MemorySpace::global ? p.sectors : p.wavefronts) = traffic;
  p.exact = exact;
  return p;
}

// The sites the PTX model found on a file's lines stand beside what the instructions of their
// line and kind measured: equal, or flagged with the reason the SASS shows (ptxas merged four
// 4-byte shared loads into one LDS.128; an atomic the compiler removed); a sampled site compares
// its traffic per request.
TEST(LineCounts, AFilesPredictedSitesAreComparedWithTheirLinesAndSayWhyTheyDiffer) {
  using enum MemorySpace;
  LaunchPrediction prediction;
  prediction.from_code = true;
  prediction.sites = {file_site(12, global, AccessOp::load, 100, 400),
                      file_site(14, shared, AccessOp::load, 2048, 2048),
                      file_site(20, global, AccessOp::atomic, 10, 10),
                      file_site(22, global, AccessOp::store, 1000, 4000, false)};
  MeasuredInstruction merged = on_line("mine.cu", 14, shared, 512, 1024, 0x60);
  merged.width = 16;
  merged.sass = "LDS.128 R4, [R2]";
  MeasuredInstruction store = on_line("mine.cu", 22, global, 1010, 4040, 0x80);
  store.op = AccessOp::store;
  const SiteCounts counts = attribute_lines(
      "mine.cu", {on_line("mine.cu", 12, global, 100, 400, 0x40), merged, store}, {}, prediction);
  ASSERT_EQ(counts.sites.size(), 4u);
  EXPECT_FALSE(counts.sites[0].flagged);
  EXPECT_EQ(counts.sites[0].line, 12);
  EXPECT_TRUE(counts.sites[1].flagged);
  EXPECT_NE(counts.sites[1].reason.find("merged 4 neighbouring 4-byte loads into one LDS.128"),
            std::string::npos)
      << counts.sites[1].reason;
  EXPECT_TRUE(counts.sites[2].flagged);
  EXPECT_NE(counts.sites[2].reason.find("no global atomic instruction on line 20"),
            std::string::npos)
      << counts.sites[2].reason;
  EXPECT_FALSE(counts.sites[3].flagged)
      << "1 % more requests of a sampled site, 4 sectors each: " << counts.sites[3].reason;
}

// An atomic's SASS names why it differs: ptxas's compare-and-swap loop runs once per retry
// (h98_shared_atomic_kinds.cu's 64-bit add on the H200).
TEST(LineCounts, AnAtomicsDifferenceIsNamedFromItsSass) {
  using enum MemorySpace;
  LaunchPrediction prediction;
  prediction.from_code = true;
  prediction.sites = {file_site(17, shared, AccessOp::atomic, 2048, 2048)};
  MeasuredInstruction loop = on_line("mine.cu", 17, shared, 435800, 1365994, 0x40);
  loop.op = AccessOp::atomic;
  loop.sass = "@P0 ATOMS.CAST.SPIN.64 P0, [R2], R4, R6";
  const SiteCounts counts = attribute_lines("mine.cu", {loop}, {}, prediction);
  ASSERT_EQ(counts.sites.size(), 1u);
  EXPECT_NE(counts.sites[0].reason.find("compare-and-swap loop (ATOMS.CAST.SPIN.64)"),
            std::string::npos)
      << counts.sites[0].reason;
}

// A sampled block that stopped at the model's budget leaves its lines' requests short: the line
// says so, not that the model's addresses are wrong, when per request it is as measured
// (softmax_naive.cu on the H200: 262,144 of 2,097,152 requests, 32 sectors each on both sides).
TEST(LineCounts, ALineOfBlocksStoppedAtTheBudgetSaysItsCountsAreOfThePartRun) {
  using enum MemorySpace;
  LaunchPrediction prediction;
  prediction.from_code = true;
  prediction.sites = {file_site(20, global, AccessOp::load, 262144, 8388608, false)};
  const MeasuredInstruction load = on_line("mine.cu", 20, global, 2097152, 67108864, 0x40);
  prediction.unfinished = true;
  const SiteCounts counts = attribute_lines("mine.cu", {load}, {}, prediction);
  ASSERT_TRUE(counts.sites[0].flagged);
  EXPECT_NE(counts.sites[0].reason.find("its sampled blocks stopped before their end"),
            std::string::npos)
      << counts.sites[0].reason;
  prediction.unfinished = false; // the same counts with every block finished: not that reason
  EXPECT_EQ(attribute_lines("mine.cu", {load}, {}, prediction)
                .sites[0]
                .reason.find("stopped before their end"),
            std::string::npos);
}

// Read back, a kernel file's lines are held to what a pass can produce: each line once and in
// order, whole counts a panel can write, and none on a kernel with sites.
TEST(LineCounts, TheLinesGoThroughJsonAndBackAndWhatNoPassMakesIsRefused) {
  using enum MemorySpace;
  const SiteCounts counts =
      attribute_lines("mine.cu", {on_line("mine.cu", 12, global, 100, 400, 0x40)},
                      {{.line = 11, .issued = 700}, {.line = 12, .issued = 100, .sectors = 400}},
                      LaunchPrediction{});
  const nlohmann::json j = site_counts_json(counts);
  EXPECT_EQ(site_counts_json(site_counts_from_json(j, "result", 0)), j);
  const auto refused = [&](const char* pointer, nlohmann::json value, std::size_t sites,
                           const std::string& says) {
    nlohmann::json bad = j;
    bad[nlohmann::json::json_pointer(pointer)] = std::move(value);
    try {
      site_counts_from_json(bad, "result", sites);
      ADD_FAILURE() << pointer << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused("/line_issues/0/line", 0, 0, "site_counts.line_issues[0].line: 0");
  refused("/line_issues/1/line", 11, 0, "each line once, in increasing order (after line 11)");
  refused("/line_issues/0/issued", 0.4, 0, "line_issues[0].issued: 0.4");
  refused("/line_issues/0/issued", 1e300, 0, "line_issues[0].issued");
  refused("/line_issues/0/sectors", -4, 0, "line_issues[0].sectors");
  refused("/line_issues/0/extra", 1, 0, "extra");
  refused("/available", false, 3, "none for a bundled kernel with access sites");
}

// A per-site sweep: each site's predicted and measured columns under the figure table's keys, and
// its flag; a point the pass did not reach keeps its predictions and leaves the rest empty.
TEST(SiteCounts, ASweepCsvHasEachSitesMeasuredAndPredictedColumnsAndARowSummary) {
  const Case c = make_case("vec_add/scalar", {"n=1048576"});
  const KernelRequest request{c.request.kernel, c.request.params, BlockShape{256, 1, 1}};
  const Arch h100 = find_arch(load_arch_presets(assets_dir() / "arch"), "h100");
  RunResult measured = model_kernel(request, h100);
  std::vector<MeasuredInstruction> instructions = every_site_as_predicted(c);
  instructions[2].sectors *= 2; // "store c" writes twice the sectors the model says
  measured.site_counts =
      attribute_sites(*c.request.kernel, c.request.params, c.prediction, instructions);
  const RunResult unmeasured = model_kernel(request, h100);
  const std::vector<SweepPoint> points{{BlockShape{256, 1, 1}, "", measured, c.request.params},
                                       {BlockShape{256, 1, 1}, "", unmeasured, c.request.params}};
  std::istringstream csv(sweep_csv(points));
  std::string header, first, second;
  std::getline(csv, header);
  std::getline(csv, first);
  std::getline(csv, second);
  EXPECT_NE(header.find(",\"load a: sectors_per_request\",\"load a: requests\",\"load a: "
                        "sectors\",\"load a: measured_sectors_per_request\",\"load a: "
                        "measured_requests\",\"load a: measured_sectors\",\"load a: "
                        "measured_flagged\""),
            std::string::npos)
      << header;
  const auto commas = [](const std::string& line) {
    return std::count(line.begin(), line.end(), ',');
  };
  EXPECT_EQ(commas(first), commas(header));
  EXPECT_EQ(commas(second), commas(header));
  const SitePrediction& store = c.prediction.sites[2];
  const std::string requests = std::to_string(store.requests);
  const std::string sectors = std::to_string(store.sectors);
  const std::string per_request = format("%.9g", store.sectors_per_request());
  EXPECT_TRUE(first.ends_with("," + per_request + "," + requests + "," + sectors + "," +
                              format("%.9g", 2 * store.sectors_per_request()) + "," + requests +
                              "," + std::to_string(2 * store.sectors) + ",yes"))
      << first;
  EXPECT_TRUE(second.ends_with("," + per_request + "," + requests + "," + sectors + ",,,,"))
      << second;
  EXPECT_EQ(site_counts_summary(measured), "sites: 2 of 3 within 2 % (store c differs)");
  EXPECT_EQ(site_counts_summary(unmeasured), "");
}

// The per-instruction sums beside the launch counters: global sectors equal, shared wavefronts
// short of the counter by the conflicts charged from other L1 traffic, said as such.
TEST(SiteCounts, TheSumsStandBesideTheLaunchCountersAndAnExtraSharedWavefrontIsExplained) {
  RunResult r;
  r.site_counts = SiteCounts{};
  r.site_counts->available = true;
  r.site_counts->global_sectors = 1075838976;
  r.site_counts->shared_wavefronts = 3489660928;
  r.counters = CounterResult{};
  r.counters->available = true;
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, double>>{{"global_load_sectors", 1073741824},
                                                   {"global_store_sectors", 2097152},
                                                   {"shared_load_wavefronts", 3372220374},
                                                   {"shared_store_wavefronts", 134995456}})
    r.counters->values.push_back(CounterValue{key, key, key, "", value});
  const std::vector<std::string> lines = site_sums_lines(r);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "Global sectors summed over the per-site pass: 1,075,838,976, equal to the "
                      "launch counters");
  EXPECT_EQ(lines[1], "Shared wavefronts summed over the per-site pass: 3,489,660,928; the launch "
                      "counters hold 17,554,902 more (+0.5 %): bank conflicts the hardware charges "
                      "to shared accesses from other L1 traffic (the launch's global accesses), "
                      "made by no instruction of the kernel");
  r.counters->values.pop_back(); // a launch without the shared store counter: no shared line
  EXPECT_EQ(site_sums_lines(r).size(), 1u);
  r.counters.reset();
  EXPECT_TRUE(site_sums_lines(r).empty());
}

// nvdisasm -c -g: a function label, line comments, instructions with their PCs (a predicate, a
// trailing comment), and the next function.
TEST(SassText, TheListingGivesEachInstructionItsPcTextAndLine) {
  const std::string listing = R"(
	.section	.text._ZN2wl14vec_add_scalarEPKfS1_Pfl,"ax",@progbits
	.align	128
.text._ZN2wl14vec_add_scalarEPKfS1_Pfl:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
	//## File "/src/kernels/vec_add.cu", line 21
        /*0140*/                   LDG.E R2, desc[UR4][R2.64] ;
        /*0150*/              @!P0 LDG.E R5, desc[UR4][R4.64] ;  /* 0x000000040405 */
	//## File "/src/kernels/vec_add.cu", line 23
        /*0190*/                   STG.E desc[UR4][R6.64], R9 ;
.text._ZN2wl12vec_add_vec4EPK6float4S2_PS0_l:
        /*0000*/                   EXIT ;
)";
  const SassListing parsed = parse_nvdisasm(listing);
  ASSERT_EQ(parsed.functions.size(), 2u);
  const std::vector<SassLine>& scalar = parsed.functions.at("_ZN2wl14vec_add_scalarEPKfS1_Pfl");
  ASSERT_EQ(scalar.size(), 4u);
  EXPECT_EQ(scalar[0].line, 0);
  EXPECT_EQ(scalar[1].pc, 0x140u);
  EXPECT_EQ(scalar[1].text, "LDG.E R2, desc[UR4][R2.64]");
  EXPECT_EQ(scalar[1].file, "vec_add.cu");
  EXPECT_EQ(scalar[1].line, 21);
  EXPECT_EQ(scalar[2].text, "@!P0 LDG.E R5, desc[UR4][R4.64]");
  EXPECT_EQ(scalar[3].pc, 0x190u);
  EXPECT_EQ(scalar[3].line, 23);
  EXPECT_EQ(parsed.functions.at("_ZN2wl12vec_add_vec4EPK6float4S2_PS0_l").front().text, "EXIT");
}

} // namespace
} // namespace wl
