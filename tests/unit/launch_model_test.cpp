// The launch-wide access model, on vec_add: exact sums, sampled estimates, and warp addresses.

#include "kernel_test_support.h"
#include "model/launch_model.h"
#include "registry.h"

#include <gtest/gtest.h>

namespace wl {
namespace {

using test::kernel;
using test::predict;
using test::site;

TEST(LaunchModel, ScalarVectorAddIsFourSectorsPerRequest) {
  const KernelDesc& k = kernel("vec_add/scalar");
  const LaunchShape launch = make_launch(k, {{"n", 1 << 24}}, BlockShape{256, 1, 1}, 132);
  EXPECT_EQ(launch.grid.x, 65536);
  const LaunchPrediction p = predict_launch(k, launch);
  ASSERT_EQ(p.sites.size(), 3u);
  for (const SitePrediction& site : p.sites) {
    EXPECT_EQ(site.requests, (1 << 24) / 32) << site.name;
    EXPECT_EQ(site.sectors, (1 << 24) / 8) << site.name;
    EXPECT_DOUBLE_EQ(site.sectors_per_request(), 4.0) << site.name;
  }
}

TEST(LaunchModel, SampledEstimateMatchesFullEnumerationWithATail) {
  const KernelDesc& k = kernel("vec_add/scalar");
  // 1,000,003 elements: the last block and the last warp are partial.
  const LaunchShape launch = make_launch(k, {{"n", 1000003}}, BlockShape{96, 1, 1}, 132);
  const LaunchPrediction exact = predict_launch(k, launch, ModelBudget{0});
  const LaunchPrediction sampled = predict_launch(k, launch, ModelBudget{2000});
  EXPECT_TRUE(exact.exact());
  EXPECT_FALSE(sampled.exact());
  for (std::size_t s = 0; s < exact.sites.size(); ++s) {
    EXPECT_EQ(sampled.sites[s].requests, exact.sites[s].requests);
    EXPECT_EQ(sampled.sites[s].sectors, exact.sites[s].sectors);
  }
  EXPECT_EQ(exact.sites[0].requests,
            31251); // ceil(1000003 / 32): 96-thread blocks hold whole warps
  EXPECT_EQ(exact.sites[0].sectors, 125001); // ceil(1000003 * 4 / 32)
}

// A tree reduction's steps differ wildly (all 8 warps active in the first steps, one in the
// last), so a sample must take every step: it then matches the exact count per site.
TEST(LaunchModel, SampledTreeReductionMatchesFullEnumeration) {
  const KernelDesc& k = kernel("reduce_sum/interleaved");
  const LaunchShape launch =
      make_launch(k, {{"n", 1 << 20}, {"chunk", 1024}}, BlockShape{256, 1, 1}, 132);
  const LaunchPrediction exact = predict_launch(k, launch, ModelBudget{0});
  const LaunchPrediction sampled = predict_launch(k, launch, ModelBudget{3000});
  EXPECT_FALSE(sampled.exact());
  for (std::size_t s = 0; s < exact.sites.size(); ++s) {
    EXPECT_EQ(sampled.sites[s].requests, exact.sites[s].requests) << exact.sites[s].name;
    EXPECT_EQ(sampled.sites[s].wavefronts, exact.sites[s].wavefronts) << exact.sites[s].name;
  }
  EXPECT_EQ(site(exact, "tree load target").requests, 47 * 1024); // 8+8+8+8+8+4+2+1 warps per block
}

TEST(LaunchModel, GridStrideLoopCountsEveryIteration) {
  const KernelDesc& k = kernel("vec_add/grid_stride");
  const LaunchShape launch = make_launch(k, {{"n", 1 << 24}}, BlockShape{256, 1, 1}, 132);
  EXPECT_EQ(launch.grid.x, 132 * 8); // 2048 resident threads per SM
  const LaunchPrediction p = predict_launch(k, launch, ModelBudget{0});
  EXPECT_EQ(p.sites[0].requests, (1 << 22) / 32); // float4s / lanes per warp
  EXPECT_DOUBLE_EQ(p.sites[0].sectors_per_request(), 16.0);
}

TEST(LaunchModel, WarpAccessGivesTheKernelsLaneAddresses) {
  const KernelDesc& k = kernel("vec_add/vec4");
  const LaunchShape launch = make_launch(k, {{"n", 4096}}, BlockShape{128, 1, 1}, 132);
  const WarpAccess a = warp_access(k, launch, 0, Coord{2, 0, 0}, 1, 0);
  EXPECT_EQ(a.width, 16);
  EXPECT_EQ(a.active_mask, 0xffffffffu);
  EXPECT_EQ(a.address[1] - a.address[0], 16u);
  EXPECT_EQ(a.address[0] % 256, 0u);
  EXPECT_EQ((a.address[0] % (std::uint64_t{1} << 36)) / 16,
            2u * 128 + 32); // block 2, warp 1, lane 0
}

} // namespace
} // namespace wl
