#pragma once
// The Sweep panel's charts, drawn with ImDrawList (Dear ImGui 1.86 has no plots): each returns
// the point a person clicked, if any.

#include "workflows/sweep_view.h"

namespace wl::viz {

// A row per value of the y axis, a column per value of the x axis (chart_axes), each cell
// coloured by `metric` with its value printed; a colour bar below; `current` (the launch on
// screen: its block and parameters) outlined; points tied within the noise outlined white.
const SweepPoint* heatmap(const SweepData& data, const ChartAxes& axes, SweepMetric metric,
                          const SweepPoint& current);

// An A/B sweep (data.against): each cell coloured by how much better or worse the second kernel's
// `metric` is than the first's, on a diverging scale, printing the ratio and, for times, the
// verdict (SAME cells grey); the verdicts counted below.
const SweepPoint* ab_heatmap(const SweepData& data, const ChartAxes& axes, SweepMetric metric,
                             const SweepPoint& current);

// A 1D sweep: `metric` against the x axis with both axes drawn, the current launch marked; with
// `second` (may be null), that figure too, on a y axis of its own at the right (GB/s beside
// sectors per request). An A/B sweep draws the two kernels' lines of `metric` instead.
const SweepPoint* line_chart(const SweepData& data, const ChartAxes& axes, SweepMetric metric,
                             SweepMetric second, const SweepPoint& current);

// A variant sweep: a bar per variant, as long as its speed against the fastest of the variants
// and the peer (longer is faster), beside the variant's id and what it is, its time and share of
// the peer at the bar's end; the peer a line across the bars; a refused variant its reason. The
// variant on screen (`current`) drawn in the launch's colour. Returns the variant clicked.
const VariantPoint* variant_bars(const ShownVariants& shown, const std::string& current);

} // namespace wl::viz
