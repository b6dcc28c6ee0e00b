#pragma once
// Index math of the vec_add_3d family: a volume of nx × ny × nz floats stored x fastest, then y,
// then z, walked either as one flat 1D range or with 3D blocks.

#include "hd.h"

#include <cstdint>

namespace wl::vec_add_3d {

// Flat launch: thread t of block b handles element b * blockDim + t of the flattened volume.
WL_HD std::int64_t linear_element(int block, int block_dim, int thread) {
  return static_cast<std::int64_t>(block) * block_dim + thread;
}

// 3D launch, one axis at a time: the coordinate thread t of block b owns along that axis.
WL_HD int axis_coordinate(int block, int block_dim, int thread) {
  return block * block_dim + thread;
}

// Whether (x, y, z) lies in the volume: the last block along each axis may stick out.
WL_HD bool inside(int x, int y, int z, int nx, int ny, int nz) {
  return x < nx && y < ny && z < nz;
}

// Where (x, y, z) lives: x is the contiguous axis, so threads next to each other in x touch
// floats next to each other in memory, and a step in y jumps a whole row of nx floats.
WL_HD std::int64_t element_at(int x, int y, int z, int nx, int ny) {
  return (static_cast<std::int64_t>(z) * ny + y) * nx + x;
}

} // namespace wl::vec_add_3d
