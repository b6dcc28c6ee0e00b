#include "model/sweep_grid.h"

#include "base/error.h"
#include "base/json_fields.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "model/arch.h"
#include "model/block_text.h"
#include "model/kernel_request.h"
#include "model/model_kernel.h"
#include "registry.h"

#include <algorithm>
#include <set>
#include <sstream>

// The parts of a sweep with no GPU in them: its shapes from the command line's side lists, its
// parameter values and its points from the models. In wl_core, so the GUI can make and export
// sweeps without the engine.

namespace wl {

namespace {

// One number of a list: `role` is "start", "end", "step", "side" or "value"; `shown` is the
// option and its whole text, so "--block '32:1024:0': the step '0' is below 1" says which number is
// wrong.
std::int64_t parse_number(const std::string& text, const std::string& role,
                          const std::string& shown, std::int64_t min, std::int64_t max) {
  const auto [value, problem] = read_whole_number(text);
  const std::string allowed =
      "; allowed whole numbers from " + std::to_string(min) + " to " + std::to_string(max);
  if (text.empty())
    throw UsageError(shown + ": a " + role + " is missing" + allowed);
  if (!problem.empty())
    throw UsageError(shown + ": the " + role + " '" + clip(text, 20) + "' " + problem + allowed);
  if (value < min || value > max)
    throw UsageError(shown + ": the " + role + " " + std::to_string(value) +
                     (value < min ? " is below " + std::to_string(min) : " is too large") +
                     allowed);
  return value;
}

// Said where the GUI sweeps too, which has no --max-shapes: the option is named with its command.
std::string too_many_hint(std::size_t max_shapes) {
  return "a sweep or tune takes at most " + std::to_string(max_shapes) +
         " points; choose fewer sides or values (their --max-shapes N raises it, up to " +
         std::to_string(kMaxSweepShapesLimit) + ")";
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, separator);)
    parts.push_back(part);
  return parts;
}

// "start:end:step" or "a,b,c" or "a", every number from min to max (a step from 1); `noun` is what
// the list holds ("sides", "values"). Counted before any is made.
std::vector<std::int64_t> parse_number_list(const std::string& text, const std::string& shown,
                                            const std::string& noun, std::int64_t min,
                                            std::int64_t max, std::size_t max_count) {
  const std::vector<std::string> range = split(text, ':');
  const std::string one = noun.substr(0, noun.size() - 1); // "side", "value"
  std::int64_t count = 0, start = 0, step = 1;
  if (range.size() == 3) {
    start = parse_number(range[0], "start", shown, min, max);
    const std::int64_t end = parse_number(range[1], "end", shown, min, max);
    step = parse_number(range[2], "step", shown, 1, std::max<std::int64_t>(1, max - min));
    if (end < start)
      throw UsageError(shown + ": the end is before the start; write start:end:step");
    // Unsigned: end - start may pass INT64_MAX for parameters that allow negative values.
    count = static_cast<std::int64_t>(std::min<std::uint64_t>(
        (static_cast<std::uint64_t>(end) - static_cast<std::uint64_t>(start)) /
                static_cast<std::uint64_t>(step) +
            1,
        kMaxInt64));
  } else if (range.size() == 1) {
    count = std::count(text.begin(), text.end(), ',') + 1;
  } else {
    throw UsageError(shown + ": write start:end:step or a comma-separated list");
  }
  if (count > static_cast<std::int64_t>(max_count))
    throw UsageError(shown + ": " + std::to_string(count) + " " + noun + "; " +
                     too_many_hint(max_count));
  std::vector<std::int64_t> numbers;
  if (range.size() == 3) {
    for (std::int64_t i = 0; i < count; ++i)
      numbers.push_back(start + i * step);
    return numbers;
  }
  for (const std::string& part : split(text, ',')) {
    const std::int64_t number = parse_number(part, one, shown, min, max);
    // Measured twice, a point would be drawn twice; the list is the user's, so it is not thinned.
    if (std::find(numbers.begin(), numbers.end(), number) != numbers.end())
      throw UsageError(shown + ": " + std::to_string(number) + " is listed twice; list each " +
                       one + " once");
    numbers.push_back(number);
  }
  if (numbers.empty())
    throw UsageError(shown + " is empty; write start:end:step or a comma-separated list");
  return numbers;
}

} // namespace

std::vector<int> parse_side_list(const std::string& text, const std::string& option,
                                 std::size_t max_sides) {
  if (text.empty())
    throw UsageError(option + " is empty; write start:end:step or a comma-separated list");
  const std::vector<std::int64_t> sides =
      parse_number_list(text, option + " '" + clip(text, 40) + "'", "sides", 1, kMaxInt, max_sides);
  return std::vector<int>(sides.begin(), sides.end());
}

ParamAxis parse_param_range(const KernelDesc& kernel, const std::string& text,
                            const std::string& option, std::size_t max_values) {
  const std::string shown = option + " '" + clip(text, 40) + "'";
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos)
    throw UsageError(shown + ": write name=start:end:step or name=a,b,c; parameters of " +
                     kernel.id + ": " + param_names(kernel));
  return parse_param_values(kernel, text.substr(0, eq), text.substr(eq + 1), shown, max_values);
}

ParamAxis parse_param_values(const KernelDesc& kernel, const std::string& name,
                             const std::string& values, const std::string& shown,
                             std::size_t max_values) {
  const ParamSpec& spec = kernel_param(kernel, name);
  if (values.empty())
    throw UsageError(shown + ": no values; write start:end:step or a comma-separated list (" +
                     param_allowed(spec) + ")");
  ParamAxis axis{name, parse_number_list(values, shown, "values", spec.min, spec.max, max_values)};
  for (std::int64_t value : axis.values)
    try {
      check_param_value(kernel, spec, value);
    } catch (const Error& e) {
      throw UsageError(shown + ": " + e.what());
    }
  return axis;
}

std::string param_allowed(const ParamSpec& spec) {
  if (spec.choices.empty())
    return spec.name + " " + std::to_string(spec.min) + " to " + std::to_string(spec.max);
  return spec.name + " " + joined(spec.choices, ", ");
}

std::string default_param_values(const ParamSpec& spec) {
  if (!spec.choices.empty())
    return joined(spec.choices, ",");
  // The whole range where it is short (pad 0:32:1), else its first 32 values.
  const std::int64_t end = spec.max - spec.min <= 64 ? spec.max : spec.min + 31;
  return std::to_string(spec.min) + ":" + std::to_string(end) + ":1";
}

std::size_t SweepGrid::points() const {
  std::size_t n = shapes.size();
  for (const ParamAxis& axis : param_axes)
    n *= axis.values.size();
  return n;
}

std::vector<Params> param_sets(const Params& params, const SweepGrid& grid,
                               std::size_t max_points) {
  // Each list holds at most kMaxSweepShapesLimit entries; the product is counted in floating
  // point so that several long lists cannot wrap around.
  double total = static_cast<double>(grid.shapes.size());
  std::set<std::string> named;
  for (const ParamAxis& axis : grid.param_axes) {
    if (!params.contains(axis.name))
      throw UsageError("the sweep's parameter '" + clip(axis.name, 40) +
                       "' is not one of the kernel's");
    if (!named.insert(axis.name).second)
      throw UsageError("the parameter " + axis.name + " is swept twice; give each once");
    if (axis.values.empty())
      throw UsageError("the parameter " + axis.name + " is swept over no values");
    total *= static_cast<double>(axis.values.size());
  }
  if (total > static_cast<double>(max_points))
    throw UsageError("the sweep has " + format("%.0f", total) + " points; " +
                     too_many_hint(max_points));
  std::vector<Params> sets{params};
  for (const ParamAxis& axis : grid.param_axes) { // each axis multiplies the sets made so far
    std::vector<Params> next;
    for (std::int64_t value : axis.values)
      for (Params set : sets) {
        set[axis.name] = value;
        next.push_back(std::move(set));
      }
    sets = std::move(next);
  }
  return sets;
}

SweepPoint model_sweep_point(const KernelDesc& kernel, const Params& params,
                             const BlockShape& block, const Arch& arch, ModelBudget budget) {
  SweepPoint point{block, "", std::nullopt, params};
  try {
    const KernelRequest request{&kernel, params, block};
    check_kernel_request(request);
    check_block_fits(arch, block);
    point.result = model_kernel(request, arch, budget);
  } catch (const Error& e) {
    point.refused = e.what();
  }
  return point;
}

std::vector<SweepPoint> model_sweep_points(const KernelDesc& kernel, const Params& params,
                                           const SweepGrid& grid, const Arch& arch,
                                           ModelBudget budget, std::size_t max_points) {
  std::vector<SweepPoint> points;
  for (const Params& set : param_sets(params, grid, max_points))
    for (const BlockShape& block : grid.shapes)
      points.push_back(model_sweep_point(kernel, set, block, arch, budget));
  return points;
}

std::int64_t axis_value(const SweepPoint& point, const std::string& axis) {
  if (axis == "block.x")
    return point.block.x;
  if (axis == "block.y")
    return point.block.y;
  if (axis == "block.z")
    return point.block.z;
  const auto found = point.params.find(axis);
  return found == point.params.end() ? 0 : found->second;
}

std::vector<std::int64_t> axis_values(const std::vector<SweepPoint>& points,
                                      const std::string& axis) {
  std::set<std::int64_t> values;
  for (const SweepPoint& p : points)
    values.insert(axis_value(p, axis));
  return {values.begin(), values.end()};
}

bool evenly_spaced(const std::vector<std::int64_t>& values) {
  for (std::size_t i = 2; i < values.size(); ++i)
    if (values[i] - values[i - 1] != values[1] - values[0])
      return false;
  return true;
}

std::vector<std::string> varying_axes(const std::vector<SweepPoint>& points,
                                      const std::vector<std::string>& params_order) {
  std::vector<std::string> candidates{"block.x", "block.y", "block.z"};
  candidates.insert(candidates.end(), params_order.begin(), params_order.end());
  for (const SweepPoint& p : points)
    for (const auto& [name, value] : p.params)
      if (std::find(candidates.begin(), candidates.end(), name) == candidates.end())
        candidates.push_back(name);
  std::vector<std::string> varying;
  for (const std::string& axis : candidates)
    if (std::any_of(points.begin(), points.end(), [&](const SweepPoint& p) {
          return axis_value(p, axis) != axis_value(points.front(), axis);
        }))
      varying.push_back(axis);
  return varying;
}

std::vector<BlockShape> sweep_shapes(const std::vector<int>& xs, const std::vector<int>& ys,
                                     const std::vector<int>& zs, std::size_t max_shapes) {
  // Each list is short (a parsed list holds at most kMaxSweepShapesLimit), so the product fits.
  const std::uint64_t total = std::uint64_t{xs.size()} * ys.size() * zs.size();
  if (total > max_shapes)
    throw UsageError("the sweep has " + std::to_string(total) + " shapes (" +
                     std::to_string(xs.size()) + " x " + std::to_string(ys.size()) + " x " +
                     std::to_string(zs.size()) + "); " + too_many_hint(max_shapes));
  std::vector<BlockShape> shapes;
  shapes.reserve(total);
  for (int z : zs)
    for (int y : ys)
      for (int x : xs)
        shapes.push_back(BlockShape{x, y, z});
  return shapes;
}

} // namespace wl
