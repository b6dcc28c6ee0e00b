#pragma once
// A tune's space, before anything runs: every point of a sweep grid (block shapes times the
// values of the kernel's tunables or parameters), each with what the model says of it on the
// preset (occupancy and its limiter, sectors and wavefronts per request, registers, the modelled
// time: the fastest its traffic and arithmetic allow at peak). A point the kernel refuses (a
// kernel file's `restrict`, a block the kernel does not allow, more shared memory than an SM
// has) stays in the space with the reason, so a tune says what it did not measure and why. The
// kernel's default launch is always a point: the winner is explained against it.

#include "model/sweep_grid.h"

#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace wl {

inline constexpr std::size_t kNoPoint = std::numeric_limits<std::size_t>::max();

struct TuneSpace {
  std::vector<SweepPoint> points; // the grid's, in its order, then the default where it had none
  std::vector<std::string> axes;  // the axes the points differ along ("block.x", "TILE")
  std::size_t default_point = kNoPoint;

  std::size_t valid() const; // the points the kernel allows
};

// The grid a tune takes where it is given none: every block the kernel names (its default and
// presets) and 32 to 1024 threads in warps for a 1D kernel, or every power-of-two 2D block of at
// most 1024 threads for one whose default block is 2D; times every parameter with a list of
// choices (a kernel file's tunables, a matmul rung's blockings) but those `fixed`.
SweepGrid default_tune_grid(const KernelDesc& kernel, const BlockShape& default_block,
                            const std::vector<std::string>& fixed = {});

// The grid's points modelled on `arch` within `budget`, the kernel's default launch (its default
// block and parameters, `params` where they set one) added where the grid lacks it. Throws
// UsageError (param_sets') when the grid holds more than `max_points` points.
TuneSpace model_tune_space(const KernelDesc& kernel, const Params& params, const SweepGrid& grid,
                           const Params& default_params, const BlockShape& default_block,
                           const Arch& arch, ModelBudget budget, std::size_t max_points);

// A point's name in a cache and in messages: "block 16x16x1 PAD=1 TILE=32" (every parameter of
// the point, by name), the same for the same launch however the grid was written.
std::string tune_point_key(const SweepPoint& point);
// "block 16x16x1, PAD=1, TILE=32": the same with the values a person tuned alone (the axes).
std::string tune_point_label(const TuneSpace& space, const SweepPoint& point);

// The allowed points nearest `point`, a step being one value along one axis (the next smaller or
// larger value the axis takes in the space): one step away where the space allows such points,
// else the fewest steps (axes that move together, such as a tile and the block it sets). Where a
// local search looks next.
// `passed_over` (where given) says which points not to count: the tried ones, so the search
// reaches further once the nearest are measured.
std::vector<std::size_t> tune_neighbours(const TuneSpace& space, std::size_t point,
                                         const std::function<bool(std::size_t)>& passed_over = {});

} // namespace wl
