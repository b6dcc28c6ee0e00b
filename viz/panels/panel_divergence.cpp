// Divergence: which lanes of one warp take each path. Every site of the kernel sits on a path
// (a branch, a loop step, a guard); a row per site and loop step shows the 32 lanes, lit where the
// lane makes that access, so a per-thread branch shows as a comb and a reduction's tree as rows
// halving. Beside it, the run's measured thread instructions per warp instruction: 32 when no
// lane ever idles, less as divergence and partial warps leave lanes out.

#include "drawing/panel_parts.h"
#include "model/launch_model.h"
#include "panels/panels.h"
#include "report/figures.h"

#include <algorithm>

#include <imgui.h>

namespace wl::viz {

namespace {

constexpr std::int64_t kMostSteps =
    12; // rows per site: a tree's steps, or a loop's first iterations

void draw_measured_branches(const RunResult& result, const App& app) {
  const Figure& lanes_figure = figure("lanes_per_instruction");
  if (!counters_line(result, std::string(lanes_figure.display)))
    return;
  const std::optional<double> lanes = lanes_figure.measured(result);
  if (!lanes) {
    note_text("The run's counters have no thread and warp instruction counts (the default set has "
              "them).");
    return;
  }
  wrapped_textf(
      "Whole launch, every instruction: %s of 32 active on average (%s). The rows below "
      "are the memory accesses of one warp: a step where few lanes work can be a small share of "
      "all the instructions, so the average stays high.",
      figure_text(lanes_figure, *lanes).c_str(), format_percent(100 * *lanes / 32).c_str());
  if (app.results.baseline) {
    const std::optional<double> before = lanes_figure.measured(*app.results.baseline);
    wrapped_textf("baseline %s: %s (%s)", app.baseline_label().c_str(),
                  before ? figure_text(lanes_figure, *before).c_str() : "-",
                  change_text(lanes, before).c_str());
  }
  note_text("smsp__thread_inst_executed / smsp__inst_executed over the whole launch.");
}

// One row: the lanes of the warp that make this access, lit in their lane's colour.
void lane_strip(std::uint32_t mask) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float cell = std::max(6.0f, ImGui::GetContentRegionAvail().x * 0.6f / kWarpSize),
              height = ImGui::GetFontSize();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImU32 off = ImGui::GetColorU32(ImGuiCol_FrameBg), on = IM_COL32(80, 170, 110, 255);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const ImVec2 min(origin.x + lane * cell, origin.y + 1),
        max(min.x + cell - 1, origin.y + height - 1);
    draw->AddRectFilled(min, max, (mask >> lane) & 1u ? on : off);
  }
  ImGui::Dummy(ImVec2(cell * kWarpSize, height));
}

void draw_paths(App& app) {
  if (const std::string problem = app.request_problem(); !problem.empty()) {
    error_text(problem);
    return;
  }
  const KernelDesc& kernel = *app.kernel();
  const LaunchShape launch =
      make_launch(kernel, app.choices.params, app.block(), app.arch().sm_count);
  MapChoice& choice = app.choices.divergence_map;
  block_and_warp_fields(launch.grid, choice.block, choice.warp);
  const std::array<int, 3> sides{launch.grid.x, launch.grid.y, launch.grid.z};
  for (int d = 0; d < 3; ++d)
    choice.block[d] = std::clamp(choice.block[d], 0, std::max(1, sides[d]) - 1);
  const int warps = static_cast<int>((launch.block.threads() + kWarpSize - 1) / kWarpSize);
  choice.warp = std::clamp(choice.warp, 0, warps - 1);
  const Coord block{choice.block[0], choice.block[1], choice.block[2]};
  if (!ImGui::BeginTable("##paths", 3, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg))
    return;
  const Figure& active = figure("active_lanes");
  ImGui::TableSetupColumn("site, step");
  ImGui::TableSetupColumn("lanes 0 to 31");
  ImGui::TableSetupColumn(std::string(figure_header(active)).c_str());
  ImGui::TableHeadersRow();
  const LaunchPrediction& prediction = app.prediction_on_screen();
  const std::vector<SiteView> sites = site_views(kernel, launch, prediction);
  const int sm = app.arch().cc_major * 10 + app.arch().cc_minor;
  for (int site = 0; site < static_cast<int>(sites.size()); ++site) {
    const std::int64_t steps = sites[static_cast<std::size_t>(site)].iterations;
    for (std::int64_t step = 0; step < std::min(steps, kMostSteps); ++step) {
      const std::uint32_t mask =
          warp_access(kernel, launch, prediction, site, block, choice.warp, step, sm).active_mask;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%s%s", sites[static_cast<std::size_t>(site)].name.c_str(),
                  steps > 1 ? (", " + std::to_string(step)).c_str() : "");
      ImGui::TableNextColumn();
      lane_strip(mask);
      ImGui::TableNextColumn();
      WarpAccess lanes;
      lanes.active_mask = mask;
      ImGui::TextUnformatted(figure_text(active, active.warp_lanes(lanes)).c_str());
    }
    if (steps > kMostSteps) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextDisabled("... %lld more steps", static_cast<long long>(steps - kMostSteps));
    }
  }
  ImGui::EndTable();
}

} // namespace

void draw_divergence(App& app) {
  if (app.results.latest && app.results.latest->kernel_id == app.choices.kernel_id) {
    MeasuredScope scope(app);
    draw_measured_branches(*app.results.latest, app);
  }
  ImGui::Separator();
  if (const KernelDesc* kernel = app.kernel(); kernel && kernel->kind == KernelKind::library) {
    empty_state(no_index_math_reason(kernel->kind)); // the lanes of each path come from it
    return;
  }
  note_text("A row per access site and loop step of the chosen warp: green lanes make that access, "
            "grey lanes skip "
            "it (another branch, a guard, a finished tree step). Rows that are not all green are "
            "where the warp "
            "diverges.");
  draw_paths(app);
}

} // namespace wl::viz
