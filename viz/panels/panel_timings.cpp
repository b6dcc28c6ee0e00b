// Timings: how long the kernel took (median of cold samples, min, noise), what that means in
// GB/s against the device's peak and in GFLOP/s, and the recent runs side by side. Without a
// measurement it still shows the work the launch must do and the time that takes at peak
// bandwidth, the floor any measurement will sit above.

#include "drawing/controls.h"
#include "drawing/panel_parts.h"
#include "panels/panels.h"

#include <algorithm>

#include <imgui.h>

namespace wl::viz {

namespace {

// The work the launch must do and the floors it sets, from the model and the launch alone: the
// figure table's timings rows with no measured reader.
void draw_work(const RunResult& result) {
  if (!begin_figure_table("##work"))
    return;
  launch_figure_rows(result, Panel::timings, true);
  ImGui::EndTable();
}

// The timing's own figures: the table's timings rows read from the measurement.
void draw_measurement(const RunResult& result) {
  if (!begin_figure_table("##timing"))
    return;
  launch_figure_rows(result, Panel::timings, false);
  ImGui::EndTable();
}

// Whether the run's outputs were right: what they were compared with, or why they were not.
void draw_verification(const RunResult& result) {
  if (!result.verification)
    return;
  const Verification& v = *result.verification;
  if (!v.skipped.empty())
    error_text("Not verified: " + v.skipped + ".");
  else if (v.passed) // a recording's check was made where it was recorded: the line says so
    note_text(std::string(result.recorded_on.empty() ? "Verified: " : "Verified where recorded: ") +
              format_count(v.checked) + " outputs match " + v.against +
              (v.note.empty() ? "." : " (" + v.note + ")."));
  else
    error_text("WRONG OUTPUT: " + format_count(v.mismatches) + " of " + format_count(v.checked) +
               " outputs differ from " + v.against + "; first " + v.first_failure + ".");
}

// The next Run's energy batch, asked for here (not in model mode, where nothing runs: a
// recording's energy shows where it has one), and why the last run has no energy where it has
// none (the figures themselves are rows of the measurement's table).
void draw_energy_choice(App& app, const RunResult* result) {
  if (!in_model_mode(app)) {
    ui::checkbox("Measure energy", &app.choices.measure_energy);
    help_marker("The next Run (F5) also runs at least 0.5 s of back-to-back launches and reads "
                "NVML's energy counter over 0.3 s of them: joules per launch, mean power, GFLOP "
                "per joule, and the clocks with what held them down. Live edits never make it.");
  }
  if (result && result->energy && !result->energy->available)
    error_text("Energy not measured: " + result->energy->reason);
}

// The pinned baseline beside the latest run: its median, the change and the speed-up.
void draw_timing_against_baseline(const App& app) {
  if (!app.results.baseline)
    return;
  const std::optional<double> now = app.results.latest->timing
                                        ? std::optional(app.results.latest->timing->median_time)
                                        : std::nullopt;
  const std::optional<double> then = app.results.baseline->timing
                                         ? std::optional(app.results.baseline->timing->median_time)
                                         : std::nullopt;
  baseline_heading(app, "Against the baseline, ");
  if (!begin_figure_table("##baseline_timing"))
    return;
  const Figure& median = figure("baseline_median");
  figure_row(median, then ? figure_text(median, *then) : "not timed");
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
  note_text("Recent runs of " + app.choices.kernel_id + " (median ms, newest right)");
  if (medians.empty()) {
    empty_state(app.results.latest && !app.results.latest->recorded_on.empty()
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
  if (app.results.latest) {
    const RunResult& result = *app.results.latest;
    MeasuredScope measured(app);
    draw_timing_against_baseline(app); // first: with a baseline pinned, the change is the point
    if (!result.recorded_on.empty())
      recorded_text("Timing " + result.recorded_on + " (model mode: nothing ran here)");
    if (result.timing)
      draw_measurement(result);
    else
      empty_state("Not timed: model mode measures no time (the modelled time below is the "
                  "fastest its traffic and arithmetic allow at peak), and " +
                  app.untimed_reason() +
                  " A run on a GPU fills the median, noise and throughput "
                  "here.");
    draw_verification(result);
    draw_energy_choice(app, &result);
  } else {
    empty_state("Not measured yet: Run (F5) measures this launch.");
    draw_energy_choice(app, nullptr);
  }
  ImGui::Separator();
  // The launch on screen's work: a measurement's own (its floors at the measured device's peaks,
  // beside its median), else the model's for the preset (the last one while the next is made).
  const RunResult* work = app.result_on_screen();
  if (!work)
    work = app.model_view();
  if (work)
    draw_work(*work);
  draw_history(app);
}

} // namespace wl::viz
