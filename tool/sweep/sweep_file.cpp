#include "sweep/sweep_file.h"

#include "base/error.h"
#include "base/json_fields.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "model/arch.h"
#include "model/block_text.h"
#include "model/kernel_request.h"
#include "registry.h"
#include "report/figures.h"
#include "report/run_report.h"
#include "report/site_report.h"

#include <algorithm>
#include <array>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace wl {

namespace {

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
