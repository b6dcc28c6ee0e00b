// Shared memory: every shared site's wavefronts per request, predicted against the ideal, the
// excess (CUPTI's bank conflicts) and the conflict degree; a pad slider for a kernel with a `pad`
// parameter; the bank grid of the chosen warp, drawn from the model for the current choices, so
// padding a tile by one word visibly dissolves the conflict; then the launch's measured totals.

#include "drawing/controls.h"
#include "drawing/panel_parts.h"
#include "panels/panels.h"

#include <algorithm>

#include <imgui.h>

namespace wl::viz {

namespace {

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
  wrapped_textf("%d wavefront%s (ideal %d): %s", a.wavefronts, a.wavefronts == 1 ? "" : "s",
                a.ideal_wavefronts,
                a.conflict_degree <= 1
                    ? "no bank conflict"
                    : (std::to_string(a.conflict_degree) + "-way bank conflict, " +
                       std::to_string(a.excess_wavefronts) + " excess")
                          .c_str());
  // The grid keeps the height of the tallest it drew for this kernel's site, so the pad slider
  // above it (32 rows at pad 0, one at pad 1) never pulls the panel up under the pointer.
  const std::vector<BankSlot> slots = bank_map(chosen->access);
  ImGuiStorage* storage = ImGui::GetStateStorage();
  const ImGuiID tallest =
      ImGui::GetID((app.choices.kernel_id + "##grid_rows" + std::to_string(chosen->site)).c_str());
  const int rows = std::max(bank_grid_rows(slots), storage->GetInt(tallest, 0));
  storage->SetInt(tallest, rows);
  bank_grid(slots, chosen->access.width, rows);
  note_text("32 banks across, a row per pass (wavefront): green the passes the distinct words need "
            "at best, red the passes a bank conflict adds. Hover a cell for its lanes; '*' is "
            "several lanes reading one word (a broadcast).");
}

} // namespace

void draw_shared_memory(App& app) {
  draw_memory_panel(app,
                    {.space = MemorySpace::shared,
                     .panel = Panel::shared_memory,
                     .sites_id = "##shared_sites",
                     .columns = {{"requests"},
                                 {"wavefronts_per_request", true},
                                 {"excess_wavefronts"},
                                 {"conflict_degree"}},
                     .measured = "wavefronts",
                     .counters_id = "##shared_counters",
                     .counter_lines = 8},
                    [&] {
                      draw_pad_slider(app);
                      draw_grid(app);
                    });
}

} // namespace wl::viz
