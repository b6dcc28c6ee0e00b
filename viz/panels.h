#pragma once
// The four panels, one file each, and the prologue they share. Each reads the App and changes
// only the user's choices in it.

#include "app.h"

namespace wl::viz {

void draw_launch(App &app);    // kernel catalog, parameters, block editor, arch, Run / Live
void draw_occupancy(App &app); // occupancy, limiters, impact curves, waves
void draw_timings(App &app);   // median, min, noise, throughput, recent runs
void draw_counters(App &app);  // every access site: predicted, and measured when collected
void draw_global_memory(App &app); // global sites: sectors per request; the warp map of lanes on sectors
void draw_shared_memory(App &app); // shared sites: wavefronts per request; the bank grid
void draw_divergence(App &app);    // the active lanes of a warp at each site and step; lanes per instruction
void draw_sweep(App &app);         // a block-shape sweep as a line (1D) or heatmap (2D), any figure

// What the occupancy panel shows for achieved occupancy: the counters' figure ("75.9 %", marked
// when recorded) or why there is none. The screenshot sidecar carries the same text.
std::string achieved_occupancy_text(const RunResult &result);

// The prologue every panel opens with: first-use position and size (remembered afterwards in
// layout.ini), Begin, and the window's rectangle recorded for cropped screenshots. Returns false
// when the panel is closed or collapsed, having already ended the window; otherwise the panel
// ends it with ImGui::End().
bool begin_panel(App &app, Panel panel);

// Where a panel first appears in a window of this size, below the menu bar and above the status line.
struct PanelPlacement {
  float x, y, width, height;
};
PanelPlacement default_placement(Panel panel, float display_width, float display_height);

inline constexpr float kMenuBarHeight = 24;
inline constexpr float kStatusBarHeight = 28;

} // namespace wl::viz
