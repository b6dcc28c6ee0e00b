#pragma once
// The few drawings Dear ImGui has no widget for, made with ImDrawList, plus small text helpers
// the panels share. Colours come from the current style, so both themes work.

#include "app.h"
#include "base/text_format.h"
#include "memory_maps.h"
#include "model/occupancy.h"
#include "report/figures.h"

#include <array>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace wl::viz {

// Occupancy (0-100 %) against one input, with the current launch marked by a dot and a line.
void impact_curve(const char* title, const std::vector<CurvePoint>& points, std::int64_t current_x,
                  const char* x_unit, float width, float height);

// One bar per resource: the blocks per SM it allows, on a common scale; the limiters stand out.
void limiter_bars(const OccupancyResult& occupancy, int max_blocks_per_sm);

// The median time of recent runs, oldest left, newest (the one shown) highlighted.
void history_plot(const std::vector<double>& milliseconds, float width, float height);

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
bool begin_site_table(const char* id, std::initializer_list<SiteColumn> columns, float height = 0);

// A site table's row and its first three cells: the site, its requests, and a per-request figure
// beside its ideal ("8.00 (4.00)"); the panel fills the rest.
void site_row(const SitePrediction& site, double per_request, double ideal_per_request);

// The measured counters of `result` that the figure table puts in `panel` (none: all): predicted,
// measured, the difference (flagged over 2 %, with its reason), and the baseline's value and the
// change when one is pinned. The table fills the rest of the panel's height, or `most_lines` lines
// at most where something follows it; the reasons go under it, wrapped, whole.
void counter_table(const char* id, const RunResult& result, const App& app,
                   std::optional<Panel> panel, int most_lines = 0);

// With a baseline pinned: the model's figures of `panel` (the memory panels) for the launch on
// screen beside the baseline's and the change, measured or not (in model mode the only comparison).
void modelled_against_baseline(const RunResult& model, const App& app, Panel panel);

// The counters of `result` for the memory panels: true when available; otherwise says why not.
bool counters_line(const RunResult& result, const std::string& what);

// The warp map: a row per 128-byte line, four 32-byte sectors each, every lane a coloured bar over
// the bytes it reads or writes; fetched but unused bytes grey.
void warp_map(const WarpMap& map);

// The bank grid: per transaction, 32 bank columns, a row per wavefront, each cell the lanes served
// in that pass (a '*' marks a broadcast of one word). Rows past the ideal are the conflict.
void bank_grid(const std::vector<BankSlot>& slots, int width, int reserved_rows = 0);
// Rows the grid of these slots takes: each transaction's wavefronts, its bank numbers and title.
int bank_grid_rows(const std::vector<BankSlot>& slots);

// The block-of-the-grid and warp fields of a map's chooser: x always, y and z where the grid has
// them.
void block_and_warp_fields(const BlockShape& grid, std::array<int, 3>& block, int& warp);

// Puts the next item, `width` wide, on the same line as the last one while it fits the panel, else
// on the next line: rows of buttons and fields wrap rather than run past the edge.
void same_line_if_room(float width, float spacing = -1);
// The width of a field with its label beside it.
float labelled_field_width(float field_width, const char* label);

// The model figures a panel shows, or nullptr after saying why there are none. Figures that are
// not of the launch on screen say so above them: still updating, or the last valid launch's while
// the one on screen is refused.
const RunResult* model_for_panel(const App& app);

// "Against the baseline, coalescing/stride, block 256, ..." above a comparison, and a warning when
// the baseline is another kernel: its change then compares different work, not a tuning.
void baseline_heading(const App& app, const std::string& lead);

// False, after saying so in the panel, when the kernel on screen has no access site in `space`.
bool kernel_has_sites(const App& app, MemorySpace space);

// A tooltip wrapped at a readable width (call while the item is hovered).
void hover_text(const std::string& text);

// When `app.latest` belongs to another launch than the one on screen, says so in amber ("Measured
// figures from block 16x16, stride=1: press F5 ...") and returns true.
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

// The colours of waste every panel shares, packed as Dear ImGui packs them: green for what the
// bytes need at best (the bank grid's first passes), red for what waste adds (a conflict's passes,
// a line fetching sectors it does not use).
std::uint32_t ideal_colour(float alpha = 1);
std::uint32_t waste_colour(float alpha = 1);
// A figure past its ideal (more sectors or wavefronts than the bytes need), in orange: on one
// line, or wrapped at the window's edge.
void wasteful_text(const std::string& text, bool wrapped = false);

// A table cell's number, right-aligned in its column.
void number_cell(const std::string& text);

// Beside the field just drawn: a "(?)" that shows `text` on hover, as the field itself does.
void help_marker(const char* text);

// A table of figure rows: names as wide as the longest, values in the rest.
bool begin_figure_table(const char* id);

// "label  value" as a two-column table row, with an optional tooltip on the label.
void figure_row(const char* label, const std::string& value, const char* tooltip = nullptr);
// The same row for a figure of the figure table: its display name, its meaning on hover.
void figure_row(const Figure& figure, const std::string& value);
// Every launch figure (figures.h) of `panel` that `result` has a value for, a row each, written
// by figure_text: `predicted` the model's and the launch's own figures, else the measured ones.
void launch_figure_rows(const RunResult& result, Panel panel, bool predicted);

// Dimmed wrapped text: a legend or a note.
void note_text(const std::string& text);

// An explicit empty state: why the panel has nothing to show and what to do.
void empty_state(const std::string& text);

// Amber wrapped text for figures recorded elsewhere, never to be mistaken for a run made now.
void recorded_text(const std::string& text);

// Red (or theme-appropriate) wrapped text for a refusal.
void error_text(const std::string& text);

// Against a baseline: "+12.5 %" (or "+3.1 points" for percentages), "-" when either is missing.
std::string change_text(std::optional<double> now, std::optional<double> baseline,
                        bool points = false);

} // namespace wl::viz
