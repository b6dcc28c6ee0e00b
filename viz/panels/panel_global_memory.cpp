// Global memory: every global site's requests, 32-byte sectors per request against the ideal, and
// bytes used against bytes fetched, predicted; the warp map of the chosen warp, drawn from the
// model for the current choices, so a change of stride, offset, width or block redraws it at once,
// with or without a GPU; then the launch's measured totals.

#include "drawing/panel_parts.h"
#include "panels/panels.h"

#include <algorithm>
#include <cmath>

#include <imgui.h>

namespace wl::viz {

namespace {

// "50 %", "12.5 %" (one in eight, not "12 %"): whole where it is whole.
std::string used_share(double used, double fetched) {
  const double percent = fetched > 0 ? 100 * used / fetched : 0;
  return format_percent(percent, percent == std::round(percent) ? 0 : 1);
}

void draw_map(App& app) {
  const std::optional<ChosenWarp> chosen =
      warp_chooser(app, MemorySpace::global, app.choices.global_map);
  if (!chosen)
    return;
  const WarpMap map = global_warp_map(chosen->access);
  const GlobalAccess& a = map.access;
  wrapped_textf("%d sectors in %d line%s (ideal %d); %d of %d fetched bytes used (%s)", a.sectors,
                a.lines, a.lines == 1 ? "" : "s", a.ideal_sectors, a.bytes_used, a.bytes_fetched,
                used_share(a.bytes_used, a.bytes_fetched).c_str());
  warp_map(map);
  note_text("A row per 128-byte line (offset from the first), four 32-byte sectors each; a "
            "coloured bar per lane over its bytes, numbered where it fits; grey: fetched, not "
            "used.");
}

} // namespace

void draw_global_memory(App& app) {
  draw_memory_panel(
      app,
      {.space = MemorySpace::global,
       .panel = Panel::global_memory,
       .sites_id = "##global_sites",
       .columns = {{"requests"}, {"sectors_per_request", true}, {"used_of_fetched"}, {"width"}},
       .measured = "requests and sectors",
       .counters_id = "##global_counters",
       .counter_lines = 7},
      [&] { draw_map(app); });
}

} // namespace wl::viz
