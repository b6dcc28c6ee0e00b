#pragma once
// What the memory panels draw for one warp at one site, from the model alone (so it works with no
// GPU and redraws at once when stride, offset, width or the block shape change): the warp map of a
// global access (the 128-byte lines and 32-byte sectors its lanes touch, and the bytes used in
// each sector) and the warp the user picked (site, block, warp, loop iteration), kept in range.

#include "model/access.h"
#include "workflows/app.h"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace wl::viz {

struct SectorCell {
  bool fetched = false; // a lane touches it, so the whole 32 bytes come from L2
  int bytes_used = 0;   // distinct bytes the lanes asked for
};

struct LaneMark {
  int lane = 0;
  int row = 0;    // index into WarpMap::lines
  int offset = 0; // byte offset inside the 128-byte line
  int width = 4;  // bytes
};

struct WarpMap {
  std::vector<std::uint64_t> lines; // 128-byte line numbers touched (address / 128), ascending
  std::vector<std::array<SectorCell, 4>> sectors; // per line: its four sectors
  std::vector<LaneMark> lanes;                    // one per active lane
  GlobalAccess access;                            // the counts the access model gives
};

// Throws UsageError for a bad width or misaligned lane, as analyse_global does.
WarpMap global_warp_map(const WarpAccess& access);

// The indices of the launch's sites (site_views) in one memory space, in their order.
std::vector<int> sites_in(const std::vector<SiteView>& sites, MemorySpace space);

// The warp a map shows, its choice brought into range for this launch (site among the space's
// sites, block inside the grid, warp inside the block, iteration inside the site's loop), and its
// lane addresses. nullopt when the kernel has no site in that space.
struct ChosenWarp {
  int site = 0; // index into the launch's sites (site_views)
  Coord block;
  int warp = 0;
  std::int64_t iteration = 0;
  std::int64_t iterations = 1; // the site's loop count, for the widget's range
  int warps = 1;               // warps per block
  WarpAccess access;
};
// `prediction`: the launch's (a kernel file's sites are its lines the prediction found).
std::optional<ChosenWarp> choose_warp(const KernelDesc& kernel, const LaunchShape& launch,
                                      const LaunchPrediction& prediction, MemorySpace space,
                                      MapChoice& choice, int sm = 90);

// The index playground's model input from its fields as typed (panel_playground.cpp).
IndexPlayground playground_of(const PlaygroundChoice& choice);

} // namespace wl::viz
