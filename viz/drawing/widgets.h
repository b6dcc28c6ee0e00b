#pragma once
// The drawing primitives the panels share: the few drawings Dear ImGui has no widget for (made
// with ImDrawList), tables of figure rows, cells and text styles. They take plain values; the
// composites that read the App and a result are panel_parts.h's. Colours come from the current
// style, so both themes work.

#include "base/text_format.h"
#include "model/occupancy.h"
#include "report/figures.h"
#include "workflows/app.h"
#include "workflows/memory_maps.h"

#include <array>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct ImFont;

namespace wl::viz {

// The monospaced font code is drawn in (DejaVu Sans Mono, the second font the frame loads), or the
// UI's font where it is missing.
ImFont* code_font();

// Occupancy (0-100 %) against one input, with the current launch marked by a dot and a line.
void impact_curve(const char* title, const std::vector<CurvePoint>& points, std::int64_t current_x,
                  const char* x_unit, float width, float height);

// A point on the roofline chart: the launch on screen, the pinned baseline, or a sweep's point.
struct ChartPoint {
  // The launch's point by L2 bytes (l2) sits at its height, further right or left than by DRAM.
  enum class Kind { launch, l2, baseline, sweep };
  double intensity = 0, gflops = 0;
  Kind kind = Kind::sweep;
  std::string label;      // shown on hover
  bool predicted = false; // placed by the model (an untimed launch): drawn hollow
};
// FP32 GFLOP/s against FLOP per byte, both on log scales: the DRAM roof up to the ridge, the L2
// roof above it up to its own ridge (none where `l2_gbps` is 0), the FP32 roof after them (none
// where `fp32_gflops` is 0), and the points.
void roofline_chart(double dram_gbps, double l2_gbps, double fp32_gflops,
                    const std::vector<ChartPoint>& points, float width, float height);

// One bar per resource: the blocks per SM it allows, on a common scale; the limiters stand out.
void limiter_bars(const OccupancyResult& occupancy, int max_blocks_per_sm);

// The median time of recent runs, oldest left, newest (the one shown) highlighted.
void history_plot(const std::vector<double>& milliseconds, float width, float height);

// The warp map: a row per 128-byte line, four 32-byte sectors each, every lane a coloured bar over
// the bytes it reads or writes; fetched but unused bytes grey.
void warp_map(const WarpMap& map);

// The bank grid: per transaction, 32 bank columns, a row per wavefront, each cell the lanes served
// in that pass (a '*' marks a broadcast of one word). Rows past the ideal are the conflict.
void bank_grid(const std::vector<BankSlot>& slots, int width, int reserved_rows = 0);
// Rows the grid of these slots takes: each transaction's wavefronts, its bank numbers and title.
int bank_grid_rows(const std::vector<BankSlot>& slots);

// Puts the next item, `width` wide, on the same line as the last one while it fits the panel, else
// on the next line: rows of buttons and fields wrap rather than run past the edge.
void same_line_if_room(float width, float spacing = -1);
// The width of a field with its label beside it.
float labelled_field_width(float field_width, const char* label);

// A tooltip wrapped at a readable width (call while the item is hovered).
void hover_text(const std::string& text);

// Text wrapped at the window's edge (or the pushed wrap position) between words only: ImGui's own
// wrapping also breaks after a '.' or ',', inside a number ("5.<newline>2 KiB"). A word wider
// than the line still wraps where ImGui would. `text` is shown through screen_text.
void wrapped_text(const std::string& text);
// `text` with a line break in place of each space where the next word would pass `width`, as
// `width_of` measures words.
std::string wrap_between_words(const std::string& text, float width,
                               const std::function<float(std::string_view)>& width_of);
// The same from a printf format, for ImGui::TextWrapped's callers.
[[gnu::format(printf, 1, 2)]] void wrapped_textf(const char* format, ...);

// The colours of waste every panel shares, packed as Dear ImGui packs them: green for what the
// bytes need at best (the bank grid's first passes), red for what waste adds (a conflict's passes,
// a line fetching sectors it does not use).
std::uint32_t ideal_colour(float alpha = 1);
std::uint32_t waste_colour(float alpha = 1);
// A figure past its ideal (more sectors or wavefronts than the bytes need), in orange: on one
// line, or wrapped at the window's edge.
void wasteful_text(const std::string& text, bool wrapped = false);

// A table's header row, after which the screenshot's words (ImGui's log) start a line of their own.
void table_headers_row();

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

// Dimmed wrapped text: a legend or a note.
void note_text(const std::string& text);

// An explicit empty state: why the panel has nothing to show and what to do.
void empty_state(const std::string& text);

// Amber wrapped text for figures recorded elsewhere, never to be mistaken for a run made now.
void recorded_text(const std::string& text);

// Red (or theme-appropriate) wrapped text for a refusal.
void error_text(const std::string& text);
// error_text's colour for the text drawn until pop_error_color (a line of code in error).
void push_error_color();
void pop_error_color();

// Against a baseline: "+12.5 %" (or "+3.1 points" for percentages), "-" when either is missing.
std::string change_text(std::optional<double> now, std::optional<double> baseline,
                        bool points = false);

} // namespace wl::viz
