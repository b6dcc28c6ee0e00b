#pragma once
// The Sweep panel's charts, drawn with ImDrawList (Dear ImGui 1.86 has no plots): each returns
// the shape a person clicked, if any.

#include "sweep_view.h"

namespace wl::viz {

// True when every shape of the sweep has the same block y and z: a line, not a grid.
bool one_row(const SweepData& data);

// A row per block y, a column per block x, each cell coloured by `metric` with its value printed;
// a colour bar below; the current launch outlined; shapes tied within the noise outlined white.
const SweepPoint* heatmap(const SweepData& data, SweepMetric metric, const BlockShape& current);

// A 1D sweep: `metric` against block x with both axes, the current launch marked.
const SweepPoint* line_chart(const SweepData& data, SweepMetric metric, const BlockShape& current);

} // namespace wl::viz
