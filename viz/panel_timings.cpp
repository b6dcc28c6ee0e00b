// Timings: how long the kernel took (median of cold samples, min, noise), what that means in
// GB/s against the device's peak and in GFLOP/s, and the recent runs side by side. Without a
// measurement it still shows the work the launch must do and the time that takes at peak
// bandwidth, the floor any measurement will sit above.

#include "panels.h"
#include "widgets.h"

#include <algorithm>

#include <imgui.h>

namespace wl::viz {

namespace {

// "0.2451 ms, bound by shared memory (67,108,864 wavefronts, one a cycle on each of 132 SMs at
// 1980 MHz); DRAM alone 0.1602 ms": the floor and the resource that sets it, the other beside.
std::string modelled_time_text(const ModelledTime& t, const Arch& arch) {
  const bool shared_bound = t.shared_ms > t.dram_ms;
  const std::string shared = format_count(static_cast<std::int64_t>(t.wavefronts)) +
                             " wavefronts, one a cycle on each of " +
                             std::to_string(arch.sm_count) + " SMs at " +
                             format_number(arch.sm_clock_mhz, 0) + " MHz";
  const std::string dram =
      format_bytes(t.dram_bytes) + " at " + format_number(arch.dram_bandwidth_gbps, 0) + " GB/s";
  std::string text = format_number(t.ms(), 4) + " ms, bound by " + t.bound() + " (" +
                     (shared_bound ? shared : dram) + ")";
  if (shared_bound)
    text += "; DRAM alone " + format_number(t.dram_ms, 4) + " ms";
  else if (t.shared_ms > 0)
    text += "; shared memory alone " + format_number(t.shared_ms, 4) + " ms";
  else if (t.wavefronts > 0)
    text += "; shared memory not modelled (the arch has no SM clock)";
  return text;
}

void draw_work(const RunResult& result) {
  if (!begin_figure_table("##work"))
    return;
  figure_row(figure("bytes_moved"), format_bytes(result.bytes_moved));
  if (result.flops > 0)
    figure_row(figure("arithmetic"), format_number(result.flops / 1e9, 3) + " GFLOP");
  const double peak = result.arch.dram_bandwidth_gbps * 1e9;
  if (peak > 0)
    figure_row(figure("time_at_peak_bytes"),
               format_number(result.bytes_moved / peak * 1e3, 4) + " ms");
  if (const std::optional<ModelledTime> t = modelled_time(result)) {
    figure_row(figure("dram_bytes"), format_bytes(t->dram_bytes));
    figure_row(figure("modelled_time"), modelled_time_text(*t, result.arch));
  }
  ImGui::EndTable();
}

void draw_measurement(const RunResult& result) {
  const TimingStats& t = *result.timing;
  if (!begin_figure_table("##timing"))
    return;
  figure_row(figure("median_time"), format_number(t.median_ms, 4) + " ms");
  figure_row(figure("min_time"), format_number(t.min_ms, 4) + " ms");
  figure_row(figure("noise"), format_number(100 * t.noise, 2) + " %" +
                                  (t.converged ? "" : " (budget reached first)"));
  figure_row(figure("samples"), std::to_string(t.samples));
  figure_row(figure("throughput"), format_number(result.gbps(), 1) + " GB/s");
  figure_row(figure("share_of_peak"),
             format_number(100 * result.peak_bandwidth_fraction(), 1) + " % of " +
                 format_number(result.arch.dram_bandwidth_gbps, 0) + " GB/s");
  if (result.flops > 0)
    figure_row(figure("compute"), format_number(result.gflops(), 1) + " GFLOP/s");
  ImGui::EndTable();
}

// The pinned baseline beside the latest run: its median, the change and the speed-up.
void draw_against_baseline(const App& app) {
  if (!app.baseline)
    return;
  const std::optional<double> now =
      app.latest->timing ? std::optional(app.latest->timing->median_ms) : std::nullopt;
  const std::optional<double> then =
      app.baseline->timing ? std::optional(app.baseline->timing->median_ms) : std::nullopt;
  baseline_heading(app, "Against the baseline, ");
  if (!begin_figure_table("##baseline_timing"))
    return;
  figure_row(figure("baseline_median"), then ? format_number(*then, 4) + " ms" : "not timed");
  figure_row(figure("time_change"), change_text(now, then));
  if (now && then && *now > 0) {
    const double speed_up = *then / *now;
    figure_row(figure("speed_up"), format_number(speed_up, speed_up < 0.1 ? 4 : 2) + "x");
  }
  ImGui::EndTable();
  ImGui::Separator();
}

// The recent timed runs of the kernel on screen (other kernels' times are not comparable), with
// the range of their medians.
void draw_history(const App& app) {
  const std::vector<double> medians = app.recent_medians();
  note_text("Recent runs of " + app.kernel_id + " (median ms, newest right)");
  if (medians.empty()) {
    empty_state(app.latest && !app.latest->recorded_on.empty()
                    ? "None: model mode times nothing here; each run on a GPU joins this list."
                    : "No timed runs of this kernel yet.");
    return;
  }
  const auto [low, high] = std::minmax_element(medians.begin(), medians.end());
  if (medians.size() == 1)
    ImGui::Text("1 run, %s ms", format_number(*low, 4).c_str());
  else
    ImGui::Text("%zu runs, %s to %s ms", medians.size(), format_number(*low, 4).c_str(),
                format_number(*high, 4).c_str());
  history_plot(medians, ImGui::GetContentRegionAvail().x, 48);
}

} // namespace

void draw_timings(App& app) {
  if (app.latest) {
    const RunResult& result = *app.latest;
    MeasuredScope measured(app);
    draw_against_baseline(app); // first: with a baseline pinned, the change is the point
    if (!result.recorded_on.empty())
      recorded_text("Timing " + result.recorded_on + " (model mode: nothing ran here)");
    if (result.timing)
      draw_measurement(result);
    else
      empty_state("Not timed: model mode predicts occupancy and memory traffic, not time, and " +
                  app.untimed_reason() +
                  " A run on a GPU fills the median, noise and throughput "
                  "here.");
  } else {
    empty_state("Not measured yet: Run (F5) measures this launch.");
  }
  ImGui::Separator();
  if (const RunResult* model = app.model_view())
    draw_work(*model);
  draw_history(app);
}

} // namespace wl::viz
