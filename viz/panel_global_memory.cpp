// Global memory: every global site's requests, 32-byte sectors per request against the ideal, and
// bytes used against bytes fetched, predicted and (for the launch) measured; then the warp map of
// the chosen warp, drawn from the model for the current choices, so a change of stride, offset,
// width or block redraws it at once, with or without a GPU.

#include "panels.h"

#include "widgets.h"

#include <imgui.h>

namespace wl::viz {

namespace {

void draw_sites(const RunResult &result) {
  if (!begin_site_table("##global_sites", {"site", "requests", "sectors/req (ideal)", "used / fetched", "width"})) return;
  for (const SitePrediction &site : result.prediction.sites) {
    if (site.space != MemorySpace::global) continue;
    site_row(site, site.sectors_per_request(), site.requests ? double(site.ideal_sectors) / site.requests : 0);
    ImGui::TableNextColumn();
    ImGui::Text("%s %%", format_number(site.bytes_fetched ? 100.0 * site.bytes_used / site.bytes_fetched : 0, 0).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%d B", site.width);
  }
  ImGui::EndTable();
}

// The launch totals the counters measure beside the sites' sums.
void draw_measured(const RunResult &result) {
  if (!counters_line(result, "sectors")) return;
  double load = 0, store = 0;
  for (const SitePrediction &site : result.prediction.sites)
    if (site.space == MemorySpace::global) (site.op == AccessOp::load ? load : store) += static_cast<double>(site.sectors);
  const CounterValue *measured_load = result.counters->find("global_load_sectors");
  const CounterValue *measured_store = result.counters->find("global_store_sectors");
  if (measured_load)
    ImGui::Text("load sectors: predicted %s, measured %s", format_count(static_cast<std::int64_t>(load)).c_str(),
                format_count(static_cast<std::int64_t>(measured_load->value)).c_str());
  if (measured_store)
    ImGui::Text("store sectors: predicted %s, measured %s", format_count(static_cast<std::int64_t>(store)).c_str(),
                format_count(static_cast<std::int64_t>(measured_store->value)).c_str());
}

void draw_map(App &app) {
  const std::optional<ChosenWarp> chosen = warp_chooser(app, MemorySpace::global, app.global_map);
  if (!chosen) return;
  const WarpMap map = global_warp_map(chosen->access);
  const GlobalAccess &a = map.access;
  ImGui::Text("%d sectors in %d line%s (ideal %d); %d of %d fetched bytes used (%s %%)", a.sectors, a.lines,
              a.lines == 1 ? "" : "s", a.ideal_sectors, a.bytes_used, a.bytes_fetched,
              format_number(a.bytes_fetched ? 100.0 * a.bytes_used / a.bytes_fetched : 0, 0).c_str());
  note_text("A row per 128-byte line (offset from the first), four 32-byte sectors each; a coloured bar per lane "
            "over its bytes, numbered where it fits; grey: fetched, not used.");
  warp_map(map);
}

} // namespace

void draw_global_memory(App &app) {
  if (!begin_panel(app, Panel::global_memory)) return;
  if (app.latest && app.latest->kernel_id == app.kernel_id) {
    draw_sites(*app.latest);
    draw_measured(*app.latest);
    ImGui::Separator();
  }
  draw_map(app);
  ImGui::End();
}

} // namespace wl::viz
