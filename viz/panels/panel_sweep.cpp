// Sweep: the chosen kernel over many block shapes and the values of one of its parameters, from
// the models here, measured by the worker, or loaded from `warplens sweep --json`, coloured by any
// figure: a line for a sweep along one axis (block x, stride, pad), a heatmap of two. Points the
// kernel refuses are drawn as such with the reason on hover; points within the measured noise of
// the best are marked tied, not ranked; a click loads that point into the Launch panel; the table
// exports as CSV and the panel as PNG. With a variant "against" it, an A/B sweep: each point's
// ratio and verdict. A per-device sweep file shows a series per GPU. Every variant: the family's
// ladder at one size, a bar per variant beside the peer.

#include "base/error.h"
#include "base/file_output.h"
#include "drawing/controls.h"
#include "drawing/panel_parts.h"
#include "drawing/sweep_charts.h"
#include "model/block_text.h"
#include "model/kernel_request.h"
#include "panels/panels.h"
#include "registry.h"
#include "workflows/save_folder.h"

#include <algorithm>

#include <imgui.h>

namespace wl::viz {

namespace {

// What Export CSV writes: a variant sweep's row per variant, an A/B sweep's comparison per
// point, a per-device sweep's every GPU's points (the device column apart), else the sweep's
// points.
std::string sweep_table(const App& app) {
  if (app.sweep.variants)
    return variant_sweep_csv(app.sweep.variants->sweep);
  const SweepData& data = *app.sweep.data;
  if (data.against)
    return ab_sweep_csv(SweepSeries{data.kernel_id, data.points}, *data.against);
  std::vector<SweepPoint> all = data.points;
  for (const SweepSeries& device : data.devices)
    all.insert(all.end(), device.points.begin(), device.points.end());
  return sweep_csv(all);
}

// A timestamped file in the app's folder for saved files, a counter added rather than overwrite
// one.
void export_csv(App& app) {
  std::filesystem::path dir;
  try {
    dir = folder_for_saving(app);
  } catch (const Error& e) { // no folder to save in: the table is kept, not lost
    app.messages.status = std::string("sweep not saved: ") + e.what() + "; " +
                          keep_aside("sweep.csv", sweep_table(app)).message;
    note_save(app, app.messages.status);
    return;
  }
  std::error_code error;
  // Named as the Sweep panel's screenshot is (warplens-TIME-sweep.png), so the two sort together.
  const std::string stem = "warplens-" + local_time("%Y%m%d-%H%M%S") + "-sweep";
  std::filesystem::path file = dir / (stem + ".csv");
  for (int n = 2; std::filesystem::exists(file, error); ++n)
    file = dir / (stem + "-" + std::to_string(n) + ".csv");
  const std::string problem = write_file_safely(
      file, sweep_table(app), {.replace_existing = false, .write_through_links = false});
  // Saved in the fallback folder, because the desktop's pictures folder does not exist: said.
  const std::string fallback =
      app.choices.screenshot_dir.empty() ? pictures_folder().fallback_reason : std::string();
  app.messages.status =
      !problem.empty() ? problem : "sweep saved" + (fallback.empty() ? "" : ": " + fallback);
  if (problem.empty())
    app.messages.last_saved_path = file.string();
  note_save(app, !problem.empty() ? problem : saved_note(file, fallback));
}

// A parameter of the kernel swept with the sides, and its values ("none" sweeps the sides alone).
void draw_param_axis(App& app) {
  const KernelDesc* kernel = app.kernel();
  if (!kernel || kernel->params.empty())
    return;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  if (ui::begin_combo("parameter", app.sweep.param.empty() ? "none" : app.sweep.param.c_str())) {
    if (ui::selectable("none", app.sweep.param.empty()))
      app.sweep.param.clear();
    for (const ParamSpec& spec : kernel->params)
      if (ui::selectable(spec.name.c_str(), app.sweep.param == spec.name) &&
          app.sweep.param != spec.name) { // another parameter: its own values, no old refusal
        app.sweep.param = spec.name;
        write_field(default_param_values(spec), app.sweep.param_values);
        app.sweep.problem.clear();
      }
    ImGui::EndCombo();
  }
  help_marker("Sweep this parameter too: every block shape for each of its values, as `warplens "
              "sweep --param-range NAME=start:end:step` does.");
  if (app.sweep.param.empty())
    return;
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  if (ui::input_text("values", app.sweep.param_values.data(), app.sweep.param_values.size(),
                     ImGuiInputTextFlags_EnterReturnsTrue))
    app.model_sweep_now(); // Enter sweeps, as Model sweep does
  help_marker(("start:end:step or a comma-separated list; allowed: " +
               param_allowed(kernel_param(*kernel, app.sweep.param)))
                  .c_str());
}

// A/B: another variant of the kernel's family over the same points ("none" sweeps one kernel).
void draw_against(App& app) {
  const KernelDesc* kernel = app.kernel();
  std::vector<std::string> variants;
  // Variants that can sweep the same axes: a stride sweep is not offered a kernel without stride.
  const auto has_swept_param = [&](const KernelDesc& k) {
    return app.sweep.param.empty() ||
           std::any_of(k.params.begin(), k.params.end(),
                       [&](const ParamSpec& spec) { return spec.name == app.sweep.param; });
  };
  for (const KernelDesc& k : all_kernels())
    if (kernel && k.id != kernel->id && kernel_family(k.id) == kernel_family(kernel->id) &&
        (has_swept_param(k) || k.id == app.sweep.against))
      variants.push_back(k.id);
  if (variants.empty())
    return;
  float widest = ImGui::CalcTextSize("none").x; // the variant's whole id stays readable
  for (const std::string& id : variants)
    widest = std::max(widest, ImGui::CalcTextSize(id.c_str()).x);
  ImGui::SetNextItemWidth(widest + ImGui::GetFrameHeight() + ImGui::GetStyle().FramePadding.x * 2);
  if (ui::begin_combo("against", app.sweep.against.empty() ? "none" : app.sweep.against.c_str())) {
    if (ui::selectable("none", app.sweep.against.empty()))
      app.sweep.against.clear();
    for (const std::string& id : variants)
      if (ui::selectable(id.c_str(), app.sweep.against == id) && app.sweep.against != id) {
        app.sweep.against = id;
        app.sweep.problem.clear();
      }
    ImGui::EndCombo();
  }
  help_marker("A/B: sweep this variant over the same points too. Each point shows its figure over "
              "the kernel on screen's and, for times, a verdict within the noise (SAME, FASTER, "
              "SLOWER, UNSURE: nvbench's compare rule), as `warplens sweep A --against B` does.");
}

void draw_controls(App& app) {
  ImGui::PushItemWidth(ImGui::GetFontSize() * 8);
  if (ui::input_text("block x", app.sweep.x_sides.data(), app.sweep.x_sides.size()))
    app.sweep.sides_typed = true;
  ImGui::SameLine();
  if (ui::input_text("block y", app.sweep.y_sides.data(), app.sweep.y_sides.size()))
    app.sweep.sides_typed = true;
  ImGui::PopItemWidth();
  draw_param_axis(app);
  draw_against(app);
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
  ImGui::SameLine();
  if (ui::button("Every variant"))
    app.model_variants_now();
  if (ImGui::IsItemHovered())
    hover_text("Every variant of " + kernel_family(app.choices.kernel_id) +
               " at the size on screen, each at its default launch, from the models on " +
               app.arch().id + ": the ladder at a glance. `warplens sweep " +
               kernel_family(app.choices.kernel_id) +
               " --variants --json FILE` measures one on a GPU beside the family's peer; open it "
               "with `warplens --sweep-json FILE`.");
  if (app.sweep.data || app.sweep.variants) {
    ImGui::SameLine();
    if (ui::button("Export CSV"))
      export_csv(app);
    ImGui::SameLine();
    if (ui::button("Export PNG")) // the panel's picture, with its sidecar of every figure
      app.frame.screenshot = ScreenshotRequest{Panel::sweep, ""};
  }
  if (app.sweep.running && app.source) {
    const auto [done, total] = app.source->sweep_progress();
    // An A/B sweep measures one kernel, then the other: the bar says whose shapes it counts.
    const std::string whose = app.sweep.first_half    ? app.sweep.against + ": "
                              : app.sweep.second_half ? app.choices.kernel_id + ": "
                                                      : "";
    ImGui::ProgressBar(
        total > 0 ? static_cast<float>(done) / total : 0.0f,
        ImVec2(ImGui::GetFontSize() * (whose.empty() ? 14 : 24), 0),
        (whose + (total > 0 ? std::to_string(done) + " of " + std::to_string(total) + " shapes"
                            : "starting"))
            .c_str());
    ImGui::SameLine();
    if (ui::button("Cancel"))
      app.source->cancel_sweep();
  }
  if (!app.sweep.problem.empty())
    error_text(app.sweep.problem);
}

// A 1D sweep's second line ("none" by default): a figure of another unit on the right axis.
void draw_second_choice(App& app, const std::vector<SweepMetric>& offered) {
  if (std::find(offered.begin(), offered.end(), app.sweep.second) == offered.end())
    app.sweep.second = nullptr;
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
  if (ui::begin_combo("second figure",
                      app.sweep.second ? figure_label(*app.sweep.second).c_str() : "none")) {
    if (ui::selectable("none", !app.sweep.second))
      app.sweep.second = nullptr;
    for (SweepMetric m : offered)
      if (m != app.sweep.metric && ui::selectable(figure_label(*m).c_str(), m == app.sweep.second))
        app.sweep.second = m;
    ImGui::EndCombo();
  }
  help_marker("A second line on the chart, with its own axis at the right (GB/s beside sectors per "
              "request)");
}

// Only the figures the sweep has are offered; the choice falls back to the first of them.
void draw_metric_choice(App& app, const SweepData& data, bool one_axis) {
  const std::vector<SweepMetric> offered = offered_metrics(data);
  if (offered.empty())
    return;
  if (std::find(offered.begin(), offered.end(), app.sweep.metric) == offered.end())
    app.sweep.metric = offered.front();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
  // A line chart draws its figure along y; only a heatmap colours by one.
  if (ui::begin_combo(one_axis ? "figure" : "colour by", figure_label(*app.sweep.metric).c_str())) {
    for (SweepMetric m : offered)
      if (ui::selectable(figure_label(*m).c_str(), m == app.sweep.metric)) {
        app.sweep.metric = m;
        app.sweep.metric_chosen = true;
      }
    ImGui::EndCombo();
  }
  if (one_axis && !data.against && data.devices.empty()) // else the lines are kernels' or GPUs'
    draw_second_choice(app, offered);
}

// A per-request figure is of one site, the worst: named, so a sweep of a load and a store never
// reads as an average of the two.
void draw_site_of_metric(const Figure& metric, const RunResult& first_point) {
  const bool sectors = metric.key == "sectors_per_request";
  if (!sectors && metric.key != "wavefronts_per_request")
    return;
  const SitePrediction* site =
      worst_site(first_point, sectors ? MemorySpace::global : MemorySpace::shared);
  if (!site)
    return;
  note_text(std::string(metric.display) + ": of the worst site, \"" + site->name + "\" (" +
            access_kind(site->space, site->op) + ")" +
            (sectors ? "; measured: the worse of the loads' and the stores' counters" : ""));
}

// The sweep's parameters and the ones on screen agree, but for the axes the sweep varies.
bool same_unswept_params(const Params& swept, const Params& shown, const ChartAxes& axes) {
  for (const auto& [name, value] : swept)
    if (name != axes.x && name != axes.y &&
        std::find(axes.held.begin(), axes.held.end(), name) == axes.held.end() &&
        (!shown.contains(name) || shown.at(name) != value))
      return false;
  return true;
}

// A combo per held axis, listing its values: the chart shows the slice chosen (the first point's
// value until one is chosen; a value the sweep lacks falls back to it).
void draw_slice_choice(App& app, const SweepData& data, ChartAxes& axes) {
  for (const std::string& axis : axes.held) {
    const std::vector<std::int64_t> values = axis_values(data.points, axis);
    const auto chosen = app.sweep.held_at.find(axis);
    const std::int64_t at =
        chosen != app.sweep.held_at.end() &&
                std::find(values.begin(), values.end(), chosen->second) != values.end()
            ? chosen->second
            : axis_value(data.points.front(), axis);
    axes.held_at[axis] = at;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    if (ui::begin_combo(axis_title(axis).c_str(), std::to_string(at).c_str())) {
      for (std::int64_t value : values)
        if (ui::selectable(std::to_string(value).c_str(), value == at))
          app.sweep.held_at[axis] = axes.held_at[axis] = value;
      ImGui::EndCombo();
    }
    ImGui::SameLine();
  }
  if (!axes.held.empty())
    ImGui::NewLine();
}

// A clicked point into the Launch panel (its block, and its values of the swept parameters) and
// run.
void load_point(App& app, const SweepPoint& point, const SweepData& data) {
  if (const KernelDesc* kernel = app.kernel(); kernel && kernel->id == data.kernel_id)
    for (const auto& [name, value] : point.params)
      if (app.choices.params.contains(name) && app.choices.params.at(name) != value)
        app.choices.set_param(name, value);
  app.choices.set_block(point.block);
  app.run();
}

// A clicked variant into the Launch panel at the sweep's size, and run.
void open_variant(App& app, const VariantPoint& variant, const VariantSweep& sweep) {
  if (!app.select_kernel(variant.kernel_id))
    return;
  for (const auto& [name, value] : sweep.size)
    if (app.choices.params.contains(name) && app.choices.params.at(name) != value)
      app.choices.set_param(name, value);
  app.run();
}

void draw_variants(App& app, const ShownVariants& shown) {
  note_text(shown.origin + ": " + variants_shown_words(shown.sweep) + " at " +
            variant_sweep_size_words(shown.sweep) + ", each at its default launch" +
            (shown.sweep.peer ? std::string()
             : shown.origin.starts_with("model")
                 ? "; no peer beside the models' times"
                 : "; no peer: no library variant in the family, and no torch call recorded "
                   "for this GPU and size"));
  if (const VariantPoint* clicked = variant_bars(shown, app.choices.kernel_id))
    open_variant(app, *clicked, shown.sweep);
}

} // namespace

void draw_sweep(App& app) {
  draw_controls(app);
  if (app.sweep.variants) {
    const ShownVariants shown = *app.sweep.variants; // a click may replace it
    draw_variants(app, shown);
    return;
  }
  if (!app.sweep.data) {
    empty_state("No sweep yet: Model sweep sweeps the current kernel over the sides above.");
    return;
  }
  const SweepData& data = *app.sweep.data;
  ChartAxes axes = chart_axes(data);
  note_text(data.origin + ": " + data.kernel_id +
            (data.against ? " (A) and " + data.against->kernel_id + " (B)" : std::string()) + ", " +
            std::to_string(data.points.size()) + " points" +
            (data.devices.empty() ? "" : " on each GPU"));
  if (const KernelDesc* kernel = app.kernel();
      kernel && data.kernel_id == kernel->id && !data.params.empty() &&
      !same_unswept_params(data.params, app.choices.params, axes))
    recorded_text("This sweep ran with " + format_params(*kernel, data.params) +
                  ", not the parameters on screen: "
                  "Model sweep (or Measure sweep) again for them.");
  if (!axes.held.empty()) {
    recorded_text("This sweep varies along " + std::to_string(2 + axes.held.size()) +
                  " axes; the chart shows " + axis_title(axes.x) + " and " + axis_title(axes.y) +
                  " at the values chosen here (Export CSV has every point):");
    draw_slice_choice(app, data, axes);
  }
  const auto allowed = std::find_if(data.points.begin(), data.points.end(),
                                    [](const SweepPoint& p) { return p.result; });
  if (allowed == data.points.end()) {
    error_text(data.points.empty() ? std::string("The sweep has no points.")
                                   : "The kernel refused every point of this sweep; the first: " +
                                         point_name(data.points.front(), axes) + ": " +
                                         data.points.front().refused);
    return;
  }
  draw_metric_choice(app, data, axes.y.empty());
  draw_site_of_metric(*app.sweep.metric, *allowed->result);
  const SweepPoint current{app.block(), "", std::nullopt, app.choices.params};
  const SweepPoint* clicked =
      axes.y.empty() ? line_chart(data, axes, app.sweep.metric, app.sweep.second, current)
                     : nullptr;
  if (const SweepPoint* cell = data.against ? ab_heatmap(data, axes, app.sweep.metric, current)
                                            : heatmap(data, axes, app.sweep.metric, current))
    clicked = cell;
  if (clicked)
    load_point(app, *clicked, data);
}

} // namespace wl::viz
