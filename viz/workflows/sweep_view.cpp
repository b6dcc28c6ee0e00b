#include "workflows/sweep_view.h"

#include "base/error.h"
#include "model/block_text.h"
#include "model/kernel_request.h"
#include "registry.h"

#include <algorithm>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace wl::viz {

SweepMetric sweep_metric(std::string_view key) {
  const Figure& f = figure(key);
  if (!f.sweep)
    throw std::logic_error("figure '" + std::string(key) + "' is not offered by sweeps");
  return &f;
}

bool carries_noise(SweepMetric metric) {
  return metric->key == "median_time" || metric->key == "throughput";
}

std::optional<double> sweep_ideal(const RunResult& r, SweepMetric metric) {
  return metric->ideal_value ? metric->ideal_value(r) : std::nullopt;
}

std::vector<SweepMetric> offered_metrics(const SweepData& data) {
  std::vector<SweepMetric> offered;
  for (const Figure& f : all_figures())
    if (f.sweep && std::any_of(data.points.begin(), data.points.end(), [&](const SweepPoint& p) {
          return p.result && figure_value(f, *p.result);
        }))
      offered.push_back(&f);
  return offered;
}

SweepData model_sweep(const KernelDesc& kernel, const Params& params, const SweepGrid& grid,
                      const Arch& arch) {
  SweepData data;
  data.origin = "model, " + arch.id;
  data.kernel_id = kernel.id;
  data.params = params;
  data.points = model_sweep_points(kernel, params, grid, arch, kSweepModelBudget);
  return data;
}

namespace {

ShownVariants variants_from(const nlohmann::json& json, const std::filesystem::path& file) {
  ShownVariants shown{variant_sweep_from_json(json, file.string()), ""};
  std::string device;
  for (const VariantPoint& p : shown.sweep.variants)
    if (p.result && p.result->timing)
      device = p.result->arch.name;
  shown.origin = (device.empty() ? std::string("modelled") : "measured on " + device) + " (" +
                 file.filename().string() + ")";
  return shown;
}

SweepData block_sweep_from(const nlohmann::json& list, const std::filesystem::path& file) {
  if (list.is_object() && !list.contains("kernel") && !list.contains("points"))
    throw UsageError(file.string() + ": not a sweep file: it has neither \"kernel\" nor \"points\" "
                                     "(`warplens sweep ... --json FILE` writes one)");
  SweepData data;
  try {
    data.points = sweep_file_points(list, "");
    data.against = sweep_file_against(list, data.points, "");
    if (list.is_object()) // the kernel sweep_file_points checked
      data.devices = sweep_file_devices(list, SweepSeries{list.at("kernel"), data.points}, "");
  } catch (const Error& e) {
    throw UsageError(file.string() + ": " + e.what());
  }
  const auto measured = std::find_if(data.points.begin(), data.points.end(),
                                     [](const SweepPoint& p) { return p.result; });
  // A per-device sweep names each GPU as its series does (two boards of one kind apart).
  std::string devices = measured == data.points.end() ? std::string("a GPU")
                        : data.devices.empty()        ? measured->result->arch.name
                                                      : series_device(data.points);
  for (const SweepSeries& series : data.devices)
    devices += ", " + series_device(series.points);
  // A file `sweep --model` wrote holds the models' figures: no point was timed on a GPU.
  data.measured = std::any_of(data.points.begin(), data.points.end(),
                              [](const SweepPoint& p) { return p.result && p.result->timing; });
  data.origin = std::string(data.measured ? "measured on " : "modelled for ") + devices + " (" +
                file.filename().string() + ")";
  if (measured != data.points.end()) {
    data.kernel_id = measured->result->kernel_id;
    data.params = measured->result->params;
  }
  return data;
}

} // namespace

std::variant<SweepData, ShownVariants> load_any_sweep(const std::filesystem::path& file) {
  const nlohmann::json json = read_sweep_file(file); // read once, whichever kind it is
  if (looks_like_variant_sweep(json))
    return variants_from(json, file);
  return block_sweep_from(json, file);
}

SweepData load_sweep(const std::filesystem::path& file) {
  return block_sweep_from(read_sweep_file(file), file);
}

namespace {

// A measurement of the same launch (block, parameters) on a GPU of the result's kind (compute
// capability and SMs) into a model result, with that GPU's peaks.
bool take_measurement(RunResult& result, const RunResult& measured, const std::string& origin) {
  if (!measured.timing || measured.launch.block != result.launch.block ||
      measured.params != result.params)
    return false;
  if (measured.arch.cc_major != result.arch.cc_major ||
      measured.arch.cc_minor != result.arch.cc_minor ||
      measured.arch.sm_count != result.arch.sm_count)
    return false;
  // Judged against the peaks of the GPU that measured it: an H200 and the H100 preset share
  // their SMs but not their bandwidth.
  result.arch = measured.arch;
  result.timing = measured.timing;
  result.verification = measured.verification;
  result.counters = measured.counters;
  result.runtime_blocks_per_sm = measured.runtime_blocks_per_sm;
  result.recorded_on = origin;
  return true;
}

} // namespace

bool fill_from_sweep(RunResult& result, const SweepData& data) {
  if (!data.measured || data.kernel_id != result.kernel_id)
    return false;
  return std::any_of(data.points.begin(), data.points.end(), [&](const SweepPoint& p) {
    return p.result && take_measurement(result, *p.result, data.origin);
  });
}

bool fill_from_variants(RunResult& result, const ShownVariants& shown) {
  return std::any_of(shown.sweep.variants.begin(), shown.sweep.variants.end(),
                     [&](const VariantPoint& p) {
                       return p.result && p.kernel_id == result.kernel_id &&
                              take_measurement(result, *p.result, shown.origin);
                     });
}

ChartAxes chart_axes(const SweepData& data) {
  std::vector<std::string> order;
  if (const KernelDesc* kernel = find_kernel(data.kernel_id))
    for (const ParamSpec& spec : kernel->params)
      order.push_back(spec.name);
  std::vector<std::string> varying = varying_axes(data.points, order);
  ChartAxes axes;
  axes.x = varying.empty() ? "block.x" : varying[0];
  if (varying.size() > 1)
    axes.y = varying[1];
  if (varying.size() > 2)
    axes.held.assign(varying.begin() + 2, varying.end());
  return axes;
}

std::vector<const SweepPoint*> charted_points(const std::vector<SweepPoint>& all,
                                              const ChartAxes& axes) {
  std::vector<const SweepPoint*> points;
  const auto held_value = [&](const std::string& axis) {
    const auto chosen = axes.held_at.find(axis);
    return chosen != axes.held_at.end() ? chosen->second : axis_value(all.front(), axis);
  };
  for (const SweepPoint& p : all)
    if (std::all_of(axes.held.begin(), axes.held.end(), [&](const std::string& axis) {
          return axis_value(p, axis) == held_value(axis);
        }))
      points.push_back(&p);
  return points;
}

std::string axis_title(const std::string& axis) {
  return axis.starts_with("block.") ? "block " + axis.substr(6) : axis;
}

std::string point_name(const SweepPoint& point, const ChartAxes& axes) {
  if (axes.x.starts_with("block.") && (axes.y.empty() || axes.y.starts_with("block.")))
    return format_block(point.block);
  std::string name = axis_title(axes.x) + "=" + std::to_string(axis_value(point, axes.x));
  if (!axes.y.empty())
    name += ", " + axis_title(axes.y) + "=" + std::to_string(axis_value(point, axes.y));
  return name;
}

std::vector<bool> tied_with_best(const std::vector<const SweepPoint*>& points, SweepMetric metric) {
  std::vector<bool> tied(points.size(), false);
  if (!carries_noise(metric))
    return tied;
  const SweepPoint* best = nullptr;
  for (const SweepPoint* p : points)
    if (p->result && p->result->timing &&
        (!best || p->result->timing->median_time < best->result->timing->median_time))
      best = p;
  if (!best)
    return tied;
  const TimingStats& b = *best->result->timing;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!points[i]->result || !points[i]->result->timing || points[i] == best)
      continue;
    const TimingStats& t = *points[i]->result->timing;
    const double noise = std::max(b.noise * b.median_time, t.noise * t.median_time);
    tied[i] = t.median_time - b.median_time <= noise;
  }
  return tied;
}

} // namespace wl::viz
