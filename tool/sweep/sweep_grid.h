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

// Every point of the grid from the models alone, on `arch` (no GPU): occupancy and the predicted
// traffic, each point within `budget`. A point the kernel or the arch does not allow is refused
// with the reason; the grid is counted first (param_sets' `max_points`).
std::vector<SweepPoint> model_sweep_points(const KernelDesc& kernel, const Params& params,
                                           const SweepGrid& grid, const Arch& arch,
                                           ModelBudget budget,
                                           std::size_t max_points = kMaxSweepShapes);

// The points as the worker sends them and `warplens sweep --json` writes them under "points": an
// array with each point's result (run_json) or {"block", "params", "refused"}. Reading checks every
// key and throws UsageError "WHERE: [3]: KEY: what is wrong; what is allowed"; a list of more
// than `max_points` (a sweep file's bound is smaller than a worker's) names the bound.
nlohmann::json sweep_points_to_json(const std::vector<SweepPoint>& points);
std::vector<SweepPoint> sweep_points_from_json(const nlohmann::json& list,
                                               const std::string& where = "",
                                               std::size_t max_points = kMaxSweepShapesLimit);

// A sweep file: {"kernel", "axes": [{"name", "values"}] (those that vary), "points"}, and
// "against" or "per_device" (sweep_compare.h). Reading takes that or a bare points array (as files
// written before the axes were), and refuses any other key. Its points must be launches the
// kernel allows, each once, measured on one GPU (per_device keeps other GPUs' series apart), each
// a result a GPU can produce (answer_check.h), and its axes' values the ones its points have: a
// refusal names the point.
nlohmann::json sweep_file_json(const std::string& kernel_id, const std::vector<SweepPoint>& points);
std::vector<SweepPoint> sweep_file_points(const nlohmann::json& file, const std::string& where);

// What a sweep file may hold: at most kMaxJsonFileBytes (64 MiB, about 13,000 measured points of
// about 5 KiB each) and no list of more than this many items (its points; 65,536 refused points
// take about 4 MiB). Both are checked before the file is parsed whole.
inline constexpr std::size_t kMaxSweepFilePoints = std::size_t{1} << 16;
// A sweep file parsed under those bounds; throws UsageError naming the file.
nlohmann::json read_sweep_file(const std::filesystem::path& file);

// One row per point. Columns: the shape, each parameter (every point's, by name), status ("ran",
// "modelled" for a point with no timing, or "refused") and reason, the device it ran on (a
// per-device sweep's rows of several GPUs tell apart by it), our derived figures, then each
// collected counter under its CUPTI (ncu) metric name, then the model's predictions.
std::string sweep_csv(const std::vector<SweepPoint>& points);

} // namespace wl
