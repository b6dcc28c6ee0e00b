#pragma once
// A block-shape sweep: one kernel and its parameters, many blocks. Buffers, inputs and the CPU
// reference are made once (KernelSession); each allowed shape then gets its verification,
// timing, occupancy and counters. Shapes the kernel does not allow are listed with the reason.

#include "engine.h"

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace wl {

// Shapes one sweep measures at most unless the user raises it (`warplens sweep --max-shapes`), and
// the most it may be raised to: each shape costs a model and a measurement.
inline constexpr std::size_t kMaxSweepShapes = 4096;
inline constexpr std::size_t kMaxSweepShapesLimit = 1 << 20;

// "32:1024:32" (start:end:step) or "8,16,32" or "64"; throws UsageError naming the bad text, and
// when the list would hold more than `max_sides` sides (counted before any is made).
std::vector<int> parse_side_list(const std::string& text, const std::string& option,
                                 std::size_t max_sides = kMaxSweepShapes);

// Every combination of the sides, x fastest. Throws UsageError, before making any, when there
// would be more than `max_shapes`.
std::vector<BlockShape> sweep_shapes(const std::vector<int>& xs, const std::vector<int>& ys,
                                     const std::vector<int>& zs,
                                     std::size_t max_shapes = kMaxSweepShapes);

struct SweepPoint {
  BlockShape block;
  std::string refused; // why the kernel does not allow this shape; empty when it ran
  std::optional<RunResult> result;
};

struct SweepRun {
  std::vector<SweepPoint> points;
  SessionSetup setup;       // the one-off cost: context, inputs, reference, upload, counters
  double shape_seconds = 0; // every shape after the set-up
};

// Calls `progress(index, total, point)` after each shape (for a progress line on stderr).
SweepRun run_sweep(const KernelDesc& kernel, const Params& params,
                   const std::vector<BlockShape>& shapes, const EngineOptions& options,
                   const std::function<void(int, int, const SweepPoint&)>& progress);

// Where a sweep's time went: "set-up 0.61 s (...); 32 shapes in 0.28 s, 8.8 ms each (...)".
std::string sweep_cost_summary(const SweepRun& run);

// The points as `warplens sweep --json` writes them and the worker sends them: an array with each
// shape's result (run_json) or {"block", "refused"}. Reading checks every key and throws
// UsageError "WHERE: [3]: KEY: what is wrong; what is allowed".
nlohmann::json sweep_points_to_json(const std::vector<SweepPoint>& points);
std::vector<SweepPoint> sweep_points_from_json(const nlohmann::json& list,
                                               const std::string& where = "");

// One row per shape. Columns: the shape, status ("ran", "modelled" for a point with no timing, or
// "refused") and reason, our derived figures, then each collected counter under its CUPTI (ncu)
// metric name, then the model's predictions.
std::string sweep_csv(const std::vector<SweepPoint>& points);

} // namespace wl
