// The roofline's arithmetic: the roofs of a preset, a launch's point from the kernel's FLOP count
// over its DRAM bytes (the counters' where a run has both directions, else the model's), and the
// verdict that names the roof over the point.

#include "model/model_kernel.h"
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
  timing.median_ms = 10;
  result.timing = timing;
  point = roofline_point(result);
  ASSERT_TRUE(point);
  EXPECT_TRUE(point->bytes_measured);
  EXPECT_DOUBLE_EQ(point->dram_bytes, 4e9);
  EXPECT_DOUBLE_EQ(point->gflops, result.flops / 10e-3 / 1e9);
  const std::string verdict = roofline_verdict(*point, roofline_ceilings(result.arch));
  EXPECT_TRUE(test::contains(verdict, "compute-bound")) << verdict; // 137 GFLOP / 4 GB = 34
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
                             "memory-bound: 0.08 FLOP/byte is below the ridge at 19.96"));
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

} // namespace
} // namespace wl
