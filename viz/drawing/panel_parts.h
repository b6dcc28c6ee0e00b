#pragma once
// The composites the panels share, built on the drawing primitives of widgets.h: they read the
// App and a result (the baseline heading, the stale note, the site and counter tables, the warp
// chooser, the launch figures of a panel) and draw what several panels show alike.

#include "drawing/widgets.h"

namespace wl::viz {

// The warp a memory map shows for the app's current choices (not the last result, so an edit
// redraws at once): the site, block, warp and iteration widgets, editing `choice`. nullopt, with
// the reason drawn, when the request is invalid, the kernel has no site in `space`, or no lane of
// the warp makes the access.
std::optional<ChosenWarp> warp_chooser(const App& app, MemorySpace space, MapChoice& choice);

// A column of a site table: a figure of the figure table, and whether its cells show the ideal
// in brackets ("8.00 (4.00)").
struct SiteColumn {
  std::string_view figure;
  bool with_ideal = false;
};

// A table of a memory space's sites: the site, then these figures, each header the figure's
// short name with its meaning on hover; false when it is clipped away.
bool begin_site_table(const char* id, const std::vector<SiteColumn>& columns, float height = 0);
// The height of a site table of `sites` rows (at most three and a half in view).
float site_table_height(int sites);

// A site's figure as its cell shows it: as the figure table writes it, less a unit that is a
// word (the header names it), its ideal in brackets where asked ("8.00 (4.00)"); "-" where
// sites of its space have no such figure.
std::string site_cell(const Figure& figure, const SitePrediction& site, bool with_ideal);

// A table of sites, a row each: the site (its kind, width and whether it is estimated, on hover),
// then each column's figure from the figure table's site readers (site_cell); a figure worse
// than its ideal by more than 1 % is marked wasteful. The sites of `space`, or every site.
void site_figure_table(const char* id, const LaunchPrediction& prediction,
                       std::optional<MemorySpace> space, const std::vector<SiteColumn>& columns,
                       float height);

// What tells the two memory panels apart: their space and panel, the site table's id and figure
// columns, what the counters measure for them and how many lines of counters they show at least.
struct MemoryPanel {
  MemorySpace space;
  Panel panel;
  const char* sites_id;
  std::vector<SiteColumn> columns;
  const char* measured; // "requests and sectors"
  const char* counters_id;
  int counter_lines;
};
// A memory panel: its space's sites and the model against the baseline, then `draw_warp` (the
// chosen warp's map or grid: before the measured counters, since at 1280x720 what comes third is
// out of sight), then the launch's measured counters of this panel.
void draw_memory_panel(App& app, const MemoryPanel& shape, const std::function<void()>& draw_warp);

// The measured counters of `result` that the figure table puts in `panel` (none: all): predicted,
// measured, the difference (flagged over 2 %, with its reason), and the baseline's value and the
// change when one is pinned. The table fills the rest of the panel's height, and is at least
// `least_lines` lines tall where less is left (the panel then scrolls to it); the reasons go
// under it, wrapped, whole.
void counter_table(const char* id, const RunResult& result, const App& app,
                   std::optional<Panel> panel, int least_lines = 0);

// With a baseline pinned: the model's figures of `panel` (the memory panels) for the launch on
// screen beside the baseline's and the change, measured or not (in model mode the only comparison).
void modelled_against_baseline(const RunResult& model, const App& app, Panel panel);

// The counters of `result` for the memory panels: true when available; otherwise says why not.
bool counters_line(const RunResult& result, const std::string& what);

// The block-of-the-grid and warp fields of a map's chooser: x always, y and z where the grid has
// them.
void block_and_warp_fields(const BlockShape& grid, std::array<int, 3>& block, int& warp);

// The model figures a panel shows, or nullptr after saying why there are none. Figures that are
// not of the launch on screen say so above them: still updating, or the last valid launch's while
// the one on screen is refused.
const RunResult* model_for_panel(const App& app);

// "Against the baseline, coalescing/stride, block 256, ..." above a comparison, and a warning when
// the baseline is another kernel: its change then compares different work, not a tuning.
void baseline_heading(const App& app, const std::string& lead);

// False, after saying so in the panel, when the kernel on screen has no access site in `space`.
bool kernel_has_sites(const App& app, MemorySpace space);
// Why a kernel file's prediction has no site of `accesses` ("global access"): none in the blocks
// the model ran, or the note that kept it from running any.
std::string no_file_sites_text(const LaunchPrediction& prediction, std::string_view accesses);

// The figures of the launch on screen (App::result_on_screen); where there are none yet, the
// panel's empty state says why (computing them, or the launch's problem) and this is nullptr.
const RunResult* result_or_why_not(const App& app);

// Nothing is measured here: the source models, or the latest result is the models' or the
// recording's.
bool in_model_mode(const App& app);

// When `app.results.latest` belongs to another launch than the one on screen, says so in amber
// ("Measured figures from block 16x16, stride=1: press F5 ...") and returns true.
bool stale_note(const App& app);

// Around measured or recorded figures: the stale note, and the figures drawn until the scope ends
// greyed when it was said.
class MeasuredScope {
public:
  explicit MeasuredScope(const App& app);
  ~MeasuredScope();
  MeasuredScope(const MeasuredScope&) = delete;
  MeasuredScope& operator=(const MeasuredScope&) = delete;
  const bool stale;
};

// Every launch figure (figures.h) of `panel` and its `part` that `result` has a value for, a row
// each, written by figure_text: `predicted` the model's and the launch's own figures, else the
// measured ones.
void launch_figure_rows(const RunResult& result, Panel panel, bool predicted,
                        std::string_view part = {});

} // namespace wl::viz
