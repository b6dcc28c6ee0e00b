#include "sweep/sweep_grid.h"

#include "base/error.h"
#include "base/json_fields.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "model/arch.h"
#include "model/block_text.h"
#include "model/kernel_request.h"
#include "model/model_kernel.h"
#include "protocol/protocol.h"
#include "registry.h"
#include "report/figures.h"
#include "report/run_report.h"
#include "report/site_report.h"

#include <algorithm>
#include <array>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

// The parts of a sweep with no GPU in them: its shapes from the command line's side lists, and its
// table. In wl_core, so the GUI can make and export sweeps without the engine.

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
  return "a sweep takes at most " + std::to_string(max_shapes) +
         " points; choose fewer sides or values (`warplens sweep --max-shapes N` raises it, up "
         "to " +
         std::to_string(kMaxSweepShapesLimit) + ")";
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, separator);)
    parts.push_back(part);
  return parts;
}

// Every counter any point collected, by its figure's key, in first-seen order: the CSV's counter
// columns (named by key: a metric's name, gpu__time_duration.sum, reads as ncu's kernel time,
// which the profiled range time is not).
std::vector<std::string> counter_columns(const std::vector<SweepPoint>& points) {
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (const SweepPoint& p : points)
    if (p.result && p.result->counters)
      for (const CounterValue& v : p.result->counters->values)
        if (seen.insert(v.key).second)
          keys.push_back(v.key);
  return keys;
}

// Every parameter name any point has, in name order: the CSV's parameter columns.
std::vector<std::string> param_columns(const std::vector<SweepPoint>& points) {
  std::set<std::string> names;
  for (const SweepPoint& p : points)
    for (const auto& [name, value] : p.params)
      names.insert(name);
  return {names.begin(), names.end()};
}

// The counter figures the model predicts: a "predicted_KEY" column each, beside the counters.
std::vector<const Figure*> predicted_columns() {
  std::vector<const Figure*> columns;
  for (const Figure& f : all_figures())
    if (f.counter && f.predicted && f.key != "achieved_occupancy") // that one is a bound
      columns.push_back(&f);
  return columns;
}

} // namespace

namespace {

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

// One point of a sweep of `kernel`: a measured one of that kernel (reading it checked that it is a
// launch the kernel allows: check_plausible), any one's parameters the kernel's. `at` leads the
// message.
void check_point(const KernelDesc& kernel, const SweepPoint& p, const std::string& at) {
  try {
    if (p.result && p.result->kernel_id != kernel.id)
      throw UsageError("a point of " + clip(p.result->kernel_id, 40) + " in a sweep of " +
                       kernel.id);
    for (const auto& [name, value] : p.params)
      kernel_param(kernel, name);
  } catch (const Error& e) {
    throw UsageError(at + e.what());
  }
}

// The points of one series come from one GPU (or one preset, modelled): a sweep whose points
// came from two would be drawn and labelled as one GPU's.
void check_one_device(const std::vector<SweepPoint>& points, const std::string& where) {
  const SweepPoint* first = nullptr;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!points[i].result)
      continue;
    if (!first) {
      first = &points[i];
    } else if (device_label(points[i].result->arch) != device_label(first->result->arch)) {
      throw UsageError(where + ": points[" + std::to_string(i) + "]: measured on " +
                       clip(device_label(points[i].result->arch), 60) + ", the earlier points on " +
                       clip(device_label(first->result->arch), 60) +
                       "; allowed one GPU per sweep (a per-device sweep keeps each GPU's apart)");
    }
  }
}

// A sweep file's points must be launches the kernel allows (a refused point's parameters at least
// the kernel's), each once, from one GPU: a hand-edited or foreign file is refused rather than
// drawn as measured. `kernel` empty: the measured points' kernel.
void check_points(const std::vector<SweepPoint>& points, std::string kernel_id,
                  const std::string& where) {
  check_one_device(points, where);
  for (const SweepPoint& p : points)
    if (kernel_id.empty() && p.result)
      kernel_id = p.result->kernel_id;
  const KernelDesc* kernel = find_kernel(kernel_id);
  if (!kernel && !kernel_id.empty())
    throw UsageError(where + ": kernel '" + clip(kernel_id, 40) + "' is not a bundled kernel");
  std::set<std::pair<Params, std::array<int, 3>>> seen;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& p = points[i];
    const std::string at = where + ": points[" + std::to_string(i) + "]: ";
    // An old file of refused points alone names no kernel: only the repeats can be checked.
    if (kernel)
      check_point(*kernel, p, at);
    if (!seen.insert({p.params, {p.block.x, p.block.y, p.block.z}}).second)
      throw UsageError(at + "the same launch (block " + format_block(p.block) +
                       ") as an earlier point");
  }
}

// One of the axes a sweep file names, as read.
struct NamedAxis {
  Fields fields;
  std::string name;
  std::vector<std::int64_t> values;
};

// An axis's values must be the ones its points have along it: the charts are drawn from the
// points, so values that differ would be replaced unseen. Each value a point has is listed, and
// each value listed is some point's.
void check_axis_values(const NamedAxis& axis, const std::vector<SweepPoint>& points) {
  const std::vector<std::int64_t> own = axis_values(points, axis.name);
  const std::string allowed = "allowed the values the points have: " + joined(own, ", ");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::int64_t value = axis_value(points[i], axis.name);
    if (std::find(axis.values.begin(), axis.values.end(), value) == axis.values.end())
      axis.fields.fail("values",
                       "points[" + std::to_string(i) + "] has " + clip(axis.name, 20) + " " +
                           std::to_string(value) + ", not listed",
                       allowed);
  }
  for (std::int64_t value : axis.values)
    if (std::find(own.begin(), own.end(), value) == own.end())
      axis.fields.fail("values", std::to_string(value) + " is the value of no point", allowed);
}

// The axes a file names must be the ones its points vary along, with the values they have.
void check_axes(const Fields& file, const std::vector<SweepPoint>& points) {
  std::set<std::string> named;
  std::vector<NamedAxis> axes;
  for (const Fields& axis : file.objects("axes", 64)) {
    axis.only({"name", "values"}, "an axis");
    axes.push_back({axis, axis.text("name", false),
                    axis.integers("values", 1, kMaxSweepShapesLimit, kMinInt64, kMaxInt64)});
    if (!named.insert(axes.back().name).second)
      file.fail("axes", "'" + clip(axes.back().name, 40) + "' twice", "allowed each axis once");
  }
  const std::vector<std::string> varying = varying_axes(points);
  if (named != std::set<std::string>(varying.begin(), varying.end())) {
    std::string list;
    for (const std::string& v : varying)
      list += (list.empty() ? "" : ", ") + v;
    file.fail("axes", "axes that are not the ones the points vary along",
              "allowed the points' own: " + (list.empty() ? std::string("none") : list));
  }
  for (const NamedAxis& axis : axes)
    check_axis_values(axis, points);
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

std::vector<SweepPoint> model_sweep_points(const KernelDesc& kernel, const Params& params,
                                           const SweepGrid& grid, const Arch& arch,
                                           ModelBudget budget, std::size_t max_points) {
  std::vector<SweepPoint> points;
  for (const Params& set : param_sets(params, grid, max_points))
    for (const BlockShape& block : grid.shapes) {
      SweepPoint point{block, "", std::nullopt, set};
      try {
        const KernelRequest request{&kernel, set, block};
        check_kernel_request(request);
        check_block_fits(arch, block);
        point.result = model_kernel(request, arch, budget);
      } catch (const Error& e) {
        point.refused = e.what();
      }
      points.push_back(std::move(point));
    }
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

std::string sweep_csv(const std::vector<SweepPoint>& points) {
  const std::vector<std::string> counters = counter_columns(points);
  const std::vector<std::string> params = param_columns(points);
  std::ostringstream csv;
  csv << "block_x,block_y,block_z";
  for (const std::string& name : params)
    csv << "," << name;
  csv << ",status,reason,device" << launch_figure_headers() << ",verified";
  for (const std::string& name : counters)
    csv << "," << name;
  for (const Figure* f : predicted_columns())
    csv << ",predicted_" << f->key;
  // Per-site columns only where a per-site pass ran: every point is of one kernel, so its sites.
  const auto per_site = std::find_if(points.begin(), points.end(), [](const SweepPoint& p) {
    return p.result && p.result->site_counts;
  });
  const std::vector<std::string> site_headers =
      per_site == points.end() ? std::vector<std::string>{} : site_csv_headers(*per_site->result);
  for (const std::string& header : site_headers)
    csv << "," << csv_quoted(header);
  csv << "\n";
  for (const SweepPoint& p : points) {
    csv << p.block.x << "," << p.block.y << "," << p.block.z << ",";
    for (const std::string& name : params)
      csv << (p.params.contains(name) ? std::to_string(p.params.at(name)) : "") << ",";
    if (!p.result) {
      // Every row has every column: a refused point's figures are empty cells.
      const std::size_t empty_after_reason = 2 + launch_figures().size() + counters.size() +
                                             predicted_columns().size() + site_headers.size();
      csv << "refused," << csv_quoted(p.refused) << std::string(empty_after_reason, ',') << "\n";
      continue;
    }
    const RunResult& r = *p.result;
    // A point from the models alone (the GUI's model sweep) has no timing: its cells stay empty.
    // The device a point ran on; a modelled point ran on none (its arch is the sweep's preset).
    csv << (r.timing ? "ran,," + csv_quoted(device_label(r.arch)) : "modelled,,")
        << launch_figure_cells(r) << "," << (r.verification ? r.verification->word() : "");
    for (const std::string& key : counters) {
      csv << ",";
      if (r.counters)
        if (const CounterValue* v = r.counters->find(key))
          csv << format("%.6g", v->value);
    }
    for (const Figure* f : predicted_columns()) {
      const std::optional<double> predicted = f->predicted(r);
      csv << "," << (predicted ? format("%.0f", *predicted) : "");
    }
    if (!site_headers.empty())
      for (const std::string& cell : site_csv_cells(r))
        csv << "," << cell;
    csv << "\n";
  }
  return csv.str();
}

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

nlohmann::json read_sweep_file(const std::filesystem::path& file) {
  return read_json_document(file, "sweep", kMaxSweepFilePoints);
}

nlohmann::json sweep_file_json(const std::string& kernel_id,
                               const std::vector<SweepPoint>& points) {
  nlohmann::json axes = nlohmann::json::array();
  for (const std::string& axis : varying_axes(points)) {
    axes.push_back({{"name", axis}, {"values", axis_values(points, axis)}});
  }
  return {{"kernel", kernel_id}, {"axes", axes}, {"points", sweep_points_to_json(points)}};
}

std::vector<SweepPoint> sweep_file_points(const nlohmann::json& file, const std::string& where) {
  const std::string at = where.empty() ? "sweep" : where;
  if (file.is_array()) { // a file from before sweeps carried their axes
    std::vector<SweepPoint> points = sweep_points_from_json(file, where, kMaxSweepFilePoints);
    check_points(points, "", at);
    return points;
  }
  const Fields fields(file, at);
  fields.only({"kernel", "axes", "points", "against", "per_device"}, "a sweep file");
  const std::string kernel = fields.text("kernel", false);
  if (!find_kernel(kernel))
    fields.fail("kernel", "'" + clip(kernel, 40) + "' is not a bundled kernel",
                "allowed a kernel id (warplens list names them), or one of a kernel file opened "
                "with it (--kernel-file FILE.cu)");
  std::vector<SweepPoint> points = sweep_points_from_json(
      fields.at("points", "allowed a list of points"), at + ": points", kMaxSweepFilePoints);
  check_points(points, kernel, at);
  if (fields.has("axes"))
    check_axes(fields, points);
  return points;
}

} // namespace wl
