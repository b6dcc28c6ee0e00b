#include "base/error.h"
#include "model/occupancy.h"
#include "test_support.h"

#include <gtest/gtest.h>

namespace wl {
namespace {

OccupancyRequest launch(int threads, int regs, std::int64_t dynamic_smem = 0) {
  OccupancyRequest request;
  request.block = BlockShape{threads, 1, 1};
  request.registers_per_thread = regs;
  request.dynamic_smem = dynamic_smem;
  return request;
}

struct WorkedExample {
  int threads, regs;
  std::int64_t dynamic_smem;
  int blocks;
  double occupancy;
  std::vector<Resource> limiters;
};

// The H100 examples computed with CUDA 13.0's cuda_occupancy.h (shared/reference/counters.md §9).
TEST(Occupancy, H100WorkedExamples) {
  const Arch h100 = test::preset("h100");
  const WorkedExample examples[] = {
      {256, 32, 0, 8, 1.0, {Resource::warps, Resource::registers}},
      {256, 64, 0, 4, 0.5, {Resource::registers}},
      {256, 128, 0, 2, 0.25, {Resource::registers}},
      {256, 255, 0, 1, 0.125, {Resource::registers}},
      {128, 32, 48 * 1024, 4, 0.25, {Resource::shared_memory}},
      {32, 32, 0, 32, 0.5, {Resource::blocks}},
      {96, 40, 0, 16, 0.75, {Resource::registers}},
  };
  for (const WorkedExample& e : examples) {
    const OccupancyResult r = compute_occupancy(h100, launch(e.threads, e.regs, e.dynamic_smem));
    SCOPED_TRACE(testing::Message()
                 << e.threads << " threads, " << e.regs << " regs, " << e.dynamic_smem << " B");
    EXPECT_EQ(r.blocks_per_sm, e.blocks);
    EXPECT_DOUBLE_EQ(r.occupancy, e.occupancy);
    EXPECT_EQ(r.limiters, e.limiters);
  }
}

TEST(Occupancy, ReportsAllocationsAndEveryLimit) {
  const Arch h100 = test::preset("h100");
  const OccupancyResult small = compute_occupancy(h100, launch(128, 32, 48 * 1024));
  EXPECT_EQ(small.allocated_shared_memory_per_block, 50176); // 48 KiB + 1 KiB reserved
  const OccupancyResult regs = compute_occupancy(h100, launch(96, 40));
  EXPECT_EQ(regs.allocated_registers_per_block, 3840);
  // Even a kernel with no shared memory allocates the reserved 1 KiB per block.
  const OccupancyResult none = compute_occupancy(h100, launch(256, 32));
  EXPECT_EQ(none.limit(Resource::shared_memory), 228);
  EXPECT_EQ(none.limit(Resource::warps), 8);
  EXPECT_EQ(none.limit(Resource::blocks), 32);
  EXPECT_EQ(none.limit(Resource::barriers), 64);
  EXPECT_EQ(none.warps_per_sm, 64);
}

TEST(Occupancy, ExplanationSaysWhatWouldFitOneMoreBlock) {
  const Arch h100 = test::preset("h100");
  EXPECT_EQ(compute_occupancy(h100, launch(256, 64)).explanation,
            "Registers limit this to 4 blocks per SM (50 % occupancy); at 48 registers per thread "
            "5 blocks "
            "would fit.");
  EXPECT_EQ(compute_occupancy(h100, launch(32, 32)).explanation,
            "The limit of 32 blocks per SM caps this to 32 blocks per SM (50 % occupancy); blocks "
            "of 64 threads "
            "or more would fill the SM.");
  EXPECT_EQ(compute_occupancy(h100, launch(256, 32)).explanation,
            "Warps and registers both limit this to 8 blocks per SM (100 % occupancy).");
  EXPECT_NE(compute_occupancy(h100, launch(128, 32, 48 * 1024))
                .explanation.find("Shared memory limits this to 4"),
            std::string::npos);
  EXPECT_NE(compute_occupancy(h100, launch(768, 16)).explanation.find("48 of 64 warp slots"),
            std::string::npos);
}

TEST(Occupancy, ABlockThatFitsNoSmIsAResultNotAnError) {
  const Arch h100 = test::preset("h100");
  const OccupancyResult r = compute_occupancy(h100, launch(1024, 255));
  EXPECT_EQ(r.blocks_per_sm, 0);
  EXPECT_EQ(r.occupancy, 0.0);
  EXPECT_NE(r.explanation.find("cannot run"), std::string::npos);
}

TEST(Occupancy, WavesAndTheLastWaveFill) {
  const Arch h100 = test::preset("h100");
  OccupancyRequest request = launch(256, 64);
  request.grid_blocks = 1000;
  const OccupancyResult r = compute_occupancy(h100, request);
  ASSERT_TRUE(r.waves);
  EXPECT_EQ(r.waves->blocks_per_wave, 528);
  EXPECT_EQ(r.waves->full_waves, 1);
  EXPECT_EQ(r.waves->tail_blocks, 472);
  EXPECT_NEAR(r.waves->waves, 1000.0 / 528, 1e-12);
}

TEST(Occupancy, CarveoutBelowTheNeedIsRaisedNotFailed) {
  const Arch h100 = test::preset("h100");
  OccupancyRequest request = launch(128, 32, 48 * 1024);
  request.carveout_percent = 0; // prefer L1: the driver still gives this block what it needs
  const OccupancyResult r = compute_occupancy(h100, request);
  EXPECT_EQ(r.blocks_per_sm, 1);
  EXPECT_GE(r.shared_memory_per_sm_configured, r.allocated_shared_memory_per_block);
}

TEST(Occupancy, BadInputNamesTheValueAndTheRange) {
  const Arch h100 = test::preset("h100");
  const auto message = [&](OccupancyRequest request) -> std::string {
    try {
      compute_occupancy(h100, request);
    } catch (const UsageError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(message(launch(256, 300)).find("300 is out of range; h100 allows 0 to 255"),
            std::string::npos);
  EXPECT_NE(message(launch(256, 32, 300000)).find("allowed 0 to 232448"), std::string::npos);
  EXPECT_NE(message(launch(2048, 32)).find("2048 threads"), std::string::npos);
  OccupancyRequest static_too_big = launch(256, 32);
  static_too_big.static_smem = 64 * 1024;
  EXPECT_NE(message(static_too_big).find("allows 0 to 49152 B"), std::string::npos);
  OccupancyRequest carveout = launch(256, 32);
  carveout.carveout_percent = 150;
  EXPECT_NE(message(carveout).find("carveout 150"), std::string::npos);
}

TEST(Occupancy, ImpactCurvesCoverEveryInput) {
  const Arch h100 = test::preset("h100");
  const ImpactCurves curves = impact_curves(h100, launch(256, 64));
  ASSERT_EQ(curves.block_size.size(), 32u);
  EXPECT_EQ(curves.block_size.front().x, 32);
  EXPECT_EQ(curves.block_size.back().x, 1024);
  ASSERT_EQ(curves.registers.size(), 255u);
  EXPECT_EQ(curves.registers[31].blocks_per_sm, 8); // 32 registers
  EXPECT_EQ(curves.registers[63].blocks_per_sm, 4); // 64 registers: the current point
  EXPECT_EQ(curves.registers[47].blocks_per_sm, 5); // 48 registers
  EXPECT_EQ(curves.shared_memory.front().x, 0);
  EXPECT_EQ(curves.shared_memory.back().x, 232448);
  for (const CurvePoint& p : curves.shared_memory)
    EXPECT_LE(p.blocks_per_sm, 4);
}

TEST(Occupancy, SuggestedBlockSizeAt32Registers) {
  EXPECT_EQ(suggested_block_size(test::preset("h100"), launch(256, 32)), 1024);
}

TEST(Occupancy, EveryPresetModels) {
  for (const char* id :
       {"t4", "a100", "rtx3090", "rtx4090", "l40s", "h100", "h200", "b200", "rtx5090"}) {
    const Arch arch = test::preset(id);
    const OccupancyResult r = compute_occupancy(arch, launch(256, 32));
    EXPECT_GT(r.blocks_per_sm, 0) << id;
    EXPECT_LE(r.warps_per_sm, arch.max_warps_per_sm()) << id;
  }
  // The T4 holds 1024 threads per SM: four 256-thread blocks fill it.
  EXPECT_EQ(compute_occupancy(test::preset("t4"), launch(256, 32)).blocks_per_sm, 4);
}

} // namespace
} // namespace wl
