#include "panels.h"

#include <algorithm>

#include <imgui.h>

namespace wl::viz {

PanelPlacement default_placement(Panel panel, float display_width, float display_height) {
  const float top = kMenuBarHeight, height = display_height - kMenuBarHeight - kStatusBarHeight;
  // Launch on the left, Occupancy above Timings in the middle, Counters on the right.
  const float launch_width = display_width * 0.25f, middle_width = display_width * 0.36f;
  const float right = launch_width + middle_width, occupancy_height = height * 0.69f;
  switch (panel) {
  case Panel::launch:
    return {0, top, launch_width, height};
  case Panel::occupancy:
    return {launch_width, top, middle_width, occupancy_height};
  case Panel::timings:
    return {launch_width, top + occupancy_height, middle_width, height - occupancy_height};
  case Panel::counters:
    return {right, top, display_width - right, height};
  // The maps open on demand over the middle and right columns, side by side.
  case Panel::global_memory:
    return {launch_width, top, middle_width, height};
  case Panel::shared_memory:
  case Panel::divergence:
  case Panel::sweep:
    return {right, top, display_width - right, height};
  }
  return {0, top, display_width, height};
}

bool begin_panel(App &app, Panel panel) {
  const ImGuiViewport *viewport = ImGui::GetMainViewport();
  const PanelPlacement place = default_placement(panel, viewport->Size.x, viewport->Size.y);
  ImGui::SetNextWindowPos(ImVec2(viewport->Pos.x + place.x, viewport->Pos.y + place.y), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(place.width, place.height), ImGuiCond_FirstUseEver);
  // A panel saved alone comes to the front first: the memory maps may be open over it.
  if (app.screenshot && app.screenshot->panel == panel) ImGui::SetNextWindowFocus();
  const bool expanded = ImGui::Begin(panel_title(panel), &app.open(panel));
  const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
  if (std::find(app.highlighted.begin(), app.highlighted.end(), panel) != app.highlighted.end())
    ImGui::GetForegroundDrawList()->AddRect(pos, ImVec2(pos.x + size.x, pos.y + size.y), IM_COL32(240, 170, 40, 255),
                                            ImGui::GetStyle().WindowRounding, 0, 3); // the teaching note points here
  app.rect(panel) = PanelRect{pos.x - viewport->Pos.x, pos.y - viewport->Pos.y, size.x, size.y, true};
  if (!expanded || !app.open(panel)) {
    ImGui::End();
    return false;
  }
  return true;
}

} // namespace wl::viz
