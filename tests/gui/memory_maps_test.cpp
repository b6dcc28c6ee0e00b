// The memory maps agree with the access model: the warp map of coalescing/stride at strides 1, 2
// and 32, the chosen warp kept inside the launch, and the bank grid's default site being the one a
// lesson is about.

#include "gui_test_support.h"
#include "model/launch_model.h"
#include "registry.h"
#include "workflows/memory_maps.h"

namespace wl::viz {
namespace {

WarpMap stride_map(int stride) {
  const KernelRequest r =
      resolve_kernel_request("coalescing/stride", {"stride=" + std::to_string(stride)}, "", "256");
  const LaunchShape launch = make_launch(*r.kernel, r.params, r.block, 132);
  MapChoice choice;
  const std::optional<ChosenWarp> warp =
      choose_warp(*r.kernel, launch, LaunchPrediction{}, MemorySpace::global, choice);
  EXPECT_TRUE(warp);
  EXPECT_EQ(r.kernel->sites[warp->site].name, "load in (strided)")
      << "the wasteful site comes first";
  return global_warp_map(warp->access);
}

int sectors_fetched(const WarpMap& map) {
  int n = 0;
  for (const auto& line : map.sectors)
    for (const SectorCell& cell : line)
      n += cell.fetched;
  return n;
}

int bytes_used(const WarpMap& map) {
  int n = 0;
  for (const auto& line : map.sectors)
    for (const SectorCell& cell : line)
      n += cell.bytes_used;
  return n;
}

TEST(WarpMap, StridesOneTwoAndThirtyTwoTouchFourEightAndThirtyTwoSectors) {
  const struct { int stride, lines, sectors; } cases[] = {{1, 1, 4}, {2, 2, 8}, {32, 32, 32}};
  for (const auto& c : cases) {
    const WarpMap map = stride_map(c.stride);
    EXPECT_EQ(static_cast<int>(map.lines.size()), c.lines) << c.stride;
    EXPECT_EQ(sectors_fetched(map), c.sectors) << c.stride;
    EXPECT_EQ(map.access.sectors, c.sectors) << "the map draws what the model counts";
    EXPECT_EQ(bytes_used(map), 128) << "32 lanes x 4 bytes, whatever the stride";
    EXPECT_EQ(map.access.bytes_fetched, 32 * c.sectors);
    EXPECT_EQ(map.lanes.size(), 32u);
  }
}

TEST(WarpMap, EachLaneSitsOnItsOwnBytes) {
  const WarpMap map = stride_map(2);
  for (const LaneMark& mark : map.lanes) {
    EXPECT_EQ(mark.width, 4);
    EXPECT_EQ(map.lines[mark.row] * 128 + mark.offset, map.lines[0] * 128 + 8 * mark.lane)
        << mark.lane;
  }
}

TEST(MapChoice, AChoiceOutsideTheLaunchIsBroughtIntoRange) {
  const KernelRequest r = resolve_kernel_request("transpose/smem", {}, "", "");
  const LaunchShape launch = make_launch(*r.kernel, r.params, r.block, 132);
  MapChoice choice{0, {1 << 20, -5, 7}, 999, 1 << 30};
  const std::optional<ChosenWarp> warp =
      choose_warp(*r.kernel, launch, LaunchPrediction{}, MemorySpace::shared, choice);
  ASSERT_TRUE(warp);
  EXPECT_EQ(choice.block[0], launch.grid.x - 1);
  EXPECT_EQ(choice.block[1], 0);
  EXPECT_EQ(choice.block[2], 0);
  EXPECT_EQ(choice.warp, warp->warps - 1);
  EXPECT_EQ(choice.iteration, warp->iterations - 1);
}

TEST(MapChoice, TheBankGridOpensOnTheConflictingSiteAndPaddingDissolvesIt) {
  for (const auto& [kernel, degree] :
       {std::pair{"transpose/smem", 32}, std::pair{"transpose/smem_padded", 1}}) {
    const KernelRequest r = resolve_kernel_request(kernel, {}, "", "");
    const LaunchShape launch = make_launch(*r.kernel, r.params, r.block, 132);
    MapChoice choice;
    const std::optional<ChosenWarp> warp =
        choose_warp(*r.kernel, launch, LaunchPrediction{}, MemorySpace::shared, choice);
    ASSERT_TRUE(warp);
    EXPECT_EQ(r.kernel->sites[warp->site].name, "load tile")
        << kernel << ": the column read, padded or not";
    EXPECT_EQ(analyse_shared(warp->access).conflict_degree, degree) << kernel;
  }
}

TEST(MapChoice, AKernelWithoutSharedMemoryHasNoBankGrid) {
  const KernelRequest r = resolve_kernel_request("vec_add/scalar", {}, "", "");
  const LaunchShape launch = make_launch(*r.kernel, r.params, r.block, 132);
  MapChoice choice;
  EXPECT_FALSE(choose_warp(*r.kernel, launch, LaunchPrediction{}, MemorySpace::shared, choice));
}

} // namespace
} // namespace wl::viz
