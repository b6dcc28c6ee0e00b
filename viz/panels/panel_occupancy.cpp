// Occupancy: how many blocks of this launch fit on one SM, which resource stops one more, the
// three impact curves (what changing block size, registers or shared memory would do), and how
// the grid falls into waves.

#include "drawing/panel_parts.h"
#include "panels/panels.h"

#include <algorithm>

#include <imgui.h>

namespace wl::viz {

namespace {

std::optional<double> achieved_percent(const RunResult& result) {
  return figure("achieved_occupancy").measured(result);
}

// The table's occupancy rows: the model's and the launch's own, the achieved occupancy the
// counters measured (said for what it is when it belongs to another launch), then the rows the
// device measured. The rows of the table's "waves" part are drawn apart (draw_waves).
void draw_summary(const App& app, const RunResult& result) {
  if (!begin_figure_table("##occupancy"))
    return;
  launch_figure_rows(result, Panel::occupancy, true);
  const bool measured_elsewhere =
      app.results.latest && achieved_percent(*app.results.latest).has_value();
  const std::string achieved =
      !app.results.latest ? "not measured yet: Run (F5)"
      : app.latest_is_stale()
          ? (measured_elsewhere
                 ? achieved_occupancy_text(*app.results.latest) + " of another launch (F5)"
                 : "not measured (needs a run with counters)")
          : achieved_occupancy_text(*app.results.latest);
  figure_row(figure("achieved_occupancy"), achieved);
  launch_figure_rows(result, Panel::occupancy, false);
  ImGui::EndTable();
}

// Three curves side by side where their titles fit, else as many per row as do.
void draw_curves(const App& app, const RunResult& result) {
  if (!app.results.curves)
    return;
  const ImGuiStyle& style = ImGui::GetStyle();
  const float widest_title = ImGui::CalcTextSize("shared memory / block").x;
  const float width =
      std::max((ImGui::GetContentRegionAvail().x - 2 * style.ItemSpacing.x) / 3, widest_title);
  const float height = ImGui::GetFontSize() * 5.5f;
  const auto current_smem = result.attributes->static_shared_bytes + result.dynamic_smem;
  note_text("Occupancy (0 to 100 %) if one input changed; the dot is this launch");
  const struct {
    const char* title;
    const std::vector<CurvePoint>& points;
    std::int64_t current;
    const char* unit;
  } curves[] = {
      {"block size", app.results.curves->block_size, result.launch.block.threads(), "threads"},
      {"registers / thread", app.results.curves->registers, result.attributes->registers, "regs"},
      {"shared memory / block", app.results.curves->shared_memory, current_smem, "B"},
  };
  bool first = true;
  for (const auto& curve : curves) {
    if (!first)
      same_line_if_room(width);
    first = false;
    ImGui::BeginGroup();
    impact_curve(curve.title, curve.points, curve.current, curve.unit, width, height);
    ImGui::EndGroup();
  }
}

void draw_waves(const RunResult& result) {
  ImGui::TextDisabled("Waves");
  if (!begin_figure_table("##waves"))
    return;
  launch_figure_rows(result, Panel::occupancy, true, "waves");
  ImGui::EndTable();
}

// The pinned baseline's occupancy beside the latest, in points.
void draw_occupancy_against_baseline(const App& app) {
  if (!app.results.baseline)
    return;
  const RunResult &now = *app.model_view(), &then = *app.results.baseline;
  const Figure& theoretical = figure("theoretical_occupancy");
  baseline_heading(app, "Against the baseline, ");
  if (!ImGui::BeginTable("##baseline_occupancy", 3, ImGuiTableFlags_SizingStretchProp))
    return;
  const auto row = [](const Figure& f, std::optional<double> a, std::optional<double> b) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(std::string(f.display).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(b ? (figure_text(f, *b) + " then").c_str() : "-");
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(change_text(a, b, true).c_str());
  };
  row(theoretical, theoretical.predicted(now), theoretical.predicted(then));
  row(figure("achieved_occupancy"),
      app.results.latest && !app.latest_is_stale() ? achieved_percent(*app.results.latest)
                                                   : std::nullopt,
      achieved_percent(then));
  ImGui::EndTable();
}

} // namespace

std::string achieved_occupancy_text(const RunResult& result) {
  const std::optional<double> achieved = achieved_percent(result);
  if (!achieved)
    return "not measured (needs a run with counters)";
  return figure_text(figure("achieved_occupancy"), *achieved) +
         (result.recorded_on.empty() ? "" : " (recorded)");
}

void draw_occupancy(App& app) {
  const RunResult* model = model_for_panel(app);
  if (!model)
    return;
  const RunResult& result = *model;
  if (!result.occupancy) {
    empty_state(result.kernel_kind == KernelKind::library
                    ? "No occupancy for this launch: a library call (cuBLAS) chooses its own "
                      "kernels and blocks."
                    : "No occupancy for this launch: its registers and shared memory are not "
                      "known (nothing compiled it).");
    return;
  }
  const OccupancyResult& occupancy = *result.occupancy;
  wrapped_textf("%s on %s, block %dx%dx%d", result.kernel_id.c_str(), result.arch.id.c_str(),
                result.launch.block.x, result.launch.block.y, result.launch.block.z);
  draw_summary(app, result);
  draw_occupancy_against_baseline(app);
  ImGui::Separator();
  ImGui::TextDisabled("Blocks per SM each resource allows");
  limiter_bars(occupancy, result.arch.max_blocks_per_sm);
  // The barriers' bar is the SM's, not the kernel's: said, so a kernel without __syncthreads is
  // not read as using one.
  if (const int barriers = occupancy.limit(Resource::barriers); barriers != kUnlimited)
    note_text("barriers: each resident block holds one of the SM's " + std::to_string(barriers) +
              ", whether it calls __syncthreads or not");
  wrapped_text(occupancy.explanation);
  ImGui::Separator();
  draw_curves(app, result);
  if (occupancy.waves) {
    ImGui::Separator();
    draw_waves(result);
  }
}

} // namespace wl::viz
