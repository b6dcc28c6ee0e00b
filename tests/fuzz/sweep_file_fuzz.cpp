// Fuzzes the sweep file reader (`warplens --sweep-json FILE`, written by `warplens sweep --json`):
// load_sweep takes only a path, so the input is written to a scratch file first. An accepted
// sweep then gets what the Sweep panel computes from it: the figures it offers, each shape's
// value, the ties with the best, the CSV that Export writes, and for an A/B or per-device sweep its
// series matched point by point (ratios, verdicts, the A/B CSV).

#include "fuzz_support.h"
#include "sweep/sweep_compare.h"
#include "sweep/sweep_file.h"
#include "workflows/sweep_view.h"

namespace {

void show(const wl::viz::SweepData& sweep) {
  for (const wl::viz::SweepMetric metric : wl::viz::offered_metrics(sweep)) {
    for (const wl::SweepPoint& point : sweep.points)
      if (point.result) {
        wl::figure_value(*metric, *point.result);
        wl::viz::sweep_ideal(*point.result, metric);
      }
    const wl::viz::ChartAxes axes = wl::viz::chart_axes(sweep);
    for (const wl::SweepPoint* point : wl::viz::charted_points(sweep.points, axes))
      wl::viz::point_name(*point, axes);
    wl::viz::tied_with_best(wl::viz::charted_points(sweep.points, axes), metric);
  }
  wl::sweep_csv(sweep.points);
  const wl::SweepSeries first{sweep.kernel_id, sweep.points};
  if (sweep.against) {
    wl::ab_sweep_csv(first, *sweep.against);
    wl::verdict_counts(first, *sweep.against);
  }
  for (const wl::SweepSeries& device : sweep.devices) {
    wl::series_device(device.points);
    for (const wl::SweepPoint& point : sweep.points)
      if (const wl::SweepPoint* other = wl::point_at(device.points, point);
          other && other->result && point.result)
        wl::compare_times(*point.result, *other->result);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = wl::fuzz::scratch_file(wl::fuzz::as_text(data, size), "sweep.json");
  wl::fuzz::read_or_refuse([&] { show(wl::viz::load_sweep(file)); });
  return 0;
}
