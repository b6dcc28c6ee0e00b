#pragma once
// Every control a person can click or type into, as the last frame drew it: its visible label, the
// panel it sits in and where it is on screen. The panels draw their controls through the `ui`
// functions below, which draw the Dear ImGui widget and note it here, so a scripted session
// (script.h) finds a button by the text a person reads on it and moves the pointer there.

#include <optional>
#include <string>
#include <vector>

namespace wl::viz {

enum class ControlKind {
  button,
  checkbox,
  tree_node,
  selectable,
  combo,
  menu,
  menu_item,
  tab,
  input,
  slider,
  cell
};

struct ScreenRect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool contains(float x, float y) const { return x >= x0 && x < x1 && y >= y0 && y < y1; }
};

struct Control {
  std::string
      label; // the visible text ("Run (F5)"), or the name a script uses (a kernel id, "16x8")
  std::string panel; // the panel's title ("Launch"); "" for the menu bar and the status line
  ControlKind kind = ControlKind::button;
  ScreenRect rect;   // the whole widget, label included
  ScreenRect window; // the visible part of the window it is in: where a wheel scrolls it
  // That window's whole inner area (past what its parent shows of it) and the visible part of the
  // panel's own window: a tree in a child window scrolled out of its panel needs the panel
  // scrolled, not the tree. Empty (all zero) where the control has no window of its own.
  ScreenRect window_inner, panel_window;
  float click_x = 0, click_y = 0; // where a person clicks it: a field's text, a button's centre
  bool visible = true;            // false when its window has scrolled it out of sight
  bool in_popup = false;          // an open combo's list or menu: drawn above everything else
  // The pointer acted on it this frame (pressed, released, toggled, edited; a combo or menu is
  // open): a scripted click that never reaches its control fails instead of passing for done.
  bool responded = false;
  std::string value; // a field's text as the frame shows it (input and slider)
};

// Called by the frame: a new frame starts the list afresh; panels are entered and left.
void begin_controls_frame();
void enter_panel(const std::string& title);
void leave_panel(); // called in the panel's window: notes anything drawn past its right edge
// The controls of the last frame, in drawing order.
const std::vector<Control>& controls_on_screen();
// Notes the last drawn ImGui item as a control (for custom drawings such as heatmap cells).
void note_last_item(const std::string& label, ControlKind kind);
// While `recording`, the words drawn from construction to destruction (ImGui's text log) go to
// `into`: what a screenshot's sidecar says a panel or the status line showed. Tree nodes are not
// opened for the log, so the picture stays as it is. It must end before the End() of a top-level
// window, which ends ImGui's log.
class WordsOnScreen {
public:
  WordsOnScreen(bool recording, std::string& into);
  ~WordsOnScreen();
  WordsOnScreen(const WordsOnScreen&) = delete;
  WordsOnScreen& operator=(const WordsOnScreen&) = delete;

private:
  std::string* m_into;
};

// The tooltip of the last frame, noted from inside its window: its words and where it lies, for a
// screenshot's sidecar (a tooltip is wrapped and on screen, never one line running off it).
struct Tooltip {
  std::string text;
  ScreenRect rect;
};
void note_tooltip(const std::string& text);
const std::optional<Tooltip>& tooltip_on_screen();

// A text drawn narrower than it is ("4,294,967,29" in a column too narrow), in the last frame's
// panels: what a screenshot's sidecar lists as cut off (nothing, when every column fits).
void note_cut_off(const std::string& text);
const std::vector<std::string>& cut_off_on_screen();

// A text shown shortened to "..." on purpose (the status line's mode where a message shares the
// line), whole on hover: what a screenshot's sidecar lists as shortened, whole, so a screenshot
// at a small window still says what the line held.
void note_shortened(const std::string& whole);
const std::vector<std::string>& shortened_on_screen();

// The visible part of a label: "Run##launch" -> "Run".
std::string visible_label(const char* label);

namespace ui {
bool button(const char* label);
bool small_button(const char* label);
bool checkbox(const char* label, bool* value);
bool selectable(const char* label, bool selected, const std::string& script_name = "");
// A selectable as wide as its words, so figures can stand beside it (a site's name in Source).
bool link(const char* label, const std::string& script_name = "");
bool tree_node(const char* label);
bool begin_combo(const char* label, const char* preview);
bool begin_menu(const char* label);
bool menu_item(const char* label, const char* shortcut = nullptr, bool selected = false,
               bool enabled = true);
bool menu_item_toggle(const char* label, const char* shortcut, bool* value);
bool input_text(const char* label, char* buffer, std::size_t size, int flags = 0);
bool input_int(const char* label, int* value);
bool slider_int(const char* label, int* value, int low, int high);
// A tab of a panel group: a selectable in a row; returns true when clicked.
bool tab(const char* label, bool active);
} // namespace ui

} // namespace wl::viz
