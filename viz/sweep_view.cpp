#include "sweep_view.h"

#include "assets.h"
#include "engine.h"
#include "error.h"
#include "kernel_request.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace wl::viz {

namespace {

constexpr std::array kMetricNames = {"median time (ms)",       "throughput (GB/s)",
                                     "achieved occupancy (%)", "theoretical occupancy (%)",
                                     "sectors per request",    "wavefronts per request",
                                     "registers per thread"};

// Sectors or wavefronts per request over a memory space's sites; nullopt where it has none.
std::optional<double> per_request(const RunResult& r, MemorySpace space, bool sectors, bool ideal) {
  double amount = 0, requests = 0;
  for (const SitePrediction& s : r.prediction.sites)
    if (s.space == space) {
      const std::int64_t actual = sectors ? s.sectors : s.wavefronts,
                         best = sectors ? s.ideal_sectors : s.ideal_wavefronts;
      amount += static_cast<double>(ideal ? best : actual);
      requests += static_cast<double>(s.requests);
    }
  if (requests <= 0)
    return std::nullopt;
  return amount / requests;
}

} // namespace

const char* sweep_metric_name(SweepMetric metric) { return kMetricNames[static_cast<int>(metric)]; }

bool lower_is_better(SweepMetric metric) {
  return metric == SweepMetric::time || metric == SweepMetric::sectors_per_request ||
         metric == SweepMetric::wavefronts_per_request || metric == SweepMetric::registers;
}

std::optional<double> sweep_value(const RunResult& r, SweepMetric metric) {
  switch (metric) {
  case SweepMetric::time:
    return r.timing ? std::optional(r.timing->median_ms) : std::nullopt;
  case SweepMetric::gbps:
    return r.timing ? std::optional(r.gbps()) : std::nullopt;
  case SweepMetric::achieved_occupancy: {
    const CounterValue* v = r.counters ? r.counters->find("achieved_occupancy") : nullptr;
    return v ? std::optional(v->value) : std::nullopt;
  }
  case SweepMetric::theoretical_occupancy:
    return r.occupancy ? std::optional(100 * r.occupancy->occupancy) : std::nullopt;
  case SweepMetric::sectors_per_request:
    return per_request(r, MemorySpace::global, true, false);
  case SweepMetric::wavefronts_per_request:
    return per_request(r, MemorySpace::shared, false, false);
  case SweepMetric::registers:
    return r.attributes ? std::optional(double(r.attributes->registers)) : std::nullopt;
  }
  return std::nullopt;
}

std::optional<double> sweep_ideal(const RunResult& r, SweepMetric metric) {
  if (metric == SweepMetric::sectors_per_request)
    return per_request(r, MemorySpace::global, true, true);
  if (metric == SweepMetric::wavefronts_per_request)
    return per_request(r, MemorySpace::shared, false, true);
  return std::nullopt;
}

std::vector<SweepMetric> offered_metrics(const SweepData& data) {
  std::vector<SweepMetric> offered;
  for (SweepMetric metric : kAllSweepMetrics)
    if (std::any_of(data.points.begin(), data.points.end(), [&](const SweepPoint& p) {
          return p.result && sweep_value(*p.result, metric);
        }))
      offered.push_back(metric);
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
  if (metric != SweepMetric::time && metric != SweepMetric::gbps)
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
