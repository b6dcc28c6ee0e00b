// Roofline: where the launch sits under its GPU's two roofs, FP32 FLOP/s against FLOP per DRAM
// byte: the DRAM roof (bandwidth x intensity) up to the ridge, the FP32 peak after it. The
// launch on screen, the pinned baseline and every timed point of the last sweep are placed on it;
// the text says how far the launch is from the roof over it and which roof that is. The
// arithmetic is report/roofline.

#include "model/block_text.h"
#include "panel_parts.h"
#include "panels.h"
#include "report/roofline.h"
#include "widgets.h"

#include <algorithm>

#include <imgui.h>

namespace wl::viz {

namespace {

// "this launch: 8.03 FLOP/byte (137.439 GFLOP over 15.9 GiB of DRAM traffic from the recorded
// DRAM counters; the model counts 192 MiB), 8,156.0 GFLOP/s".
std::string point_label(const std::string& what, const RooflinePoint& p) {
  std::string modelled =
      p.bytes_measured ? "; the model counts " + format_bytes(p.modelled_dram_bytes) : "";
  if (p.bytes_measured && p.dram_bytes > 1.02 * p.modelled_dram_bytes)
    modelled += ", a floor: it reads each buffer from DRAM once at most, and the rest are "
                "re-reads after L2 let the data go";
  else if (p.bytes_measured && p.dram_bytes < 0.98 * p.modelled_dram_bytes)
    modelled += "; the counters see fewer: bytes L2 still held (read by the launch before, or "
                "written and not yet evicted) never crossed DRAM";
  return what + ": " + format_number(p.intensity(), 2) + " FLOP/byte (" +
         format_number(p.flops / 1e9, 3) + " GFLOP, the kernel's count, over " +
         format_bytes(p.dram_bytes) + " of DRAM traffic from " + p.bytes_source + modelled + "), " +
         (p.timed ? format_number(p.gflops, 1) + " GFLOP/s" : "not timed");
}

void add_point(std::vector<ChartPoint>& points, const RunResult& result, ChartPoint::Kind kind,
               const std::string& what) {
  if (const std::optional<RooflinePoint> p = roofline_point(result))
    points.push_back({p->intensity(), p->timed ? p->gflops : 0, kind, point_label(what, *p)});
}

// The sweep's timed points of the kernel on screen: the ladder of shapes under the roof.
void add_sweep_points(const App& app, std::vector<ChartPoint>& points) {
  if (!app.sweep.data || app.sweep.data->kernel_id != app.choices.kernel_id)
    return;
  for (const SweepPoint& point : app.sweep.data->points)
    if (point.result)
      add_point(points, *point.result, ChartPoint::Kind::sweep,
                "sweep point, block " + format_block(point.block));
}

} // namespace

void draw_roofline(App& app) {
  const RunResult* result = app.result_on_screen();
  if (!result) {
    empty_state("Computing the launch's figures...");
    return;
  }
  const RooflineCeilings roofs = roofline_ceilings(result->arch);
  if (roofs.dram_gbps <= 0) { // a device whose bandwidth was not read has no roof to draw
    empty_state(result->arch.name + " has no DRAM bandwidth known to WarpLens: no roofline.");
    return;
  }
  note_text("FP32 FLOP/s against FLOP per DRAM byte, both log: the DRAM roof (" +
            format_number(roofs.dram_gbps, 0) + " GB/s x intensity) meets the FP32 roof (" +
            (roofs.fp32_gflops > 0 ? format_number(roofs.fp32_gflops, 0) + " GFLOP/s"
                                   : std::string("unknown for this arch")) +
            ") at the ridge. Dot: this launch; ring: the baseline; small dots: the sweep.");
  std::string why;
  const std::optional<RooflinePoint> point = roofline_point(*result, &why);
  if (!point) {
    empty_state(why);
    return;
  }
  ImGui::TextWrapped("%s", point_label("this launch", *point).c_str());
  ImGui::TextWrapped("%s", roofline_verdict(*point, roofs).c_str());
  if (!point->timed)
    note_text(app.untimed_reason());
  std::vector<ChartPoint> points;
  add_sweep_points(app, points);
  if (app.results.baseline)
    add_point(points, *app.results.baseline, ChartPoint::Kind::baseline,
              "baseline " + app.baseline_label());
  add_point(points, *result, ChartPoint::Kind::launch, "this launch");
  const float width = ImGui::GetContentRegionAvail().x;
  roofline_chart(
      roofs.dram_gbps, roofs.fp32_gflops, points, width,
      std::clamp(ImGui::GetContentRegionAvail().y - 4, ImGui::GetFontSize() * 8, width * 0.6f));
}

} // namespace wl::viz
