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

// Whether the first block along each axis is a class of its own too: a kernel file's code may do
// something in block 0 alone ("the first block finishes up"), which a sample of the others would
// scale up as if every block did it. The bundled kernels' index math has no such branch.
enum class FirstBlocks : bool { with_the_rest, apart };

inline std::vector<BlockClass> block_classes(const BlockShape& grid,
                                             FirstBlocks first = FirstBlocks::with_the_rest) {
  // Each axis's ranges: [first], the middle, [last], where not empty and not the same block twice.
  std::array<std::vector<std::array<int, 2>>, 3> ranges;
  const int sides[] = {grid.x, grid.y, grid.z};
  for (int axis = 0; axis < 3; ++axis) {
    const int n = sides[axis];
    const int middle_begin = first == FirstBlocks::apart && n > 1 ? 1 : 0;
    if (middle_begin == 1)
      ranges[axis].push_back({0, 1});
    if (n - 1 > middle_begin)
      ranges[axis].push_back({middle_begin, n - 1});
    if (n >= 1)
      ranges[axis].push_back({n - 1, n});
  }
  std::vector<BlockClass> classes;
  for (const auto& z : ranges[2])
    for (const auto& y : ranges[1])
      for (const auto& x : ranges[0])
        classes.push_back(BlockClass{{x[0], y[0], z[0]}, {x[1], y[1], z[1]}});
  return classes;
}

} // namespace wl
