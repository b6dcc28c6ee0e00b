#pragma once
// The panels, named once: the enum the code uses, the key (`--panel`, picture and sidecar names,
// settings, the panel a figure row belongs to), the title of its tab, and the words a kernel's
// teaching note uses for it. It lives in wl_core because the figure table (figures.h) names each
// figure's panel and the sidecars and CLI read it; the GUI adds its draw function in
// viz/panels/panels.h, row for row.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wl {

enum class Panel {
  launch,
  occupancy,
  timings,
  counters,
  global_memory,
  shared_memory,
  divergence,
  sweep,
  source,
  playground,
  lessons,
  roofline,
  memory,
  tune
};

// The four tiles of the GUI's window a panel can sit in (its tab among the tile's tabs).
enum class Tile { left, top_left, top_right, bottom };
inline constexpr int kTileCount = 4;

struct PanelName {
  Panel panel;
  const char* key;   // "global": --panel, file names, settings, a figure's panel
  const char* title; // "Global memory": its tab and the window's title
  // What a kernel's teaching note calls the panel or its drawing ("bank grid"), lower case; a
  // note that says one outlines the panel while it is read. Empty: notes never point at it.
  std::array<std::string_view, 2> note_words = {};
  Tile first_tile = Tile::top_right; // where it sits at first (View > Reset layout puts it back)
  bool open_at_start = true;
};

inline constexpr std::array kPanelTable = {
    PanelName{.panel = Panel::launch, .key = "launch", .title = "Launch", .first_tile = Tile::left},
    PanelName{.panel = Panel::occupancy,
              .key = "occupancy",
              .title = "Occupancy",
              .note_words = {"occupancy panel", "occupancy:"},
              .first_tile = Tile::top_left},
    PanelName{.panel = Panel::timings,
              .key = "timings",
              .title = "Timings",
              .note_words = {"timings panel", "timings:"},
              .first_tile = Tile::bottom},
    PanelName{.panel = Panel::counters,
              .key = "counters",
              .title = "Counters",
              .note_words = {"counters panel", "counters:"},
              .first_tile = Tile::top_right},
    PanelName{.panel = Panel::global_memory,
              .key = "global",
              .title = "Global memory",
              .note_words = {"global memory panel", "warp map"},
              .first_tile = Tile::top_right},
    PanelName{.panel = Panel::shared_memory,
              .key = "shared",
              .title = "Shared memory",
              .note_words = {"shared memory panel", "bank grid"},
              .first_tile = Tile::top_right},
    PanelName{.panel = Panel::divergence,
              .key = "divergence",
              .title = "Divergence",
              .note_words = {"divergence view", "divergence panel"},
              .first_tile = Tile::top_left},
    PanelName{.panel = Panel::sweep, .key = "sweep", .title = "Sweep", .first_tile = Tile::bottom},
    PanelName{
        .panel = Panel::source, .key = "source", .title = "Source", .first_tile = Tile::top_left},
    PanelName{.panel = Panel::playground,
              .key = "playground",
              .title = "Index playground",
              .note_words = {"index playground", "playground"},
              .first_tile = Tile::top_right,
              .open_at_start = false},
    PanelName{.panel = Panel::lessons,
              .key = "lessons",
              .title = "Lessons",
              .note_words = {"lessons panel", "lesson:"},
              .first_tile = Tile::left,
              .open_at_start = false},
    PanelName{.panel = Panel::roofline,
              .key = "roofline",
              .title = "Roofline",
              .note_words = {"roofline"},
              .first_tile = Tile::bottom,
              .open_at_start = false},
    PanelName{.panel = Panel::memory,
              .key = "memory",
              .title = "Memory chart",
              .note_words = {"memory chart"},
              .first_tile = Tile::bottom,
              .open_at_start = false},
    PanelName{.panel = Panel::tune,
              .key = "tune",
              .title = "Tune",
              .note_words = {"tune panel"},
              .first_tile = Tile::bottom,
              .open_at_start = false},
};

// Every panel, in the table's order (the order of the enum).
inline constexpr std::size_t kPanelCount = kPanelTable.size();
inline constexpr std::array<Panel, kPanelCount> kAllPanels = [] {
  std::array<Panel, kPanelCount> panels{};
  for (std::size_t i = 0; i < kPanelCount; ++i)
    panels[i] = kPanelTable[i].panel;
  return panels;
}();

// Each row sits at its enum's place, so a panel's row is found by index.
constexpr bool panel_table_in_enum_order() {
  for (std::size_t i = 0; i < kPanelCount; ++i)
    if (static_cast<std::size_t>(kPanelTable[i].panel) != i)
      return false;
  return true;
}
static_assert(panel_table_in_enum_order(), "kPanelTable's rows must follow the Panel enum's order");

inline const PanelName& panel_row(Panel panel) {
  return kPanelTable[static_cast<std::size_t>(panel)];
}
inline const char* panel_name(Panel panel) { return panel_row(panel).key; }
inline const char* panel_title(Panel panel) { return panel_row(panel).title; }

// A panel by its key ("global") or its title ("Global memory"), in any case.
std::optional<Panel> parse_panel(std::string_view name);
// Every panel's key ("launch", ...), or its title ("Launch", ...) with `titles`: what a message
// lists and a did-you-mean picks from.
std::vector<std::string> panel_keys(bool titles = false);
// "launch, occupancy, ..., source" (or the titles): for help texts and messages.
std::string panel_keys_listed(bool titles = false);
// The panels a kernel's teaching note points at (by their note words), in panel order.
std::vector<Panel> panels_named_in(std::string_view note);

} // namespace wl
