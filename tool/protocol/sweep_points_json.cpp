#include "protocol/sweep_points_json.h"

#include "base/error.h"
#include "base/json_fields.h"
#include "base/json_input.h"
#include "protocol/run_result_json.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace wl {

nlohmann::json sweep_points_to_json(const std::vector<SweepPoint>& points) {
  nlohmann::json list = nlohmann::json::array();
  for (const SweepPoint& p : points)
    list.push_back(p.result ? run_result_to_json(*p.result)
                            : nlohmann::json{{"block", {p.block.x, p.block.y, p.block.z}},
                                             {"params", p.params},
                                             {"refused", p.refused}});
  return list;
}

std::vector<SweepPoint> sweep_points_from_json(const nlohmann::json& list, const std::string& where,
                                               std::size_t max_points) {
  if (!list.is_array() || list.empty() || list.size() > max_points)
    input_error(where, "", describe(list) + " is not a sweep",
                "allowed a list of 1 to " + std::to_string(max_points) +
                    " points, as warplens sweep --json writes");
  std::vector<SweepPoint> points;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = (where.empty() ? "" : where + ": ") + "[" + std::to_string(i) + "]";
    if (list[i].is_object() && list[i].contains("refused")) {
      const Fields entry(list[i], at);
      const std::vector<std::int64_t> b = entry.integers("block", 3, 3, 1, kMaxInt);
      SweepPoint point{
          BlockShape{static_cast<int>(b[0]), static_cast<int>(b[1]), static_cast<int>(b[2])},
          entry.text("refused"),
          std::nullopt,
          {}};
      if (entry.has("params")) // files written before sweeps had parameter axes lack it
        point.params = entry.integer_map("params", kMinInt64, kMaxInt64);
      points.push_back(std::move(point));
      continue;
    }
    RunResult result = run_result_from_json(list[i], at);
    const BlockShape block = result.launch.block;
    Params params = result.params;
    points.push_back({block, "", std::move(result), std::move(params)});
  }
  // A refused point of a file from before parameter axes has no parameters; such sweeps had one
  // set, that of their measured points.
  const auto measured = std::find_if(points.begin(), points.end(),
                                     [](const SweepPoint& p) { return p.result.has_value(); });
  if (measured != points.end())
    for (SweepPoint& p : points)
      if (p.params.empty())
        p.params = measured->params;
  return points;
}

} // namespace wl
