#include "sweep_view.h"

#include "assets.h"
#include "engine.h"
#include "error.h"
#include "kernel_request.h"

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

SweepData model_sweep(const KernelDesc& kernel, const Params& params,
                      const std::vector<BlockShape>& shapes, const Arch& arch) {
  SweepData data;
  data.origin = "model, " + arch.id;
  data.kernel_id = kernel.id;
  data.params = params;
  for (const BlockShape& block : shapes) {
    SweepPoint point{block, "", std::nullopt};
    try {
      const KernelRequest request{&kernel, params, block};
      check_kernel_request(request);
      check_block_fits(arch, block);
      point.result =
          model_kernel(request, arch, ModelBudget{3000}); // a sweep's budget, as the CLI's
    } catch (const UsageError& e) {
      point.refused = e.what();
    }
    data.points.push_back(std::move(point));
  }
  return data;
}

SweepData load_sweep(const std::filesystem::path& file) {
  const nlohmann::json list = read_json_file(file, "sweep");
  SweepData data;
  try {
    data.points = sweep_points_from_json(list);
  } catch (const UsageError& e) {
    throw UsageError(file.string() + ": " + e.what());
  }
  const auto measured = std::find_if(data.points.begin(), data.points.end(),
                                     [](const SweepPoint& p) { return p.result; });
  data.origin =
      "measured on " +
      (measured != data.points.end() ? measured->result->arch.name : std::string("a GPU")) + " (" +
      file.filename().string() + ")";
  data.measured = true;
  if (measured != data.points.end()) {
    data.kernel_id = measured->result->kernel_id;
    data.params = measured->result->params;
  }
  return data;
}

std::vector<bool> tied_with_best(const std::vector<SweepPoint>& points, SweepMetric metric) {
  std::vector<bool> tied(points.size(), false);
  if (!carries_noise(metric))
    return tied;
  const SweepPoint* best = nullptr;
  for (const SweepPoint& p : points)
    if (p.result && p.result->timing &&
        (!best || p.result->timing->median_ms < best->result->timing->median_ms))
      best = &p;
  if (!best)
    return tied;
  const TimingStats& b = *best->result->timing;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!points[i].result || !points[i].result->timing || &points[i] == best)
      continue;
    const TimingStats& t = *points[i].result->timing;
    const double noise = std::max(b.noise * b.median_ms, t.noise * t.median_ms);
    tied[i] = t.median_ms - b.median_ms <= noise;
  }
  return tied;
}

} // namespace wl::viz
