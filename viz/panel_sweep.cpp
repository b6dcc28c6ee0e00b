// Sweep: the chosen kernel over many block shapes, from the models here or measured on a GPU
// (`warplens sweep --json`, loaded from a file), coloured by any figure: a line over block x for a
// 1D sweep, a heatmap of block x against block y for a 2D one. Shapes the kernel refuses are drawn
// as such with the reason on hover; shapes within the measured noise of the best are marked tied,
// not ranked; a click loads that shape into the Launch panel; the table exports as CSV.

#include "block_text.h"
#include "controls.h"
#include "error.h"
#include "kernel_request.h"
#include "panels.h"
#include "screenshot.h"
#include "settings.h"
#include "sweep_charts.h"
#include "widgets.h"

#include <algorithm>
#include <fstream>

#include <imgui.h>

namespace wl::viz {

namespace {

// A timestamped file in the app's folder for saved files, a counter added rather than overwrite
// one.
void export_csv(App& app) {
  std::filesystem::path dir;
  try {
    dir = folder_for_saving(app);
  } catch (const UsageError& e) {
    app.status = std::string("sweep not saved: ") + e.what();
    return;
  }
  std::error_code error;
  const std::string stem = "warplens-sweep-" + local_time("%Y%m%d-%H%M%S");
  std::filesystem::path file = dir / (stem + ".csv");
  for (int n = 2; std::filesystem::exists(file, error); ++n)
    file = dir / (stem + "-" + std::to_string(n) + ".csv");
  const std::string problem = write_file_atomically(file, sweep_csv(app.sweep.data->points));
  app.status = problem.empty() ? "sweep saved" : problem;
  if (problem.empty())
    app.last_saved_path = file.string();
}

void draw_controls(App& app) {
  ImGui::PushItemWidth(ImGui::GetFontSize() * 8);
  if (ui::input_text("block x", app.sweep.x_sides.data(), app.sweep.x_sides.size()))
    app.sweep.sides_typed = true;
  ImGui::SameLine();
  if (ui::input_text("block y", app.sweep.y_sides.data(), app.sweep.y_sides.size()))
    app.sweep.sides_typed = true;
  ImGui::PopItemWidth();
  if (ui::button("Model sweep"))
    app.model_sweep_now();
  if (ImGui::IsItemHovered())
    hover_text("Every shape through the occupancy and access models on " + app.arch().id +
               " (no GPU): theoretical occupancy, sectors and wavefronts per request. `warplens "
               "sweep <kernel> --json "
               "FILE` measures one on a GPU; open it with `warplens --sweep-json FILE`.");
  ImGui::SameLine();
  ImGui::BeginDisabled(app.sweep.running || !app.source);
  if (ui::button("Measure sweep"))
    app.measure_sweep();
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    hover_text("Every shape measured by the worker (timing, verification, the default counters), "
               "one session for "
               "all; with no GPU there, the models.");
  if (app.sweep.data) {
    ImGui::SameLine();
    if (ui::button("Export CSV"))
      export_csv(app);
  }
  if (app.sweep.running && app.source) {
    const auto [done, total] = app.source->sweep_progress();
    ImGui::ProgressBar(
        total > 0 ? static_cast<float>(done) / total : 0.0f, ImVec2(ImGui::GetFontSize() * 14, 0),
        total > 0 ? (std::to_string(done) + " of " + std::to_string(total) + " shapes").c_str()
                  : "starting");
    ImGui::SameLine();
    if (ui::button("Cancel"))
      app.source->cancel_sweep();
  }
  if (!app.sweep.problem.empty())
    error_text(app.sweep.problem);
}

// Only the figures the sweep has are offered; the choice falls back to the first of them.
void draw_metric_choice(App& app, const SweepData& data) {
  const std::vector<SweepMetric> offered = offered_metrics(data);
  if (offered.empty())
    return;
  if (std::find(offered.begin(), offered.end(), app.sweep.metric) == offered.end())
    app.sweep.metric = offered.front();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
  if (ui::begin_combo("colour by", figure_label(*app.sweep.metric).c_str())) {
    for (SweepMetric m : offered)
      if (ui::selectable(figure_label(*m).c_str(), m == app.sweep.metric))
        app.sweep.metric = m;
    ImGui::EndCombo();
  }
}

} // namespace

void draw_sweep(App& app) {
  draw_controls(app);
  if (!app.sweep.data) {
    empty_state("No sweep yet: Model sweep sweeps the current kernel over the sides above.");
    return;
  }
  const SweepData& data = *app.sweep.data;
  note_text(data.origin + ": " + data.kernel_id + ", " + std::to_string(data.points.size()) +
            " shapes");
  if (const KernelDesc* kernel = app.kernel();
      kernel && data.kernel_id == kernel->id && !data.params.empty() && data.params != app.params)
    recorded_text("This sweep ran with " + format_params(*kernel, data.params) +
                  ", not the parameters on screen: "
                  "Model sweep (or Measure sweep) again for them.");
  const auto allowed = std::find_if(data.points.begin(), data.points.end(),
                                    [](const SweepPoint& p) { return p.result; });
  if (allowed == data.points.end()) {
    error_text(data.points.empty() ? std::string("The sweep has no shapes.")
                                   : "The kernel refused every shape of this sweep; the first: " +
                                         format_block(data.points.front().block) + ": " +
                                         data.points.front().refused);
    return;
  }
  draw_metric_choice(app, data);
  const SweepPoint* clicked =
      one_row(data) ? line_chart(data, app.sweep.metric, app.block()) : nullptr;
  if (const SweepPoint* cell = heatmap(data, app.sweep.metric, app.block()))
    clicked = cell;
  if (clicked) {
    app.set_block(clicked->block);
    app.run();
  }
}

} // namespace wl::viz
