#include "tune/tune_space.h"

#include "model/block_text.h"

#include <algorithm>

namespace wl {

namespace {

bool same_block(const BlockShape& a, const BlockShape& b) {
  return a.x == b.x && a.y == b.y && a.z == b.z;
}

std::vector<std::string> param_order(const KernelDesc& kernel) {
  std::vector<std::string> names;
  for (const ParamSpec& spec : kernel.params)
    names.push_back(spec.name);
  return names;
}

} // namespace

SweepGrid default_tune_grid(const KernelDesc& kernel, const BlockShape& default_block,
                            const std::vector<std::string>& fixed) {
  SweepGrid grid;
  const auto add = [&](const BlockShape& b) {
    if (std::none_of(grid.shapes.begin(), grid.shapes.end(),
                     [&](const BlockShape& s) { return same_block(s, b); }))
      grid.shapes.push_back(b);
  };
  if (default_block.y == 1 && default_block.z == 1) {
    for (int x = 32; x <= 1024; x += 32)
      add({x, 1, 1});
  } else {
    for (int y = 1; y <= 1024; y *= 2)
      for (int x = 1; x * y <= 1024; x *= 2)
        add({x, y, 1});
  }
  add(default_block);
  for (const BlockShape& preset : kernel.block_presets)
    add(preset);
  for (const ParamSpec& spec : kernel.params)
    if (!spec.is_size && spec.choices.size() > 1 &&
        std::find(fixed.begin(), fixed.end(), spec.name) == fixed.end())
      grid.param_axes.push_back({spec.name, spec.choices});
  return grid;
}

std::size_t TuneSpace::valid() const {
  return static_cast<std::size_t>(std::count_if(
      points.begin(), points.end(), [](const SweepPoint& p) { return p.refused.empty(); }));
}

TuneSpace model_tune_space(const KernelDesc& kernel, const Params& params, const SweepGrid& grid,
                           const Params& default_params, const BlockShape& default_block,
                           const Arch& arch, ModelBudget budget, std::size_t max_points) {
  TuneSpace space;
  space.points = model_sweep_points(kernel, params, grid, arch, budget, max_points);
  const auto is_default = [&](const SweepPoint& p) {
    return same_block(p.block, default_block) && p.params == default_params;
  };
  const auto found = std::find_if(space.points.begin(), space.points.end(), is_default);
  if (found == space.points.end())
    space.points.push_back(model_sweep_point(kernel, default_params, default_block, arch, budget));
  space.default_point = static_cast<std::size_t>(
      std::find_if(space.points.begin(), space.points.end(), is_default) - space.points.begin());
  space.axes = varying_axes(space.points, param_order(kernel));
  return space;
}

std::string tune_point_key(const SweepPoint& point) {
  std::string key = "block " + std::to_string(point.block.x) + "x" + std::to_string(point.block.y) +
                    "x" + std::to_string(point.block.z);
  for (const auto& [name, value] : point.params) // a map: by name, whatever the grid's order
    key += " " + name + "=" + std::to_string(value);
  return key;
}

std::string tune_point_label(const TuneSpace& space, const SweepPoint& point) {
  std::string label = "block " + format_block(point.block);
  for (const std::string& axis : space.axes)
    if (!axis.starts_with("block."))
      label += ", " + axis + "=" + std::to_string(axis_value(point, axis));
  return label;
}

std::vector<std::size_t> tune_neighbours(const TuneSpace& space, std::size_t point,
                                         const std::function<bool(std::size_t)>& passed_over) {
  // Each point's position along each axis, as an index into the values the axis takes: a step
  // is one index along one axis, so the distance between two points is the steps between them.
  std::vector<std::vector<std::int64_t>> values;
  for (const std::string& axis : space.axes)
    values.push_back(axis_values(space.points, axis));
  const auto steps = [&](const SweepPoint& a, const SweepPoint& b) {
    std::ptrdiff_t total = 0;
    for (std::size_t i = 0; i < space.axes.size(); ++i) {
      const auto at = [&](const SweepPoint& p) {
        return std::lower_bound(values[i].begin(), values[i].end(), axis_value(p, space.axes[i])) -
               values[i].begin();
      };
      total += std::abs(at(a) - at(b));
    }
    return total;
  };
  // The nearest allowed points: one step away where the space has such, else as few as its
  // allowed points are (two axes that move together, such as a tile and the block it sets).
  std::vector<std::size_t> nearest;
  std::ptrdiff_t least = 0;
  const SweepPoint& from = space.points.at(point);
  for (std::size_t i = 0; i < space.points.size(); ++i) {
    if (i == point || !space.points[i].refused.empty() || (passed_over && passed_over(i)))
      continue;
    const std::ptrdiff_t d = steps(from, space.points[i]);
    if (d == 0)
      continue;
    if (nearest.empty() || d < least) {
      nearest.clear();
      least = d;
    }
    if (d == least)
      nearest.push_back(i);
  }
  return nearest;
}

} // namespace wl
