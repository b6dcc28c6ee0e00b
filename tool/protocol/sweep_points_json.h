#pragma once
// A sweep's points in JSON: what the worker sends and `warplens sweep --json` writes.

#include "model/sweep_grid.h"

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace wl {

// The points as the worker sends them and `warplens sweep --json` writes them under "points": an
// array with each point's result (run_json) or {"block", "params", "refused"}. Reading checks every
// key and throws UsageError "WHERE: [3]: KEY: what is wrong; what is allowed"; a list of more
// than `max_points` (a sweep file's bound is smaller than a worker's) names the bound.
nlohmann::json sweep_points_to_json(const std::vector<SweepPoint>& points);
std::vector<SweepPoint> sweep_points_from_json(const nlohmann::json& list,
                                               const std::string& where = "",
                                               std::size_t max_points = kMaxSweepShapesLimit);

} // namespace wl
