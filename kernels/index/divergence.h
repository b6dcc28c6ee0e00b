#pragma once
// Index math of the divergence family: one element per thread, and which elements take the
// expensive path. Both variants send exactly as many elements down each path (for n a multiple of
// 64); they differ only in how those elements are spread over warps.

#include "hd.h"

#include <cstdint>

namespace wl::divergence {

// Thread t of block b handles element b * blockDim + t.
WL_HD std::int64_t element(int block, int block_dim, int thread) {
  return static_cast<std::int64_t>(block) * block_dim + thread;
}

// per_thread: the input is positive on even elements and negative on odd ones (the init writes
// it so), and the kernel branches on the sign it reads: every warp has 16 lanes on each path.
WL_HD bool positive_input(std::int64_t element) { return element % 2 == 0; }

// per_warp: elements 32k .. 32k+31 form warp k of the grid (blocks are a multiple of 32
// threads), and the kernel branches on that warp index: even warps all take the expensive path.
WL_HD std::int64_t grid_warp(std::int64_t element) { return element / 32; }
WL_HD bool warp_takes_expensive_path(std::int64_t element) { return grid_warp(element) % 2 == 0; }

} // namespace wl::divergence
