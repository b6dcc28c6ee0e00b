#pragma once
// A sweep: one kernel over many block shapes and, optionally, many values of its parameters
// (stride 1 to 32, pad 0 to 32). Buffers, inputs and the CPU reference are made once per set of
// parameters (KernelSession); each allowed shape then gets its verification, timing, occupancy and
// counters. Points the kernel does not allow are listed with the reason.

#include "model/launch_model.h"
#include "model/run_result.h"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace wl {

// Points (shapes times parameter values) one sweep measures at most unless the user raises it
// (`warplens sweep --max-shapes`), and the most it may be raised to: each costs a model and a
// measurement.
inline constexpr std::size_t kMaxSweepShapes = 4096;
inline constexpr std::size_t kMaxSweepShapesLimit = 1 << 20;

// A sweep answers "which shape?": each point's model analyses a tenth of a single launch's
// warp-iterations (the figures per request are averages that settle long before).
inline constexpr ModelBudget kSweepModelBudget{3000};

// "32:1024:32" (start:end:step) or "8,16,32" or "64"; throws UsageError naming the bad text, and
// when the list would hold more than `max_sides` sides (counted before any is made).
std::vector<int> parse_side_list(const std::string& text, const std::string& option,
                                 std::size_t max_sides = kMaxSweepShapes);

// Every combination of the sides, x fastest. Throws UsageError, before making any, when there
// would be more than `max_shapes`.
std::vector<BlockShape> sweep_shapes(const std::vector<int>& xs, const std::vector<int>& ys,
                                     const std::vector<int>& zs,
                                     std::size_t max_shapes = kMaxSweepShapes);

// A kernel parameter swept, and its values in order.
struct ParamAxis {
  std::string name;
  std::vector<std::int64_t> values;
};

// "stride=1:32:1", "width=4,8,16" or "pad=0": a parameter of `kernel` and its values, each within
// the parameter's range and among its choices. Throws UsageError naming the option's text and what
// is allowed, and when there would be more than `max_values` values (counted before any is made).
ParamAxis parse_param_range(const KernelDesc& kernel, const std::string& text,
                            const std::string& option, std::size_t max_values = kMaxSweepShapes);

// The same for the values alone (the GUI's field beside the chosen parameter); `shown` leads every
// message ("stride values '0:9:1'").
ParamAxis parse_param_values(const KernelDesc& kernel, const std::string& name,
                             const std::string& values, const std::string& shown,
                             std::size_t max_values = kMaxSweepShapes);
// "stride 1 to 64", "width 4, 8, 16": what a parameter allows.
std::string param_allowed(const ParamSpec& spec);
// Values a first sweep of the parameter can use: its choices, its whole range when short
// (pad 0:32:1), else its first 32 values.
std::string default_param_values(const ParamSpec& spec);

// What one sweep covers: every shape for every combination of the swept parameters' values.
struct SweepGrid {
  std::vector<BlockShape> shapes;
  std::vector<ParamAxis> param_axes; // none: the parameters as given

  std::size_t points() const;
};

// The parameter sets of a grid, the first axis varying fastest; parameters no axis names keep
// their value in `params`. Throws UsageError, before making any, when the grid holds more than
// `max_points` points, or an axis names a parameter twice or one that `params` does not have.
std::vector<Params> param_sets(const Params& params, const SweepGrid& grid,
                               std::size_t max_points = kMaxSweepShapes);

struct SweepPoint {
  BlockShape block;
  std::string refused; // why the kernel does not allow this point; empty when it ran
  std::optional<RunResult> result;
  Params params = {}; // every parameter of the point, defaults filled in
};

// The value of a point along an axis: "block.x", "block.y", "block.z" or a parameter's name.
std::int64_t axis_value(const SweepPoint& point, const std::string& axis);
// The values the points take along an axis, smallest first, each once.
std::vector<std::int64_t> axis_values(const std::vector<SweepPoint>& points,
                                      const std::string& axis);
// Each value the same step from the one before (true for two values or fewer).
bool evenly_spaced(const std::vector<std::int64_t>& values);
// The axes along which the points differ, in the order block x, y, z, then the parameters in
// their declaration order in `params_order` (names not in it follow by name).
std::vector<std::string> varying_axes(const std::vector<SweepPoint>& points,
                                      const std::vector<std::string>& params_order = {});

// One launch from the models alone, on `arch`: its point with the model's result, or refused with
// the reason the kernel or the arch gives.
SweepPoint model_sweep_point(const KernelDesc& kernel, const Params& params,
                             const BlockShape& block, const Arch& arch, ModelBudget budget);

// Every point of the grid from the models alone, on `arch` (no GPU): occupancy and the predicted
// traffic, each point within `budget`. A point the kernel or the arch does not allow is refused
// with the reason; the grid is counted first (param_sets' `max_points`).
std::vector<SweepPoint> model_sweep_points(const KernelDesc& kernel, const Params& params,
                                           const SweepGrid& grid, const Arch& arch,
                                           ModelBudget budget,
                                           std::size_t max_points = kMaxSweepShapes);

} // namespace wl
