#pragma once
// The tiling layout (Dear ImGui 1.86 has no docking): one host window fills the space between the
// menu bar and the status line; the left column and, right of it, a row of two tiles over a bottom
// tile, with draggable splitters between them. Each tile shows its panels as tabs. Where the
// window is too small for a tile, its panels join a neighbour's tabs, so nothing overlaps and
// every control stays reachable; a tile with no open panel gives its space to its neighbours.

#include "workflows/app.h"

#include <array>

namespace wl::viz {

struct TileRect {
  float x = 0, y = 0, width = 0, height = 0;
  bool used = false;
};

// Where each tile goes in an area of this size (pure arithmetic, for tests): `tile_of` is each
// open panel's tile after the merging a small area needs (closed panels: unchanged).
struct TilePlan {
  std::array<TileRect, kTileCount> tiles{};
  std::array<Tile, kAllPanels.size()> tile_of{};
};
TilePlan plan_tiles(const App& app, float x, float y, float width, float height, float scale);

// Draws the host window, the tiles with their tabs and panels, and the splitters.
void draw_tiled_panels(App& app);

// Heights of the menu bar and the status line at the current font size.
float menu_bar_height();
float status_bar_height();

} // namespace wl::viz
