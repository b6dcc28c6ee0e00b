#pragma once
// The panels, one file each. Their keys, titles and note words are the panel table's
// (report/panel_table.h); the layout (layout.h) places them; each draw function fills the region
// it is given and changes only the user's choices in the App.

#include "workflows/app.h"

namespace wl::viz {

void draw_launch(App& app);    // kernel catalog, parameters, block, arch, Run / Live
void draw_occupancy(App& app); // occupancy, limiters, impact curves, waves
void draw_timings(App& app);   // median, min, noise, throughput, recent runs
void draw_counters(App& app);  // every access site: predicted, and measured when collected
void draw_global_memory(
    App& app); // global sites: sectors per request; the warp map of lanes on sectors
void draw_shared_memory(App& app); // shared sites: wavefronts per request; the bank grid
void draw_divergence(
    App& app); // the active lanes of a warp at each site and step; lanes per instruction
void draw_sweep(App& app); // a block-shape sweep as a line (1D) or heatmap (2D), any figure
void draw_source(
    App& app); // the kernel's code, each site's line with its predicted and measured figures
void draw_playground(App& app); // a typed index: its warp's sectors, or its banks and wavefronts
void draw_lessons(App& app);    // the course: a lesson's step, its question, the verdict
void draw_roofline(App& app);   // the launch, baseline and sweep under the DRAM and FP32 roofs
void draw_memory(App& app);     // the memory chart: each link's figure, measured beside predicted
void draw_tune(App& app);       // a tune: progress, the best beside the default, the space

// The kernel's parameters and block as the Launch panel edits them; the Lessons panel shows them
// too in a step that asks the learner to change the launch.
void draw_launch_editors(App& app);

// The kernel's code to read, without a figure under any line (the Source panel's while a lesson
// asks its question: the figures hold the answer): a bundled kernel's function, or the file's
// lines. The Lessons panel shows it beside a question when the Source panel is out of sight.
void draw_code_to_read(App& app);

// What the GUI adds to each row of the panel table (report/panel_table.h: keys, titles, first
// tiles): its draw function. Row for row in the table's order, which the static_assert below holds.
struct PanelInfo {
  Panel panel;
  void (*draw)(App&);
};

inline constexpr std::array<PanelInfo, kPanelCount> kPanels = {{
    {Panel::launch, draw_launch},
    {Panel::occupancy, draw_occupancy},
    {Panel::timings, draw_timings},
    {Panel::counters, draw_counters},
    {Panel::global_memory, draw_global_memory},
    {Panel::shared_memory, draw_shared_memory},
    {Panel::divergence, draw_divergence},
    {Panel::sweep, draw_sweep},
    {Panel::source, draw_source},
    {Panel::playground, draw_playground},
    {Panel::lessons, draw_lessons},
    {Panel::roofline, draw_roofline},
    {Panel::memory, draw_memory},
    {Panel::tune, draw_tune},
}};

constexpr bool panels_follow_the_table() {
  for (std::size_t i = 0; i < kPanelCount; ++i)
    if (kPanels[i].panel != kPanelTable[i].panel)
      return false;
  return true;
}
static_assert(panels_follow_the_table(), "kPanels' rows must follow kPanelTable's order");

inline const PanelInfo& panel_info(Panel panel) { return kPanels[static_cast<int>(panel)]; }

// What the occupancy panel shows for achieved occupancy: the counters' figure ("75.9 %", marked
// when recorded) or why there is none. The screenshot sidecar carries the same text.
std::string achieved_occupancy_text(const RunResult& result);

} // namespace wl::viz
