#pragma once
// Index math of the broadcast_add family: out(x, y, z) = a(x, y, z) + b(x, y) + c(x), every array
// stored x fastest. a and out are nx × ny × nz volumes, b one nx × ny plane shared by every z,
// c one row of nx floats shared by every y and z.

#include "hd.h"

#include <cstdint>

namespace wl::broadcast_add {

// The coordinate thread t of block b owns along one axis of the 3D launch.
WL_HD int axis_coordinate(int block, int block_dim, int thread) {
  return block * block_dim + thread;
}

// Whether (x, y, z) lies in the volume: the last block along each axis may stick out.
WL_HD bool inside(int x, int y, int z, int nx, int ny, int nz) {
  return x < nx && y < ny && z < nz;
}

// a and out: rows of nx floats, planes of ny rows.
WL_HD std::int64_t volume_element(int x, int y, int z, int nx, int ny) {
  return (static_cast<std::int64_t>(z) * ny + y) * nx + x;
}

// b: the same plane for every z, so threads that differ only in z read the same float.
WL_HD std::int64_t plane_element(int x, int y, int nx) {
  return static_cast<std::int64_t>(y) * nx + x;
}

// c: the same row for every y and z.
WL_HD std::int64_t row_element(int x) { return x; }

} // namespace wl::broadcast_add
