// Counters: every memory access site of the kernel, the traffic the model predicts for it
// (requests, 32-byte sectors per request, shared-memory wavefronts per request), and, when a GPU
// run collected hardware counters, each measured figure beside the model's launch total with the
// difference and its known reason. Until then the measured column says why there is none.

#include "drawing/panel_parts.h"
#include "drawing/stall_bars.h"
#include "panels/panels.h"
#include "report/counter_comparison.h"
#include "report/site_report.h"

#include <algorithm>

#include <imgui.h>

namespace wl::viz {

namespace {

void draw_totals(const LaunchPrediction& prediction) {
  std::int64_t sectors = 0, ideal = 0, fetched = 0, used = 0;
  for (const SitePrediction& site : prediction.sites) {
    sectors += site.sectors, ideal += site.ideal_sectors;
    fetched += site.bytes_fetched, used += site.bytes_used;
  }
  wrapped_textf("global: %s sectors (ideal %s); %s fetched for %s used",
                format_count(sectors).c_str(), format_count(ideal).c_str(),
                format_bytes(static_cast<double>(fetched)).c_str(),
                format_bytes(static_cast<double>(used)).c_str());
  if (prediction.exact())
    note_text("every warp evaluated (" + format_number(1e3 * prediction.seconds, 1) + " ms)");
  else
    note_text("estimated from " + format_count(prediction.warp_iterations_evaluated) + " of " +
              format_count(prediction.warp_iterations) + " warp-iterations");
}

// The profiler's range time sits beside the kernel's counters but is not the kernel's time: said
// on screen, with the kernel's time beside it, so the two never read as one figure twice.
void draw_range_time_note(const RunResult& result) {
  const CounterValue* range = result.counters->find("profiled_range_time");
  if (!range || !result.timing)
    return;
  note_text(std::string(figure("profiled_range_time").display) + " (" +
            figure_text(figure("profiled_range_time"), range->value) +
            ") spans the profiler's range around the launch, not the kernel alone; the kernel's "
            "time is Timings' median, " +
            figure_text(figure("median_time"), result.timing->median_time) + ".");
}

// Launch totals: the hardware's figure beside the model's, flagged past the 2 % tolerance.
void draw_measured_counters(const RunResult& result, const App& app) {
  const CounterResult& counters = *result.counters;
  if (!counters.available) {
    error_text("Counters unavailable: " + counters.reason);
    return;
  }
  if (!result.recorded_on.empty())
    recorded_text("Counters " + result.recorded_on + " (" + counters.chip + ", " +
                  std::to_string(counters.passes) + " passes; model mode: nothing ran here)");
  else
    note_text("Measured on " + counters.chip + " in " + std::to_string(counters.passes) +
              " pass(es)");
  counter_table("##measured", result, app, std::nullopt);
  draw_range_time_note(result);
  for (const std::string& name : counters.no_value)
    note_text("No value from the profiler for " + name + " in this launch: not shown as a number");
  // With a per-site pass: its instructions' sums beside these counters, and what the shared
  // counter holds that no instruction made.
  for (const std::string& line : site_sums_lines(result))
    note_text(line + ".");
}

// Where the warps of the latest run waited, where it sampled them.
void draw_stalls_part(App& app) {
  const RunResult* latest = app.results.latest ? &*app.results.latest : nullptr;
  if (!latest || !latest->stalls || latest->kernel_id != app.choices.kernel_id)
    return;
  ImGui::Separator();
  stall_table(app, *latest);
}

// The latest run's launch counters, or why there are none yet.
void draw_measured_part(const App& app) {
  if (app.results.latest && app.results.latest->counters) {
    MeasuredScope scope(app);
    draw_measured_counters(*app.results.latest, app);
  } else if (app.results.latest && app.results.latest_counting) {
    empty_state("Measuring this run's counters: its timing is in Timings already.");
  } else if (app.results.latest && !app.results.latest->timing) {
    // Neither measured nor recorded (a run on a GPU is always timed): model mode, a launch the
    // recording lacks. Say where the measured table would be.
    empty_state("No measured counters for this launch: " + app.untimed_reason() +
                " A run on a GPU measures any launch.");
  } else {
    empty_state("No measured counters yet: a run (F5) on a GPU fills the table here.");
  }
}

} // namespace

void draw_counters(App& app) {
  const RunResult* model = model_for_panel(app);
  if (!model)
    return;
  const RunResult& result = *model;
  const LaunchPrediction& prediction = result.prediction;
  if (prediction.sites.empty()) { // nothing predicted: what was measured, nothing more
    empty_state((result.kernel_kind == KernelKind::run_time
                     ? no_file_sites_text(prediction, "global or shared access")
                     : std::string(no_index_math_reason(result.kernel_kind))) +
                " The launch's counters, where a run measured them:");
    draw_measured_part(app);
    draw_stalls_part(app);
    return;
  }
  empty_state("Predicted by the access model, per site. The hardware counts the launch as a whole: "
              "its figures "
              "are in the table below the sites, beside the sites' sums. Hover a header for its "
              "meaning and unit.");
  // The measured table is the latest run's, not the model's: room for it whenever that has one,
  // and the sites table no taller than its rows.
  const bool measured =
      app.results.latest && app.results.latest->counters && app.results.latest->counters->available;
  const float reserved = measured ? 0.45f * ImGui::GetContentRegionAvail().y : 0;
  const float rows_height =
      (static_cast<float>(prediction.sites.size()) + 1.5f) * ImGui::GetTextLineHeightWithSpacing();
  const float table_height =
      std::min(rows_height, ImGui::GetContentRegionAvail().y - reserved -
                                3.5f * ImGui::GetTextLineHeightWithSpacing());
  site_figure_table("##sites", prediction, std::nullopt,
                    {{"requests"}, {"sectors_per_request", true}, {"wavefronts_per_request", true}},
                    table_height);
  draw_totals(prediction);
  draw_measured_part(app);
  draw_stalls_part(app);
}

} // namespace wl::viz
