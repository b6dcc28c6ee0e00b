#include "drawing/controls.h"

#include <algorithm>

#include <imgui.h>
#include <imgui_internal.h> // the current window's clip rectangle

namespace wl::viz {

namespace {

// One GUI thread draws the frames, so the list of one frame is a plain global.
std::vector<Control> g_controls;
// The panels entered and not yet left: each one's title and the visible part of its window.
struct EnteredPanel {
  std::string title;
  ScreenRect window;
};
std::vector<EnteredPanel> g_panels;
std::vector<std::string> g_cut_off;   // texts drawn narrower than they are
std::vector<std::string> g_shortened; // texts shown cut to "...", whole on hover
std::optional<Tooltip> g_tooltip;

ScreenRect rect_of(ImVec2 min, ImVec2 max) { return {min.x, min.y, max.x, max.y}; }

ScreenRect window_clip() {
  const ImGuiWindow* window = ImGui::GetCurrentWindow();
  // A menu bar's own items (Run, Live) lie outside the window's inner area, in the clip rectangle
  // BeginMenuBar pushes.
  if (window->DC.NavLayerCurrent == ImGuiNavLayer_Menu)
    return rect_of(window->ClipRect.Min, window->ClipRect.Max);
  return rect_of(window->InnerClipRect.Min, window->InnerClipRect.Max);
}

// Where the current window lies: its visible part, its whole inner area and its top window's.
void place_in_current_window(Control& control) {
  const ImGuiWindow* window = ImGui::GetCurrentWindow();
  control.window = window_clip();
  control.window_inner = rect_of(window->InnerRect.Min, window->InnerRect.Max);
  control.panel_window = g_panels.empty() ? control.window : g_panels.back().window;
}

// A control with the given rectangle in the current window.
void note(const std::string& label, ControlKind kind, ScreenRect rect, float click_x, float click_y,
          bool visible) {
  Control control;
  control.label = label;
  control.panel = g_panels.empty() ? "" : g_panels.back().title;
  control.kind = kind;
  control.rect = rect;
  place_in_current_window(control);
  control.click_x = click_x;
  control.click_y = click_y;
  control.visible = visible && control.window.contains(click_x, click_y);
  control.in_popup = (ImGui::GetCurrentWindow()->Flags & ImGuiWindowFlags_Popup) != 0;
  control.responded = ImGui::IsItemActivated() || ImGui::IsItemDeactivated() ||
                      ImGui::IsItemEdited() || ImGui::IsItemToggledOpen() || ImGui::IsItemClicked();
  g_controls.push_back(std::move(control));
}

void note_item(const char* label, ControlKind kind) { note_last_item(visible_label(label), kind); }

// A field is clicked on its text, left of any step buttons; `value` is what it shows.
void note_field(const char* label, ControlKind kind, std::string value) {
  const ImVec2 min = ImGui::GetItemRectMin(), max = ImGui::GetItemRectMax();
  const float x = min.x + ImGui::GetStyle().FramePadding.x + 2;
  note(visible_label(label), kind, rect_of(min, max), x, (min.y + max.y) / 2,
       ImGui::IsItemVisible());
  g_controls.back().value = std::move(value);
}

// A combo or menu opens a popup window, after which the last item is the popup's: so its frame is
// measured before it is drawn, from where it will be.
ScreenRect upcoming_frame(float width) {
  const ImVec2 at = ImGui::GetCursorScreenPos();
  return {at.x, at.y, at.x + width, at.y + ImGui::GetFrameHeight()};
}

} // namespace

void begin_controls_frame() {
  g_controls.clear();
  g_panels.clear();
  g_cut_off.clear();
  g_shortened.clear();
  g_tooltip.reset();
}

void note_tooltip(const std::string& text) {
  const ImVec2 min = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
  g_tooltip = Tooltip{text, rect_of(min, ImVec2(min.x + size.x, min.y + size.y))};
}

const std::optional<Tooltip>& tooltip_on_screen() { return g_tooltip; }

void note_cut_off(const std::string& text) {
  g_cut_off.push_back((g_panels.empty() ? "" : g_panels.back().title + ": ") + text);
}

const std::vector<std::string>& cut_off_on_screen() { return g_cut_off; }

void note_shortened(const std::string& whole) { g_shortened.push_back(whole); }

const std::vector<std::string>& shortened_on_screen() { return g_shortened; }

WordsOnScreen::WordsOnScreen(bool recording, std::string& into)
    : m_into(recording && !ImGui::GetCurrentContext()->LogEnabled ? &into : nullptr) {
  if (m_into)
    ImGui::LogToBuffer(0);
}

WordsOnScreen::~WordsOnScreen() {
  if (!m_into)
    return;
  *m_into = ImGui::GetCurrentContext()->LogBuffer.c_str();
  ImGui::LogFinish();
}

void enter_panel(const std::string& title) { g_panels.push_back({title, window_clip()}); }

void leave_panel() {
  // A panel has no horizontal scrollbar: whatever was drawn past its right edge is cut off (an
  // unwrapped line, a row of buttons), so it is noted like a number cut short.
  const ImGuiWindow* window = ImGui::GetCurrentWindow();
  const float past = window->DC.CursorMaxPos.x - window->InnerClipRect.Max.x;
  if (past > 1)
    note_cut_off("something drawn " + std::to_string(static_cast<int>(past)) +
                 " px past the panel's right edge");
  if (!g_panels.empty())
    g_panels.pop_back();
}

const std::vector<Control>& controls_on_screen() { return g_controls; }

void note_last_item(const std::string& label, ControlKind kind) {
  const ImVec2 min = ImGui::GetItemRectMin(), max = ImGui::GetItemRectMax();
  // Clicked in the middle of the part in view: an item wider than its window (a tree row in a
  // list that scrolls sideways) is clicked where a person sees it.
  const ScreenRect clip = window_clip();
  const float left = std::max(min.x, clip.x0), right = std::min(max.x, clip.x1);
  const float x = left < right ? (left + right) / 2 : (min.x + max.x) / 2;
  note(label, kind, rect_of(min, max), x, (min.y + max.y) / 2, ImGui::IsItemVisible());
}

std::string visible_label(const char* label) {
  const std::string text = label;
  return text.substr(0, text.find("##"));
}

namespace ui {

bool button(const char* label) {
  const bool pressed = ImGui::Button(label);
  note_item(label, ControlKind::button);
  return pressed;
}

bool small_button(const char* label) {
  const bool pressed = ImGui::SmallButton(label);
  note_item(label, ControlKind::button);
  return pressed;
}

bool checkbox(const char* label, bool* value) {
  const bool changed = ImGui::Checkbox(label, value);
  note_item(label, ControlKind::checkbox);
  return changed;
}

bool selectable(const char* label, bool selected, const std::string& script_name) {
  const bool clicked = ImGui::Selectable(label, selected);
  note_last_item(script_name.empty() ? visible_label(label) : script_name, ControlKind::selectable);
  return clicked;
}

bool link(const char* label, const std::string& script_name) {
  const bool clicked =
      ImGui::Selectable(label, false, 0, ImVec2(ImGui::CalcTextSize(label, nullptr, true).x, 0));
  note_last_item(script_name.empty() ? visible_label(label) : script_name, ControlKind::selectable);
  return clicked;
}

bool tree_node(const char* label) {
  const bool open = ImGui::TreeNode(label);
  note_item(label, ControlKind::tree_node);
  return open;
}

bool begin_combo(const char* label, const char* preview) {
  const ScreenRect frame = upcoming_frame(ImGui::CalcItemWidth());
  Control control;                  // noted by hand: an open combo's last item is its popup's
  place_in_current_window(control); // the window holding the combo, before its popup opens
  const bool open = ImGui::BeginCombo(label, preview);
  control.label = visible_label(label);
  control.panel = g_panels.empty() ? "" : g_panels.back().title;
  control.kind = ControlKind::combo;
  control.rect = frame;
  control.click_x = (frame.x0 + frame.x1) / 2;
  control.click_y = (frame.y0 + frame.y1) / 2;
  control.visible = control.window.contains(control.click_x, control.click_y);
  control.responded = open;
  g_controls.push_back(std::move(control));
  return open;
}

bool begin_menu(const char* label) {
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const float width = ImGui::CalcTextSize(label, nullptr, true).x;
  const ScreenRect rect{at.x, at.y, at.x + width + spacing, at.y + ImGui::GetTextLineHeight()};
  const bool open = ImGui::BeginMenu(label);
  Control control;
  control.label = visible_label(label);
  control.kind = ControlKind::menu;
  control.rect = control.window = rect;
  control.click_x = at.x + spacing / 2 + width / 2;
  control.click_y = at.y + ImGui::GetTextLineHeight() / 2;
  control.responded = open;
  g_controls.push_back(std::move(control));
  return open;
}

bool menu_item(const char* label, const char* shortcut, bool selected, bool enabled) {
  const bool clicked = ImGui::MenuItem(label, shortcut, selected, enabled);
  note_item(label, ControlKind::menu_item);
  return clicked;
}

bool menu_item_toggle(const char* label, const char* shortcut, bool* value) {
  const bool clicked = ImGui::MenuItem(label, shortcut, value);
  note_item(label, ControlKind::menu_item);
  return clicked;
}

bool input_text(const char* label, char* buffer, std::size_t size, int flags) {
  const bool changed = ImGui::InputText(label, buffer, size, flags);
  note_field(label, ControlKind::input, buffer);
  return changed;
}

bool input_int(const char* label, int* value) {
  const bool changed = ImGui::InputInt(label, value);
  note_field(label, ControlKind::input, std::to_string(*value));
  return changed;
}

bool slider_int(const char* label, int* value, int low, int high) {
  // Ctrl+click turns a slider into a text field: the way a script types a value into it.
  const bool changed = ImGui::SliderInt(label, value, low, high);
  note_field(label, ControlKind::slider, std::to_string(*value));
  return changed;
}

bool tab(const char* label, bool active) {
  const ImVec2 size = ImGui::CalcTextSize(label, nullptr, true);
  const bool clicked = ImGui::Selectable(label, active, 0, ImVec2(size.x, 0));
  note_item(label, ControlKind::tab);
  return clicked;
}

} // namespace ui

} // namespace wl::viz
