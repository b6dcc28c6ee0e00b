#pragma once
// The Sweep panel's data: a block-shape sweep of the chosen kernel, either made here from the
// models (theoretical occupancy, sectors and wavefronts per request, registers: no GPU needed) or
// read from `warplens sweep --json` (measured on a GPU: time, GB/s, achieved occupancy, counters),
// and the figure each cell is coloured by. Shapes the kernel does not allow stay in the sweep with
// the reason. Cells within the measured noise of the best are ties, not ranks. A sweep may carry
// series beside its own over the same points: another kernel's (A/B) or other GPUs' (per device).

#include "model/arch.h"
#include "report/figures.h"
#include "sweep/sweep_compare.h"
#include "sweep/sweep_file.h"
#include "sweep/variant_sweep.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace wl::viz {

// A figure of the figure table a sweep can be coloured by (those marked `sweep`).
using SweepMetric = const Figure*;
SweepMetric sweep_metric(std::string_view key); // sweep_metric("median_time")

// Whether the figure comes from the timing, so it carries the samples' noise (ties, bands).
bool carries_noise(SweepMetric metric);
// The figure's ideal for one shape where it has one (sectors and wavefronts per request: what
// the access width needs at best), so a colour says how far from the ideal, not which shape is
// smallest.
std::optional<double> sweep_ideal(const RunResult& result, SweepMetric metric);

struct SweepData {
  std::vector<SweepPoint> points;
  std::string origin;    // "model, h100", or "measured on NVIDIA H100 80GB HBM3 (file)"
  std::string kernel_id; // what was swept, also when every shape was refused
  bool measured = false; // times and counters (a model sweep has neither)
  Params params;         // the kernel's parameters the sweep ran with (empty: not known)
  // An A/B sweep: a second kernel over the same points, compared point by point with the first.
  std::optional<SweepSeries> against = {};
  // A per-device sweep: the same kernel and points on each other kind of GPU, a series each.
  std::vector<SweepSeries> devices = {};
};

// The figures a sweep has for at least one shape: what its "colour by" list offers.
std::vector<SweepMetric> offered_metrics(const SweepData& data);

// A variant sweep on screen, and where its figures come from ("model, h100", "measured on NVIDIA
// H200 (variants.json)").
struct ShownVariants {
  VariantSweep sweep;
  std::string origin;
};

// A sweep file of either kind, read once: a block sweep's (load_sweep), or one that `warplens
// sweep FAMILY --variants --json` wrote. Throws UsageError naming the file and the problem.
std::variant<SweepData, ShownVariants> load_any_sweep(const std::filesystem::path& file);

// The models for every point of the grid on `arch`; a point the kernel refuses carries the reason.
// Throws UsageError for a grid with too many points.
SweepData model_sweep(const KernelDesc& kernel, const Params& params, const SweepGrid& grid,
                      const Arch& arch);
// A sweep written by `warplens sweep --json`. Throws UsageError naming the file and the problem.
SweepData load_sweep(const std::filesystem::path& file);

// A model result takes a loaded measured sweep's figures of the same launch (kernel, block,
// parameters) where the sweep measured it on a GPU of the result's kind (compute capability and
// SMs): a clicked point shows what was measured there. False when the sweep has none.
bool fill_from_sweep(RunResult& result, const SweepData& data);

// The same from a measured variant sweep: the variant's launch as the file measured it.
bool fill_from_variants(RunResult& result, const ShownVariants& shown);

// The axes a sweep is charted over: the first two along which its points differ (block x, y, z,
// then the kernel's parameters in their order); y is empty for a sweep that varies along one (a
// line). Any further axis is held at one value, the first point's unless `held_at` names
// another: the chart shows that slice.
struct ChartAxes {
  std::string x, y;
  std::vector<std::string> held;
  std::map<std::string, std::int64_t> held_at; // a held axis's value chosen for the slice
};
ChartAxes chart_axes(const SweepData& data);
// The points the chart shows: every one, or the slice where each held axis has its chosen value
// (the first point's where none is chosen).
std::vector<const SweepPoint*> charted_points(const std::vector<SweepPoint>& points,
                                              const ChartAxes& axes);
// "block x", "stride": an axis as the panel writes it.
std::string axis_title(const std::string& axis);
// A point as the chart names it (a script clicks it by this name): "16x8" where only block sides
// vary, else its values on the axes, "stride=4" or "block x=256, stride=4".
std::string point_name(const SweepPoint& point, const ChartAxes& axes);

// Per point: within the noise of the best point's time (|t - best| <= the larger of the two
// noises x their times), so the heatmap marks it tied rather than ranked. All false for figures
// that carry no noise.
std::vector<bool> tied_with_best(const std::vector<const SweepPoint*>& points, SweepMetric metric);

} // namespace wl::viz
