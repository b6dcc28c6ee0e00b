// Roofline: where the launch sits under its GPU's roofs, FP32 FLOP/s against FLOP per byte: the
// DRAM roof (bandwidth x intensity) up to the ridge, the L2 roof above it, the FP32 peak after
// them. The launch on screen (by DRAM bytes and by L2 bytes), the pinned baseline and every timed
// point of the last sweep are placed on it; the text says how far the launch is from the lowest
// roof over it and which roof that is, and sets the counters' FLOPs and bytes beside the model's
// with why they differ. The arithmetic is report/roofline.

#include "drawing/panel_parts.h"
#include "drawing/widgets.h"
#include "model/block_text.h"
#include "panels/panels.h"
#include "report/counter_comparison.h"
#include "report/figures.h"
#include "report/roofline.h"

#include <algorithm>

#include <imgui.h>

namespace wl::viz {

namespace {

// A figure of the roofline's table beside the model's, and why they differ where they do: the
// comparison's row, as the Counters panel shows it.
std::string measured_beside_model(const std::vector<ComparisonRow>& rows, const char* key) {
  for (const ComparisonRow& row : rows)
    if (row.key == key && row.flagged && !row.reason.empty())
      return " (" + difference_text(row) + ": " + row.reason + ")";
  return "";
}

// "this launch: 8.03 FLOP/byte (137.439 GFLOP, the kernel's count, over 15.9 GiB of DRAM traffic
// from the recorded DRAM counters; the model counts 192 MiB), 8,156.0 GFLOP/s".
std::string point_label(const std::string& what, const RooflinePoint& p) {
  const std::string modelled =
      p.bytes_measured ? "; the model counts " + format_bytes(p.modelled_dram_bytes) : "";
  return what + ": " + format_number(p.intensity(), 2) + " FLOP/byte (" +
         format_number(p.flops / 1e9, 3) + " GFLOP, the kernel's count, over " +
         format_bytes(p.dram_bytes) + " of DRAM traffic from " + p.bytes_source + modelled + "), " +
         (p.timed                 ? format_number(p.gflops, 1) + " GFLOP/s"
          : p.modelled_gflops > 0 ? "not timed; predicted " + format_number(p.modelled_gflops, 1) +
                                        " GFLOP/s at the modelled time at peak (hollow dot)"
                                  : "not timed");
}

// The launch's counts measured beside the model's, each with why it differs where it does.
void measured_counts(const RunResult& result, const RooflinePoint& p) {
  const std::vector<ComparisonRow> rows = compare_counters(result); // once a frame, for all three
  if (p.measured_flops)
    wrapped_textf("FP32 operations counted: %s GFLOP (FADD + FMUL + 2 x FFMA) beside the "
                  "kernel's %s%s",
                  format_number(*p.measured_flops / 1e9, 3).c_str(),
                  format_number(p.flops / 1e9, 3).c_str(),
                  measured_beside_model(rows, "fp32_operations").c_str());
  if (p.bytes_measured)
    wrapped_textf("DRAM bytes measured: %s beside the model's %s%s",
                  format_bytes(p.dram_bytes).c_str(), format_bytes(p.modelled_dram_bytes).c_str(),
                  measured_beside_model(rows, "dram_traffic").c_str());
  if (p.l2_bytes > 0 && p.l2_measured)
    wrapped_textf("L2 bytes from L1 measured: %s beside the model's %s, %s FLOP/byte%s",
                  format_bytes(p.l2_bytes).c_str(), format_bytes(p.modelled_l2_bytes).c_str(),
                  format_number(p.l2_intensity(), 2).c_str(),
                  measured_beside_model(rows, "l2_traffic").c_str());
  else if (p.l2_bytes > 0)
    wrapped_textf("L2 bytes from L1 modelled: %s%s, %s FLOP/byte", format_bytes(p.l2_bytes).c_str(),
                  p.l2_note.c_str(), format_number(p.l2_intensity(), 2).c_str());
}

// What the chart draws, in words: its axes, the roofs over this launch and the marks.
std::string roofs_intro(const RooflineCeilings& roofs, const std::string& gpu, bool tensor_cores) {
  const std::string dram =
      "the DRAM roof (" + format_number(roofs.dram_gbps, 0) + " GB/s x intensity)";
  const std::string compute =
      tensor_cores ? dram + ", and no FP32 roof: this kernel's multiply-adds run on the tensor "
                            "cores"
      : roofs.fp32_gflops > 0 ? dram + " meets the FP32 roof (" +
                                    format_number(roofs.fp32_gflops, 0) + " GFLOP/s) at the ridge"
                              : dram + ", and no FP32 roof: its rate is unknown for this arch";
  const std::string l2 = roofs.l2_gbps > 0
                             ? "the thin L2 roof (" + format_number(roofs.l2_gbps, 0) +
                                   " GB/s) is over the launch's square, its FLOP per byte L1 "
                                   "moved to and from L2"
                             : "no L2 roof: WarpLens knows no L2 bandwidth for " + gpu;
  return "FP32 FLOP/s against FLOP per byte, both log: " + compute + "; " + l2 +
         ". Dot: this launch (hollow: untimed, where the model puts it); ring: the baseline; small "
         "dots: the sweep.";
}

void add_point(std::vector<ChartPoint>& points, const RunResult& result, ChartPoint::Kind kind,
               const std::string& what) {
  if (const std::optional<RooflinePoint> p = roofline_point(result)) {
    // An untimed launch stands where the model puts it; a baseline's or a sweep's only if timed.
    const bool predicted = !p->timed && kind == ChartPoint::Kind::launch;
    points.push_back({p->intensity(),
                      predicted  ? p->modelled_gflops
                      : p->timed ? p->gflops
                                 : 0,
                      kind, point_label(what, *p), predicted});
  }
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
  const RunResult* result = result_or_why_not(app);
  if (!result)
    return;
  const RooflineCeilings roofs = roofline_ceilings(result->arch);
  if (roofs.dram_gbps <= 0) { // a device whose bandwidth was not read has no roof to draw
    empty_state(result->arch.name + " has no DRAM bandwidth known to WarpLens: no roofline.");
    return;
  }
  std::string why;
  const std::optional<RooflinePoint> point = roofline_point(*result, &why);
  if (!point) { // no chart is drawn, so no words about its marks either
    empty_state(why);
    return;
  }
  // The verdict, the chart, then the words: at 1280x720 text above the chart pushed it out of
  // sight. The chart leaves a few lines of the text below it in view.
  wrapped_text(roofline_verdict(*point, roofs));
  std::vector<ChartPoint> points;
  add_sweep_points(app, points);
  if (app.results.baseline)
    add_point(points, *app.results.baseline, ChartPoint::Kind::baseline,
              "baseline " + app.baseline_label());
  add_point(points, *result, ChartPoint::Kind::launch, "this launch");
  if (roofs.l2_gbps > 0 && point->l2_bytes > 0)
    points.push_back({point->l2_intensity(), point->timed ? point->gflops : point->modelled_gflops,
                      ChartPoint::Kind::l2,
                      "this launch by L2 bytes: " + format_number(point->l2_intensity(), 2) +
                          " FLOP per byte L1 moved to and from L2"});
  const float width = ImGui::GetContentRegionAvail().x;
  const float lines = ImGui::GetTextLineHeightWithSpacing();
  roofline_chart(roofs.dram_gbps, roofs.l2_gbps, point->tensor_cores ? 0 : roofs.fp32_gflops,
                 points, width,
                 std::clamp(ImGui::GetContentRegionAvail().y - 4 * lines, 8 * lines,
                            std::max(8 * lines, width * 0.6f)));
  wrapped_text(point_label("this launch", *point));
  measured_counts(*result, *point);
  if (!point->timed)
    note_text(app.untimed_reason());
  note_text(roofs_intro(roofs, result->arch.name, runs_on_tensor_cores(*result)));
}

} // namespace wl::viz
