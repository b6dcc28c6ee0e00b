#pragma once
// Where the warps waited, drawn: each stall reason in a colour of its own kind (global memory
// blue, shared memory violet, barriers orange, issuing and ready greens, math red, fixed waits
// yellow, the rest grey), a line's samples as
// a bar of those colours whose length is its share of the launch's, and the launch's reasons as
// a table with their meaning and the panel that shows their cause.

#include "model/stall_samples.h"
#include "workflows/app.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wl::viz {

std::uint32_t stall_colour(std::string_view reason, float alpha = 1);

// "Line 12: 64.0 % of the samples. long_scoreboard 58.1 %: waiting for ...": `reasons` as shares
// of `whole`, each with its meaning, for a tooltip.
std::string stall_lines_text(const std::string& lead, const std::vector<StallCount>& reasons,
                             std::uint64_t whole);

// Draws, from `left` on the row whose top is `top`, a bar `width` long at most: `samples` of
// `whole` as its length, split among `reasons`; hovered, it says them in words. Greyed when
// `stale` (another launch's samples).
void stall_bar(float left, float top, float width, const std::vector<StallCount>& reasons,
               std::uint64_t samples, std::uint64_t whole, bool stale, const std::string& lead);

// The launch's reasons as a table (swatch, reason, share of samples, meaning, and a button that
// opens the panel showing its cause), with the sampling's figures above it.
void stall_table(App& app, const RunResult& result);

} // namespace wl::viz
