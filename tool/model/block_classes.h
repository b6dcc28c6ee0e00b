#pragma once
// A launch's blocks in classes by whether they are the last along x, y and z: the edge blocks are
// where guards cut warps short, so a sample never mixes them with interior ones. The bundled
// kernels' model and a kernel file's sample each class on its own and scale it by its count.

#include "kernel.h"

#include <array>
#include <cstdint>
#include <vector>

namespace wl {

// The launch's blocks split by whether they are the last along x, y and z: edge blocks are where
// guards cut warps short, so they are never mixed with interior ones when sampling.
struct BlockClass {
  std::array<int, 3> begin{}, end{}; // half-open ranges per axis

  std::int64_t count() const {
    return std::int64_t{end[0] - begin[0]} * (end[1] - begin[1]) * (end[2] - begin[2]);
  }
  Coord block(std::int64_t index) const {
    const int nx = end[0] - begin[0], ny = end[1] - begin[1];
    return Coord{begin[0] + static_cast<int>(index % nx),
                 begin[1] + static_cast<int>(index / nx % ny),
                 begin[2] + static_cast<int>(index / (std::int64_t{nx} * ny))};
  }
};

inline std::vector<BlockClass> block_classes(const BlockShape& grid) {
  const int sides[] = {grid.x, grid.y, grid.z};
  std::vector<BlockClass> classes;
  for (int edges = 0; edges < 8; ++edges) {
    BlockClass c;
    bool empty = false;
    for (int axis = 0; axis < 3; ++axis) {
      const bool last = (edges >> axis) & 1;
      c.begin[axis] = last ? sides[axis] - 1 : 0;
      c.end[axis] = last ? sides[axis] : sides[axis] - 1;
      empty = empty || c.end[axis] <= c.begin[axis];
    }
    if (!empty)
      classes.push_back(c);
  }
  return classes;
}

} // namespace wl
