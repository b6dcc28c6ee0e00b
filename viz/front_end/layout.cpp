#include "front_end/layout.h"

#include "drawing/controls.h"
#include "drawing/widgets.h"
#include "panels/panels.h"

#include <algorithm>
#include <string>

#include <imgui.h>

namespace wl::viz {

namespace {

// The least a tile needs, in pixels at scale 1, before its panels join a neighbour's tabs.
constexpr float kLeastTileWidth = 380, kLeastTileHeight = 240, kLeastLeftWidth = 300;
constexpr float kSplitterThickness = 6;

int index(Tile tile) { return static_cast<int>(tile); }
int index(Panel panel) { return static_cast<int>(panel); }

// Each open panel's tile once small areas are merged: a narrow right side has one column, a low
// one a single row, a narrow window no left column.
std::array<Tile, kAllPanels.size()> merged_tiles(const App& app, float width, float height,
                                                 float scale) {
  std::array<Tile, kAllPanels.size()> tile_of = app.choices.layout.tile;
  const float right_width = width * (1 - app.choices.layout.left_width);
  const bool one_column = right_width < 2 * kLeastTileWidth * scale;
  const bool one_row = height < 2 * kLeastTileHeight * scale;
  const bool no_left = width < (kLeastLeftWidth + kLeastTileWidth) * scale;
  for (Tile& tile : tile_of) {
    if (one_column && tile == Tile::top_right)
      tile = Tile::top_left;
    if (one_row && tile == Tile::bottom)
      tile = Tile::top_left;
    if (no_left && tile == Tile::left)
      tile = Tile::top_left;
  }
  return tile_of;
}

// The panels to show in a tile, in table order.
std::vector<Panel> panels_in(const App& app, const TilePlan& plan, Tile tile) {
  std::vector<Panel> panels;
  for (const PanelInfo& info : kPanels)
    if (app.choices.panel_open[index(info.panel)] && plan.tile_of[index(info.panel)] == tile)
      panels.push_back(info.panel);
  return panels;
}

// The panel whose tab a tile shows: the one chosen, else its first.
Panel shown_in(const App& app, const std::vector<Panel>& panels, Tile tile) {
  const int chosen = app.choices.layout.shown[index(tile)];
  for (Panel panel : panels)
    if (index(panel) == chosen)
      return panel;
  return panels.front();
}

// A splitter: a thin invisible button that moves `fraction` of `extent` as it is dragged.
void splitter(const char* id, ImVec2 at, ImVec2 size, float& fraction, float extent,
              bool vertical) {
  ImGui::SetCursorScreenPos(at);
  ImGui::InvisibleButton(id, size);
  if (ImGui::IsItemHovered() || ImGui::IsItemActive())
    ImGui::SetMouseCursor(vertical ? ImGuiMouseCursor_ResizeEW : ImGuiMouseCursor_ResizeNS);
  if (ImGui::IsItemActive() && extent > 0) {
    const ImVec2 delta = ImGui::GetIO().MouseDelta;
    fraction = std::clamp(fraction + (vertical ? delta.x : delta.y) / extent, 0.15f, 0.85f);
  }
  const ImU32 colour = ImGui::GetColorU32(ImGui::IsItemActive()    ? ImGuiCol_SeparatorActive
                                          : ImGui::IsItemHovered() ? ImGuiCol_SeparatorHovered
                                                                   : ImGuiCol_Separator);
  const ImVec2 min = ImGui::GetItemRectMin(), max = ImGui::GetItemRectMax();
  const ImVec2 centre((min.x + max.x) / 2, (min.y + max.y) / 2);
  if (vertical)
    ImGui::GetWindowDrawList()->AddLine(ImVec2(centre.x, min.y), ImVec2(centre.x, max.y), colour);
  else
    ImGui::GetWindowDrawList()->AddLine(ImVec2(min.x, centre.y), ImVec2(max.x, centre.y), colour);
}

constexpr std::array kTileNames = {"the left column", "top left", "top right", "the bottom row"};

// Right-click on a tab: close the panel or move it to another tile.
void tab_menu(App& app, Panel panel) {
  if (!ImGui::BeginPopupContextItem())
    return;
  if (ui::menu_item("Close"))
    app.open(panel) = false;
  for (int tile = 0; tile < kTileCount; ++tile) {
    const std::string label = std::string("Move to ") + kTileNames[tile];
    if (tile != index(app.choices.layout.tile[index(panel)]) && ui::menu_item(label.c_str())) {
      app.choices.layout.tile[index(panel)] = static_cast<Tile>(tile);
      app.choices.layout.shown[tile] = index(panel);
    }
  }
  ImGui::EndPopup();
}

// The tab strip of a tile; a click shows that panel.
void tab_strip(App& app, const std::vector<Panel>& panels, Tile tile, Panel shown) {
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x,
              gap = ImGui::GetStyle().ItemSpacing.x * 2;
  for (std::size_t i = 0; i < panels.size(); ++i) {
    // On the same row while the tab fits, else on the next: every tab stays reachable.
    const float width = ImGui::CalcTextSize(panel_title(panels[i])).x;
    if (i > 0 && ImGui::GetItemRectMax().x + gap + width <= right)
      ImGui::SameLine(0, gap);
    if (ui::tab(panel_title(panels[i]), panels[i] == shown))
      app.choices.layout.shown[index(tile)] = index(panels[i]);
    tab_menu(app, panels[i]);
    if (std::find(app.frame.highlighted.begin(), app.frame.highlighted.end(), panels[i]) !=
        app.frame.highlighted.end())
      ImGui::GetForegroundDrawList()->AddRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax(),
                                              IM_COL32(240, 170, 40, 255), 0, 0,
                                              2); // the note points here
  }
  ImGui::Separator();
}

// `alone`: the tile is drawn by itself for a screenshot of its panel, and the picture ends where
// the panel's content does.
void draw_tile(App& app, const TilePlan& plan, Tile tile, const TileRect& rect, bool alone) {
  const std::vector<Panel> panels = panels_in(app, plan, tile);
  if (!rect.used || panels.empty())
    return;
  const Panel shown = shown_in(app, panels, tile);
  ImGui::SetCursorScreenPos(ImVec2(rect.x, rect.y));
  const std::string id = std::string("##tile") + std::to_string(index(tile));
  ImGui::BeginChild(id.c_str(), ImVec2(rect.width, rect.height), true);
  tab_strip(app, panels, tile, shown);
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  app.rect(shown) =
      PanelRect{rect.x - viewport->Pos.x, rect.y - viewport->Pos.y, rect.width, rect.height, true};
  if (!alone && std::find(app.frame.highlighted.begin(), app.frame.highlighted.end(), shown) !=
                    app.frame.highlighted.end())
    ImGui::GetForegroundDrawList()->AddRect(ImVec2(rect.x, rect.y),
                                            ImVec2(rect.x + rect.width, rect.y + rect.height),
                                            IM_COL32(240, 170, 40, 255), 0, 0, 3);
  // No horizontal scrolling: panels fit their width (wrapped text, tables that scroll themselves).
  ImGui::BeginChild(panel_title(shown), ImVec2(0, 0), false);
  enter_panel(panel_title(shown));
  {
    WordsOnScreen words(app.frame.screenshot.has_value(), app.frame.panel_text[index(shown)]);
    // The playground, the Launch panel and the Source panel cover their answers alone (the
    // playground's figures, the kernel's note, the figures under the code): their fields are what
    // a learner changes, and the code is what a learner reads to predict.
    const bool covers_own_parts =
        shown == Panel::playground || shown == Panel::launch || shown == Panel::source;
    if (!covers_own_parts && app.lesson_veils(shown))
      empty_state(std::string("Covered while the lesson asks its question: this panel shows the "
                              "answer. Answer it in the Lessons panel (or ask to be shown), and "
                              "the ") +
                  panel_title(shown) + " panel comes back.");
    else
      panel_info(shown).draw(app);
  }
  // From the tile's top to the last item's bottom (the cursor sits an item spacing below it), and
  // the tile's bottom padding.
  const ImGuiStyle& style = ImGui::GetStyle();
  const float used =
      ImGui::GetCursorScreenPos().y - style.ItemSpacing.y - rect.y + style.WindowPadding.y;
  leave_panel();
  ImGui::EndChild();
  ImGui::EndChild();
  if (alone) { // taller than the window, the picture ends at its bottom: the sidecar says so
    app.rect(shown).height = std::min(rect.height, used);
    app.rect(shown).content_height = used;
  }
}

// A panel's screenshot shows the whole panel: while one is taken, the panel's tile keeps its width
// and takes the full height, drawn alone, so a map or a bank grid is never cut where the tile ends.
void draw_alone_for_screenshot(App& app, const TilePlan& plan, Panel panel, float top,
                               float height) {
  const Tile tile = plan.tile_of[index(panel)];
  TileRect rect = plan.tiles[index(tile)];
  rect.y = top, rect.height = height;
  draw_tile(app, plan, tile, rect, true);
}

} // namespace

float menu_bar_height() { return ImGui::GetFontSize() + 2 * ImGui::GetStyle().FramePadding.y; }
float status_bar_height() { return ImGui::GetFontSize() * 1.75f; }

TilePlan plan_tiles(const App& app, float x, float y, float width, float height, float scale) {
  TilePlan plan;
  plan.tile_of = merged_tiles(app, width, height, scale);
  std::array<bool, kTileCount> used{};
  for (const PanelInfo& info : kPanels)
    if (app.choices.panel_open[index(info.panel)])
      used[index(plan.tile_of[index(info.panel)])] = true;
  const float gap = kSplitterThickness * scale;
  const bool left = used[index(Tile::left)];
  const bool right =
      used[index(Tile::top_left)] || used[index(Tile::top_right)] || used[index(Tile::bottom)];
  const float left_width = !left    ? 0
                           : !right ? width
                                    : width * app.choices.layout.left_width - gap / 2;
  plan.tiles[index(Tile::left)] = {x, y, left_width, height, left};
  const float rx = left ? x + left_width + gap : x, rw = x + width - rx;
  const bool top = used[index(Tile::top_left)] || used[index(Tile::top_right)],
             bottom = used[index(Tile::bottom)];
  const float top_height = !top      ? 0
                           : !bottom ? height
                                     : height * app.choices.layout.top_height - gap / 2;
  const float by = top ? y + top_height + gap : y;
  plan.tiles[index(Tile::bottom)] = {rx, by, rw, y + height - by, bottom};
  const bool tl = used[index(Tile::top_left)], tr = used[index(Tile::top_right)];
  const float tl_width = !tl ? 0 : !tr ? rw : rw * app.choices.layout.top_split - gap / 2;
  plan.tiles[index(Tile::top_left)] = {rx, y, tl_width, top_height, tl};
  const float trx = tl ? rx + tl_width + gap : rx;
  plan.tiles[index(Tile::top_right)] = {trx, y, rx + rw - trx, top_height, tr};
  return plan;
}

void draw_tiled_panels(App& app) {
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  const float top = menu_bar_height(), bottom = status_bar_height();
  const ImVec2 pos(viewport->Pos.x, viewport->Pos.y + top),
      size(viewport->Size.x, viewport->Size.y - top - bottom);
  ImGui::SetNextWindowPos(pos);
  ImGui::SetNextWindowSize(size);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0);
  const ImGuiWindowFlags flags =
      ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
      ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoScrollWithMouse;
  const bool visible = ImGui::Begin("##panels", nullptr, flags);
  ImGui::PopStyleVar(2);
  for (PanelRect& rect : app.frame.panel_rects)
    rect.visible = false;
  if (visible) {
    const TilePlan plan = plan_tiles(app, pos.x, pos.y, size.x, size.y, app.choices.ui_scale);
    if (app.frame.screenshot && app.frame.screenshot->panel &&
        app.choices.panel_open[index(*app.frame.screenshot->panel)]) {
      draw_alone_for_screenshot(app, plan, *app.frame.screenshot->panel, pos.y, size.y);
      ImGui::End();
      return;
    }
    // Which panel each tile shows, known before any is drawn: a panel drawn first (the Lessons
    // panel, with the code beside a question) asks whether a later one (Source) is in sight.
    for (int tile = 0; tile < kTileCount; ++tile)
      if (const std::vector<Panel> panels = panels_in(app, plan, static_cast<Tile>(tile));
          plan.tiles[tile].used && !panels.empty())
        app.rect(shown_in(app, panels, static_cast<Tile>(tile))).visible = true;
    for (int tile = 0; tile < kTileCount; ++tile)
      draw_tile(app, plan, static_cast<Tile>(tile), plan.tiles[tile], false);
    const float gap = kSplitterThickness * app.choices.ui_scale;
    const TileRect &left = plan.tiles[index(Tile::left)], &tl = plan.tiles[index(Tile::top_left)],
                   &bottom_tile = plan.tiles[index(Tile::bottom)];
    const bool right = plan.tiles[index(Tile::top_left)].used ||
                       plan.tiles[index(Tile::top_right)].used || bottom_tile.used;
    if (left.used && right)
      splitter("##split_left", ImVec2(left.x + left.width, pos.y), ImVec2(gap, size.y),
               app.choices.layout.left_width, size.x, true);
    const float rx = left.used ? left.x + left.width + gap : pos.x, rw = pos.x + size.x - rx;
    const bool top_used = tl.used || plan.tiles[index(Tile::top_right)].used;
    if (top_used && bottom_tile.used)
      splitter("##split_rows", ImVec2(rx, bottom_tile.y - gap), ImVec2(rw, gap),
               app.choices.layout.top_height, size.y, false);
    if (tl.used && plan.tiles[index(Tile::top_right)].used)
      splitter("##split_top", ImVec2(tl.x + tl.width, pos.y), ImVec2(gap, tl.height),
               app.choices.layout.top_split, rw, true);
  }
  ImGui::End();
}

} // namespace wl::viz
