#pragma once
// A sweep kept in a file (JSON, checked whole when read back) and its table as CSV.

#include "model/sweep_grid.h"
#include "protocol/sweep_points_json.h"

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace wl {

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
// collected counter under its key (the figure table's, not its CUPTI metric's name), then the
// model's predictions.
std::string sweep_csv(const std::vector<SweepPoint>& points);

} // namespace wl
