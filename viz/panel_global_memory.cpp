// Global memory: every global site's requests, 32-byte sectors per request against the ideal, and
// bytes used against bytes fetched, predicted and (for the launch) measured; then the warp map of
// the chosen warp, drawn from the model for the current choices, so a change of stride, offset,
// width or block redraws it at once, with or without a GPU.

#include "panel_parts.h"
#include "panels.h"

#include <cmath>

#include <imgui.h>

namespace wl::viz {

namespace {

// "50 %", "12.5 %" (one in eight, not "12 %"): whole where it is whole.
std::string used_share(double used, double fetched) {
  const double percent = fetched > 0 ? 100 * used / fetched : 0;
  return format_percent(percent, percent == std::round(percent) ? 0 : 1);
}

void draw_sites(const RunResult& result) {
  if (!begin_site_table(
          "##global_sites",
          {{"requests"}, {"sectors_per_request", true}, {"used_of_fetched"}, {"width"}}))
    return;
  for (const SitePrediction& site : result.prediction.sites) {
    if (site.space != MemorySpace::global)
      continue;
    site_row(site, site.sectors_per_request(),
             site.requests ? double(site.ideal_sectors) / site.requests : 0);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(used_share(double(site.bytes_used), double(site.bytes_fetched)).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%d B", site.width);
  }
  ImGui::EndTable();
}

// The launch totals the counters measure (requests, sectors) beside the sites' sums, and the
// baseline's when one is pinned.
void draw_measured(const RunResult& result, const App& app) {
  if (!counters_line(result, "requests and sectors"))
    return;
  counter_table("##global_counters", result, app, Panel::global_memory,
                7); // the map below keeps its room
}

void draw_map(App& app) {
  const std::optional<ChosenWarp> chosen =
      warp_chooser(app, MemorySpace::global, app.choices.global_map);
  if (!chosen)
    return;
  const WarpMap map = global_warp_map(chosen->access);
  const GlobalAccess& a = map.access;
  ImGui::TextWrapped("%d sectors in %d line%s (ideal %d); %d of %d fetched bytes used (%s)",
                     a.sectors, a.lines, a.lines == 1 ? "" : "s", a.ideal_sectors, a.bytes_used,
                     a.bytes_fetched, used_share(a.bytes_used, a.bytes_fetched).c_str());
  note_text("A row per 128-byte line (offset from the first), four 32-byte sectors each; a "
            "coloured bar per lane "
            "over its bytes, numbered where it fits; grey: fetched, not used.");
  warp_map(map);
}

} // namespace

void draw_global_memory(App& app) {
  const bool has_sites = kernel_has_sites(app, MemorySpace::global); // said first, where it is seen
  if (const RunResult* model = app.model_view();
      model && model->kernel_id == app.choices.kernel_id) {
    if (has_sites) {
      draw_sites(*model);
      modelled_against_baseline(*model, app, Panel::global_memory);
    }
    if (app.results.latest && app.results.latest->kernel_id == app.choices.kernel_id) {
      MeasuredScope scope(app);
      draw_measured(*app.results.latest, app);
    }
    ImGui::Separator();
  }
  if (has_sites)
    draw_map(app);
}

} // namespace wl::viz
