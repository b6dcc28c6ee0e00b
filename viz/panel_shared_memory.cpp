// Shared memory: every shared site's wavefronts per request, predicted against the ideal, the
// excess (CUPTI's bank conflicts) and the conflict degree, with the launch's measured totals; a
// pad slider for a kernel with a `pad` parameter; then the bank grid of the chosen warp, drawn
// from the model for the current choices, so padding a tile by one word visibly dissolves the
// conflict.

#include "controls.h"
#include "panel_parts.h"
#include "panels.h"

#include <imgui.h>

namespace wl::viz {

namespace {

void draw_sites(const RunResult& result) {
  if (!begin_site_table("##shared_sites", {{"requests"},
                                           {"wavefronts_per_request", true},
                                           {"excess_wavefronts"},
                                           {"conflict_degree"}}))
    return;
  for (const SitePrediction& site : result.prediction.sites) {
    if (site.space != MemorySpace::shared)
      continue;
    site_row(site, site.wavefronts_per_request(),
             site.requests ? double(site.ideal_wavefronts) / site.requests : 0);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(format_count(site.excess_wavefronts).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%d-way", site.conflict_degree);
  }
  ImGui::EndTable();
}

// The launch totals the counters measure (instructions, wavefronts, bank conflicts) beside the
// sites' sums, the reason for a difference on hover, and the baseline's when one is pinned.
void draw_measured(const RunResult& result, const App& app) {
  if (!counters_line(result, "wavefronts"))
    return;
  counter_table("##shared_counters", result, app, Panel::shared_memory,
                8); // the map below keeps its room
}

// A slider for the `pad` parameter, when the kernel has one: the map follows at once, and in live
// mode the measurement too.
void draw_pad_slider(App& app) {
  for (const ParamSpec& spec : app.kernel()->params) {
    if (spec.name != "pad")
      continue;
    const auto found = app.choices.params.find(spec.name);
    if (found == app.choices.params.end())
      return;
    int pad = static_cast<int>(found->second);
    if (ui::slider_int("pad", &pad, static_cast<int>(spec.min), static_cast<int>(spec.max)))
      app.choices.set_param(spec.name, pad);
    help_marker(spec.help.c_str());
  }
}

void draw_grid(App& app) {
  const std::optional<ChosenWarp> chosen =
      warp_chooser(app, MemorySpace::shared, app.choices.shared_map);
  if (!chosen)
    return;
  const SharedAccess a = analyse_shared(chosen->access);
  ImGui::TextWrapped("%d wavefront%s (ideal %d): %s", a.wavefronts, a.wavefronts == 1 ? "" : "s",
                     a.ideal_wavefronts,
                     a.conflict_degree <= 1
                         ? "no bank conflict"
                         : (std::to_string(a.conflict_degree) + "-way bank conflict, " +
                            std::to_string(a.excess_wavefronts) + " excess")
                               .c_str());
  note_text("32 banks across, a row per pass (wavefront): green the passes the distinct words need "
            "at best, red the "
            "passes a bank conflict adds. Hover a cell for its lanes; '*' is several lanes reading "
            "one word (a "
            "broadcast).");
  // The grid keeps the height of the tallest it drew for this kernel's site, so the pad slider
  // above it (32 rows at pad 0, one at pad 1) never pulls the panel up under the pointer.
  const std::vector<BankSlot> slots = bank_map(chosen->access);
  ImGuiStorage* storage = ImGui::GetStateStorage();
  const ImGuiID tallest =
      ImGui::GetID((app.choices.kernel_id + "##grid_rows" + std::to_string(chosen->site)).c_str());
  const int rows = std::max(bank_grid_rows(slots), storage->GetInt(tallest, 0));
  storage->SetInt(tallest, rows);
  bank_grid(slots, chosen->access.width, rows);
}

} // namespace

void draw_shared_memory(App& app) {
  const bool has_sites = kernel_has_sites(app, MemorySpace::shared); // said first, where it is seen
  if (const RunResult* model = app.model_view();
      model && model->kernel_id == app.choices.kernel_id) {
    if (has_sites) {
      draw_sites(*model);
      modelled_against_baseline(*model, app, Panel::shared_memory);
    }
    if (app.results.latest && app.results.latest->kernel_id == app.choices.kernel_id) {
      MeasuredScope scope(app);
      draw_measured(*app.results.latest, app);
    }
    ImGui::Separator();
  }
  if (has_sites) {
    draw_pad_slider(app);
    draw_grid(app);
  }
}

} // namespace wl::viz
