// The roofline's arithmetic: the roofs of a preset, a launch's point from the kernel's FLOP count
// over its DRAM bytes (the counters' where a run has both directions, else the model's), and the
// verdict that names the roof over the point.

#include "model/model_kernel.h"
#include "report/counter_comparison.h"
#include "report/figures.h"
#include "report/roofline.h"
#include "test_support.h"

#include <gtest/gtest.h>

namespace wl {
namespace {

RunResult modelled(const std::string& id, const std::vector<std::string>& params = {}) {
  return model_kernel(resolve_kernel_request(id, params, "", ""), test::preset("h100"));
}

TEST(Roofline, TheH100sRoofsMeetAtTheRidge) {
  const RooflineCeilings roofs = roofline_ceilings(test::preset("h100"));
  EXPECT_DOUBLE_EQ(roofs.dram_gbps, 3352);
  EXPECT_NEAR(roofs.fp32_gflops, 66908, 1);
  EXPECT_NEAR(roofs.ridge(), 19.96, 0.01);
  EXPECT_DOUBLE_EQ(roofs.roof(1), 3352);               // under the DRAM roof
  EXPECT_NEAR(roofs.roof(1000), roofs.fp32_gflops, 1); // under the FP32 roof
}

TEST(Roofline, ALaunchIsPlacedByItsFlopsOverItsDramBytes) {
  RunResult result = modelled("matmul/tiled");
  std::optional<RooflinePoint> point = roofline_point(result);
  ASSERT_TRUE(point);
  EXPECT_EQ(point->bytes_source, "the model");
  EXPECT_DOUBLE_EQ(point->intensity(), result.flops / point->modelled_dram_bytes);
  EXPECT_FALSE(point->timed);
  EXPECT_TRUE(test::contains(roofline_verdict(*point, roofline_ceilings(result.arch)),
                             "not timed: the roof over it is"));
  // Counters of both directions replace the model's bytes; a timing places it in height.
  CounterResult counters;
  counters.available = true;
  for (const auto& [key, bytes] : {std::pair{"dram_read_bytes", 3e9}, {"dram_write_bytes", 1e9}}) {
    CounterValue value;
    value.key = key;
    value.value = bytes;
    counters.values.push_back(value);
  }
  result.counters = counters;
  TimingStats timing;
  timing.median_time = 10;
  result.timing = timing;
  point = roofline_point(result);
  ASSERT_TRUE(point);
  EXPECT_TRUE(point->bytes_measured);
  EXPECT_DOUBLE_EQ(point->dram_bytes, 4e9);
  EXPECT_DOUBLE_EQ(point->gflops, result.flops / 10e-3 / 1e9);
  const std::string verdict = roofline_verdict(*point, roofline_ceilings(result.arch));
  // 137 GFLOP over 4 GB of DRAM is past the ridge (34 FLOP/byte), but the model's 34 GB between
  // L1 and L2 (4 FLOP/byte at 7,660 GB/s) set a lower roof than the FP32 peak.
  EXPECT_TRUE(test::contains(verdict, "L2-bound")) << verdict;
}

// Untimed, a launch stands where the model puts it: at its FLOPs over the modelled time at peak,
// on the DRAM roof for vec_add (DRAM bounds it) and under it for a kernel bound by shared memory.
TEST(Roofline, AnUntimedLaunchStandsWhereTheModelPutsIt) {
  const RunResult add = modelled("vec_add/scalar");
  const RooflinePoint p = *roofline_point(add);
  const RooflineCeilings roofs = roofline_ceilings(add.arch);
  EXPECT_NEAR(p.modelled_gflops, roofs.roof(p.intensity()), 1e-6 * p.modelled_gflops);
  const RunResult conflicted = modelled("softmax/block_shared");
  const RooflinePoint q = *roofline_point(conflicted);
  EXPECT_DOUBLE_EQ(q.modelled_gflops, conflicted.flops / (modelled_time(conflicted)->ms() * 1e6));
  EXPECT_LE(q.modelled_gflops, roofs.roof(q.intensity()) * (1 + 1e-9));
}

TEST(Roofline, VectorAddIsMemoryBoundAndATransposeHasNoPlace) {
  const RunResult add = modelled("vec_add/scalar");
  const std::optional<RooflinePoint> point = roofline_point(add);
  ASSERT_TRUE(point);
  EXPECT_NEAR(point->intensity(), 1.0 / 12, 1e-3);
  RooflinePoint timed = *point;
  timed.timed = true;
  timed.gflops = 100;
  EXPECT_TRUE(test::contains(roofline_verdict(timed, roofline_ceilings(add.arch)),
                             "memory-bound: 0.08 FLOP per DRAM byte is below the ridge at 19.96"));
  std::string why;
  EXPECT_FALSE(roofline_point(modelled("transpose/naive"), &why));
  EXPECT_TRUE(test::contains(why, "does no floating-point arithmetic")) << why;
}

// An arch whose FP32 rate WarpLens knows no documented figure for has the DRAM roof alone, and
// says so rather than judging the launch against a guessed peak.
TEST(Roofline, AnArchWithoutADocumentedFp32RateHasTheDramRoofAlone) {
  Arch arch = test::preset("h100");
  arch.cc_major = 11;
  const RooflineCeilings roofs = roofline_ceilings(arch);
  EXPECT_EQ(roofs.fp32_gflops, 0);
  EXPECT_DOUBLE_EQ(roofs.roof(1000), 3352 * 1000.0);
  RooflinePoint point;
  point.flops = 1e9;
  point.dram_bytes = 1e6;
  point.timed = true;
  point.gflops = 10;
  EXPECT_TRUE(test::contains(roofline_verdict(point, roofs), "no documented FP32 rate"));
}

CounterResult counters_of(const std::vector<std::pair<const char*, double>>& values) {
  CounterResult counters;
  counters.available = true;
  for (const auto& [key, value] : values) {
    CounterValue v;
    v.key = key;
    v.value = value;
    counters.values.push_back(v);
  }
  return counters;
}

const ComparisonRow* row_of(const std::vector<ComparisonRow>& rows, const std::string& key) {
  for (const ComparisonRow& r : rows)
    if (r.key == key)
      return &r;
  return nullptr;
}

// The counters' FLOPs are FADD + FMUL + 2 x FFMA, set beside the kernel's count; a kernel whose
// compiled code does more says why in its own words.
TEST(Roofline, TheCountersFlopsStandBesideTheKernelsCount) {
  RunResult matmul = modelled("matmul/tiled");
  matmul.counters = counters_of({{"fp32_add_instructions", 0},
                                 {"fp32_mul_instructions", 0},
                                 {"fp32_fma_instructions", matmul.flops / 2}});
  const std::vector<ComparisonRow> matmul_rows = compare_counters(matmul);
  const ComparisonRow* flops = row_of(matmul_rows, "fp32_operations");
  ASSERT_NE(flops, nullptr);
  EXPECT_DOUBLE_EQ(flops->measured, matmul.flops);
  EXPECT_FALSE(flops->flagged);
  EXPECT_EQ(roofline_point(matmul)->measured_flops, matmul.flops);

  RunResult softmax = modelled("softmax/block_shared");
  softmax.counters = counters_of({{"fp32_add_instructions", softmax.flops},
                                  {"fp32_mul_instructions", softmax.flops},
                                  {"fp32_fma_instructions", softmax.flops}});
  const std::vector<ComparisonRow> softmax_rows = compare_counters(softmax);
  const ComparisonRow* more = row_of(softmax_rows, "fp32_operations");
  ASSERT_NE(more, nullptr);
  EXPECT_TRUE(more->flagged);
  EXPECT_TRUE(test::contains(more->reason, "4.00 times the kernel's count")) << more->reason;
  EXPECT_TRUE(test::contains(more->reason, "computes exp once an element")) << more->reason;
  // Without all three counters there is no measured count.
  softmax.counters = counters_of({{"fp32_add_instructions", 1}});
  EXPECT_EQ(row_of(compare_counters(softmax), "fp32_operations"), nullptr);
}

// DRAM bytes differ by direction, each with its reason: reads of a re-read buffer above the
// model's floor, writes L2 still held below it. A library call has no sites and no comparison.
TEST(Roofline, EachDirectionOfDramTrafficSaysWhyItDiffers) {
  RunResult add = modelled("vec_add/scalar"); // reads 128 MiB, writes 64 MiB in the model
  add.counters = counters_of({{"dram_read_bytes", 128.0 * (1 << 20)},
                              {"dram_write_bytes", 50.0 * (1 << 20)},
                              {"l2_read_sectors_from_l1", 4.0 * (1 << 20)},
                              {"l2_write_sectors_from_l1", 2.0 * (1 << 20)}});
  const std::vector<ComparisonRow> rows = compare_counters(add);
  const ComparisonRow* dram = row_of(rows, "dram_traffic");
  ASSERT_NE(dram, nullptr);
  EXPECT_TRUE(dram->flagged);
  EXPECT_FALSE(test::contains(dram->reason, "reads")) << dram->reason;
  EXPECT_TRUE(test::contains(dram->reason, "writes 50 MiB where the model has 64 MiB: what the "
                                           "kernel wrote last was still in L2"))
      << dram->reason;
  const ComparisonRow* l2 = row_of(rows, "l2_traffic");
  ASSERT_NE(l2, nullptr);
  EXPECT_FALSE(l2->flagged) << difference_text(*l2); // 6 Mi sectors of 32 bytes: the model's

  RunResult cublas = modelled("matmul/cublas");
  cublas.counters = counters_of({{"dram_read_bytes", 1e8}, {"dram_write_bytes", 1e8}});
  const std::vector<ComparisonRow> cublas_rows = compare_counters(cublas);
  const ComparisonRow* library = row_of(cublas_rows, "dram_traffic");
  ASSERT_NE(library, nullptr);
  EXPECT_FALSE(library->predicted);
  EXPECT_FALSE(library->flagged);
}

// Three roofs: a launch whose bytes through L2 set a lower roof than its DRAM bytes is L2-bound,
// and its point by L2 bytes is placed beside its point by DRAM bytes.
TEST(Roofline, TheLowestOfTheDramL2AndFp32RoofsIsOverTheLaunch) {
  RooflineCeilings roofs{3352, 8000, 66908};
  RooflinePoint point;
  point.flops = 1e9;
  point.dram_bytes = 1e7; // 100 FLOP/byte: DRAM roof 335,200, over the FP32 peak
  point.l2_bytes = 2e8;   // 5 FLOP/byte: L2 roof 40,000, the lowest
  point.timed = true;
  point.gflops = 20000;
  EXPECT_EQ(roofs.bound_by(point), "L2");
  EXPECT_DOUBLE_EQ(roofs.roof_over(point), 40000);
  EXPECT_TRUE(
      test::contains(roofline_verdict(point, roofs), "50.0 % of the roof over it (L2-bound"))
      << roofline_verdict(point, roofs);
  point.l2_bytes = 1e7; // 100 FLOP/byte by L2 too: the FP32 peak is lowest
  EXPECT_EQ(roofs.bound_by(point), "FP32");
  roofs.l2_gbps = 0; // unknown: the L2 roof is left out
  point.l2_bytes = 2e8;
  EXPECT_EQ(roofs.bound_by(point), "FP32");
  // A preset with an L2 figure gives a model-mode launch both points.
  const RunResult add = modelled("vec_add/scalar");
  const std::optional<RooflinePoint> modelled_point = roofline_point(add);
  ASSERT_TRUE(modelled_point);
  EXPECT_FALSE(modelled_point->l2_measured);
  EXPECT_NEAR(modelled_point->l2_intensity(), 1.0 / 12, 1e-3);
  EXPECT_GT(roofline_ceilings(add.arch).l2_gbps, roofline_ceilings(add.arch).dram_gbps);
}

} // namespace
} // namespace wl
