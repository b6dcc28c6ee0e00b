#include "workflows/memory_maps.h"

#include "model/launch_model.h"

#include <algorithm>
#include <map>
#include <set>

namespace wl::viz {

WarpMap global_warp_map(const WarpAccess& access) {
  WarpMap map;
  map.access = analyse_global(access); // validates width and alignment first
  std::map<std::uint64_t, std::set<std::uint64_t>> bytes_by_line;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!access.active(lane))
      continue;
    for (int b = 0; b < access.width; ++b) {
      const std::uint64_t byte = access.address[lane] + static_cast<std::uint64_t>(b);
      bytes_by_line[byte / kLineBytes].insert(byte);
    }
  }
  for (const auto& [line, bytes] : bytes_by_line) {
    map.lines.push_back(line);
    std::array<SectorCell, 4> cells{};
    for (std::uint64_t byte : bytes) {
      SectorCell& cell = cells[(byte % kLineBytes) / kSectorBytes];
      cell.fetched = true;
      ++cell.bytes_used;
    }
    map.sectors.push_back(cells);
  }
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!access.active(lane))
      continue;
    const std::uint64_t line = access.address[lane] / kLineBytes;
    const int row = static_cast<int>(std::lower_bound(map.lines.begin(), map.lines.end(), line) -
                                     map.lines.begin());
    map.lanes.push_back(
        {lane, row, static_cast<int>(access.address[lane] % kLineBytes), access.width});
  }
  return map;
}

std::vector<int> sites_in(const std::vector<SiteView>& views, MemorySpace space) {
  std::vector<int> sites;
  for (int i = 0; i < static_cast<int>(views.size()); ++i)
    if (views[static_cast<std::size_t>(i)].space == space)
      sites.push_back(i);
  return sites;
}

namespace {

// The site (position in `sites`) whose first warp of the first block, first iteration, wastes the
// most, a load before a store when they waste alike: the one a lesson is about (transpose's
// column read, padded or not, rather than its row write).
int most_wasteful(const KernelDesc& kernel, const LaunchShape& launch,
                  const LaunchPrediction& prediction, const std::vector<SiteView>& views,
                  const std::vector<int>& sites, MemorySpace space, int sm) {
  int best = 0, worst_excess = -1;
  bool best_is_load = false;
  for (int i = 0; i < static_cast<int>(sites.size()); ++i) {
    const WarpAccess access =
        warp_access(kernel, launch, prediction, sites[i], Coord{0, 0, 0}, 0, 0, sm);
    if (access.active_mask == 0)
      continue;
    int excess = 0;
    if (space == MemorySpace::global) {
      const GlobalAccess a = analyse_global(access);
      excess = a.sectors - a.ideal_sectors;
    } else {
      excess = analyse_shared(access).excess_wavefronts;
    }
    const bool load = views[static_cast<std::size_t>(sites[i])].op == AccessOp::load;
    if (excess > worst_excess || (excess == worst_excess && load && !best_is_load)) {
      worst_excess = excess;
      best = i;
      best_is_load = load;
    }
  }
  return best;
}

} // namespace

std::optional<ChosenWarp> choose_warp(const KernelDesc& kernel, const LaunchShape& launch,
                                      const LaunchPrediction& prediction, MemorySpace space,
                                      MapChoice& choice, int sm) {
  const std::vector<SiteView> views = site_views(kernel, launch, prediction);
  const std::vector<int> sites = sites_in(views, space);
  if (sites.empty())
    return std::nullopt;
  ChosenWarp chosen;
  if (choice.site < 0)
    choice.site = most_wasteful(kernel, launch, prediction, views, sites, space, sm);
  choice.site = std::clamp(choice.site, 0, static_cast<int>(sites.size()) - 1);
  chosen.site = sites[static_cast<std::size_t>(choice.site)];
  const BlockShape grid = launch.grid;
  const std::array<int, 3> sides{grid.x, grid.y, grid.z};
  for (int d = 0; d < 3; ++d)
    choice.block[d] = std::clamp(choice.block[d], 0, std::max(1, sides[d]) - 1);
  chosen.block = Coord{choice.block[0], choice.block[1], choice.block[2]};
  chosen.warps = static_cast<int>((launch.block.threads() + kWarpSize - 1) / kWarpSize);
  choice.warp = std::clamp(choice.warp, 0, chosen.warps - 1);
  chosen.warp = choice.warp;
  chosen.iterations = views[static_cast<std::size_t>(chosen.site)].iterations;
  choice.iteration = std::clamp<std::int64_t>(choice.iteration, 0, chosen.iterations - 1);
  chosen.iteration = choice.iteration;
  chosen.access = warp_access(kernel, launch, prediction, chosen.site, chosen.block, chosen.warp,
                              chosen.iteration, sm);
  return chosen;
}

} // namespace wl::viz
