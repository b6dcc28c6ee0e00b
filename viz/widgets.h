#pragma once
// The few drawings Dear ImGui has no widget for, made with ImDrawList, plus small text helpers
// the panels share. Colours come from the current style, so both themes work.

#include "occupancy.h"

#include <string>
#include <vector>

namespace wl::viz {

// Occupancy (0-100 %) against one input, with the current launch marked by a dot and a line.
void impact_curve(const char *title, const std::vector<CurvePoint> &points, std::int64_t current_x, const char *x_unit,
                  float width, float height);

// One bar per resource: the blocks per SM it allows, on a common scale; the limiters stand out.
void limiter_bars(const OccupancyResult &occupancy, int max_blocks_per_sm);

// The median time of recent runs, oldest left, newest (the one shown) highlighted.
void history_plot(const std::vector<double> &milliseconds, float width, float height);

// A "(?)" that shows `text` on hover.
void help_marker(const char *text);

// "label  value" as a two-column table row, with an optional tooltip on the label.
void figure_row(const char *label, const std::string &value, const char *tooltip = nullptr);

// An explicit empty state: why the panel has nothing to show and what to do.
void empty_state(const char *text);

// Amber wrapped text for figures recorded elsewhere, never to be mistaken for a run made now.
void recorded_text(const std::string &text);

// Red (or theme-appropriate) wrapped text for a refusal.
void error_text(const std::string &text);

std::string format_number(double value, int decimals = 2); // 1234567.8 -> "1,234,567.80"
std::string format_count(std::int64_t value);              // 1234567 -> "1,234,567"
std::string format_bytes(double bytes);                    // "48 KiB", "1.5 GB"

} // namespace wl::viz
