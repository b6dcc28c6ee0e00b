#include "front_end/script.h"

#include "base/error.h"
#include "base/file_output.h"
#include "base/text_file.h"
#include "base/text_format.h"
#include "drawing/controls.h"
#include "front_end/screenshot.h"
#include "model/block_text.h"
#include "registry.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include <GLFW/glfw3.h> // key codes: the key map is GLFW's in both front-ends
#include <imgui.h>

namespace wl::viz {

namespace {

constexpr std::size_t kLargestScript = 1 << 20;
constexpr int kMostDetours = 6;        // tabs and tree nodes opened on the way to one control
constexpr int kMostScrolls = 200;      // wheel steps towards a control scrolled out of sight
constexpr int kMostRetries = 3;        // clicks again on a control that did not respond
constexpr int kMostFramesToShow = 120; // a panel's tab clicked for its picture, until it shows
constexpr int kFramesToAppear = 5;     // frames a control may take to appear after a click
constexpr int kMostMoves = 30;         // frames a control may keep moving before it is pressed
// Frames a panel is drawn before a screenshot saves it: a table sizes its columns over its first
// frames, so a panel just shown (or a first frame) would be saved with squeezed columns.
constexpr int kFramesToSettle = 3;
constexpr int kShooting = 50; // the screenshot step's phase once the picture is asked for
constexpr double kDefaultWaitSeconds = 60;
constexpr std::size_t kTypedOneByOne = 40; // characters a set step types one frame each

std::string clip(const std::string& text, std::size_t most = 60) {
  return text.size() <= most ? text : text.substr(0, most - 3) + "...";
}

// Words and "quoted strings" of one line; inside a string \" is a quote, \\ a backslash, \n a
// line break and \t a tab (an edit's text may span lines).
std::vector<std::string> split_words(const std::string& line, const std::string& where) {
  std::vector<std::string> words;
  for (std::size_t i = 0; i < line.size();) {
    if (std::isspace(static_cast<unsigned char>(line[i]))) {
      ++i;
      continue;
    }
    std::string word;
    if (line[i] == '"') {
      std::size_t j = i + 1;
      for (; j < line.size() && line[j] != '"'; ++j) {
        if (line[j] == '\\' && j + 1 < line.size()) {
          ++j;
          // Any other escape would be changed without a word ("\q" into "q"): refused.
          if (std::string_view("nt\"\\").find(line[j]) == std::string_view::npos)
            throw UsageError(where + ": '\\" + std::string(1, line[j]) +
                             "' in a quoted text; allowed \\n (a line break), \\t (a tab), "
                             "\\\" (a quote) and \\\\ (a backslash)");
          word += line[j] == 'n' ? '\n' : line[j] == 't' ? '\t' : line[j];
          continue;
        }
        word += line[j];
      }
      if (j >= line.size())
        throw UsageError(where + ": a quoted label is not closed; write \"LABEL\"");
      i = j + 1;
    } else {
      const std::size_t j = line.find_first_of(" \t\r", i);
      word = line.substr(i, j == std::string::npos ? std::string::npos : j - i);
      i = j == std::string::npos ? line.size() : j;
    }
    words.push_back(word);
  }
  return words;
}

std::optional<int> key_code(const std::string& name) {
  const std::string key = lowercase(name);
  if (key.size() == 1 && key[0] >= 'a' && key[0] <= 'z')
    return GLFW_KEY_A + (key[0] - 'a');
  if (key.size() == 1 && key[0] >= '0' && key[0] <= '9')
    return GLFW_KEY_0 + (key[0] - '0');
  if (key.size() >= 2 && key.size() <= 3 && key[0] == 'f') {
    int n = 0;
    const auto [end, ec] = std::from_chars(key.data() + 1, key.data() + key.size(), n);
    if (ec == std::errc() && end == key.data() + key.size() && n >= 1 && n <= 12)
      return GLFW_KEY_F1 + n - 1;
  }
  static const std::vector<std::pair<std::string, int>> kNamed = {
      {"escape", GLFW_KEY_ESCAPE}, {"enter", GLFW_KEY_ENTER},
      {"tab", GLFW_KEY_TAB},       {"backspace", GLFW_KEY_BACKSPACE},
      {"delete", GLFW_KEY_DELETE}, {"up", GLFW_KEY_UP},
      {"down", GLFW_KEY_DOWN},     {"left", GLFW_KEY_LEFT},
      {"right", GLFW_KEY_RIGHT},   {"=", GLFW_KEY_EQUAL},
      {"-", GLFW_KEY_MINUS},       {"space", GLFW_KEY_SPACE}};
  for (const auto& [named, code] : kNamed)
    if (key == named)
      return code;
  return std::nullopt;
}

struct Chord {
  int key = 0;
  bool ctrl = false;
};

std::optional<Chord> parse_chord(const std::string& text) {
  const bool ctrl = lowercase(text).starts_with("ctrl+");
  const std::optional<int> code = key_code(ctrl ? text.substr(5) : text);
  if (!code)
    return std::nullopt;
  return Chord{*code, ctrl};
}

// "1280x720" as a window size in range, else nullopt.
std::optional<std::pair<int, int>> window_size(const std::string& text) {
  const std::size_t x = text.find('x');
  int width = 0, height = 0;
  if (x == std::string::npos)
    return std::nullopt;
  const auto [w_end, w_error] = std::from_chars(text.data(), text.data() + x, width);
  const auto [h_end, h_error] =
      std::from_chars(text.data() + x + 1, text.data() + text.size(), height);
  if (w_error != std::errc() || h_error != std::errc() || w_end != text.data() + x ||
      h_end != text.data() + text.size())
    return std::nullopt;
  if (width < 320 || height < 200 || width > 8192 || height > 8192)
    return std::nullopt;
  return std::pair(width, height);
}

double parse_seconds(const std::string& text, const std::string& where, const char* verb = "wait") {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
    throw UsageError(where + ": " + verb + " '" + clip(text) +
                     "' is not a number of seconds; allowed more than 0 up to 3600");
  if (value <= 0 || value > 3600)
    throw UsageError(where + ": " + verb + " '" + clip(text) +
                     "' is out of range; allowed more than 0 up to 3600 seconds");
  return value;
}

bool panel_matches(const std::string& name, const std::string& panel_title_text) {
  if (name.empty())
    return true;
  const std::optional<Panel> panel = parse_panel(name);
  return panel && panel_title(*panel) == panel_title_text;
}

void refuse_empty(const std::string& word, const char* what, const std::string& where) {
  if (word.empty())
    throw UsageError(where + ": an empty " + what + " (\"\"); write the " + what + " in quotes");
}

void check_step(const ScriptStep& step, const std::string& where) {
  const auto count = [&](std::size_t low, std::size_t high, const char* usage) {
    if (step.args.size() < low || step.args.size() > high)
      throw UsageError(where + ": " + step.verb + " takes " + usage);
  };
  if (step.verb == "window") {
    count(1, 1, "one size, WIDTHxHEIGHT");
    if (!window_size(step.args[0]))
      throw UsageError(where + ": window '" + clip(step.args[0]) +
                       "' is not a size; allowed WIDTHxHEIGHT, 320x200 to 8192x8192");
  } else if (step.verb == "scale") {
    count(1, 1, "one factor, 0.5 to 4");
    double scale = 0;
    const std::string& text = step.args[0];
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), scale);
    if (ec != std::errc() || end != text.data() + text.size() || !(scale >= 0.5 && scale <= 4))
      throw UsageError(where + ": scale '" + clip(step.args[0]) +
                       "' is not allowed; allowed 0.5 to 4");
  } else if (step.verb == "click") {
    count(1, 1, "\"LABEL\" [in \"PANEL\"]; a label with spaces goes in quotes");
    refuse_empty(step.args[0], "label", where);
  } else if (step.verb == "hover") {
    count(1, 1, "\"LABEL\" [in \"PANEL\"]; a label with spaces goes in quotes");
    refuse_empty(step.args[0], "label", where);
  } else if (step.verb == "set") {
    count(2, 2, "\"LABEL\" VALUE [in \"PANEL\"]");
    refuse_empty(step.args[0], "label", where);
  } else if (step.verb == "key") {
    count(1, 1,
          "one key: F1-F12, A-Z, 0-9, Escape, Enter, Tab, Backspace, Delete, arrows, =, -, with "
          "ctrl+ if wanted");
    if (!parse_chord(step.args[0]))
      throw UsageError(where + ": unknown key '" + clip(step.args[0]) +
                       "'; keys: F1-F12, A-Z, 0-9, Escape, Enter, Tab, Backspace, Delete, Up, "
                       "Down, Left, Right, =, -, ctrl+KEY");
  } else if (step.verb == "wait") {
    count(0, 1, "nothing or a number of seconds");
    if (!step.args.empty())
      parse_seconds(step.args[0], where);
  } else if (step.verb == "sleep") {
    count(1, 1, "a number of seconds");
    parse_seconds(step.args[0], where, "sleep");
  } else if (step.verb == "edit") {
    count(3, 3, "FILE \"FIND\" \"REPLACE\"");
    refuse_empty(step.args[0], "file name", where);
    refuse_empty(step.args[1], "text to find", where);
  } else if (step.verb == "screenshot") {
    count(1, 2, "FILE [PANEL]");
    refuse_empty(step.args[0], "file name", where);
    if (step.args.size() == 2 && !parse_panel(step.args[1]))
      throw UsageError(where + ": unknown panel '" + clip(step.args[1]) + "'" +
                       did_you_mean(step.args[1], panel_keys()) +
                       "; panels: " + panel_keys_listed());
  } else {
    throw UsageError(where + ": unknown action '" + clip(step.verb) + "'" +
                     did_you_mean(step.verb, {"window", "scale", "click", "hover", "set", "key",
                                              "wait", "sleep", "edit", "screenshot"}) +
                     "; actions: window, scale, click, hover, set, key, wait, sleep, edit, "
                     "screenshot");
  }
  if (!step.panel.empty() && !std::any_of(kAllPanels.begin(), kAllPanels.end(), [&](Panel p) {
        return panel_matches(step.panel, panel_title(p));
      }))
    throw UsageError(where + ": unknown panel '" + clip(step.panel) + "'" +
                     did_you_mean(step.panel, panel_keys(true)) +
                     "; panels: " + panel_keys_listed(true));
}

} // namespace

Script parse_script(const std::string& text, const std::string& file) {
  if (text.size() > kLargestScript)
    throw UsageError(file + ": the script is over 1 MiB; split it");
  Script script{file, {}};
  // An editor's byte-order mark is not part of the first action's name.
  std::istringstream lines(text.starts_with("\xEF\xBB\xBF") ? text.substr(3) : text);
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    const std::string where = file + ":" + std::to_string(number);
    if (const std::size_t nul = line.find('\0'); nul != std::string::npos)
      throw UsageError(where + ": a NUL byte at column " + std::to_string(nul + 1) +
                       "; a script is text");
    std::vector<std::string> words = split_words(line, where);
    if (words.empty() || words[0].starts_with("#"))
      continue;
    ScriptStep step{number, lowercase(words[0]), {}, ""};
    words.erase(words.begin());
    if (words.size() >= 2 && words[words.size() - 2] == "in") { // `... in "PANEL"`
      // An empty panel would read as no `in` at all: any panel, not the one meant.
      if (words.back().empty())
        throw UsageError(where + ": an empty panel name (in \"\"); name a panel, or leave out "
                                 "`in` for a control in any panel");
      step.panel = words.back();
      words.resize(words.size() - 2);
    }
    step.args = std::move(words);
    check_step(step, where);
    script.steps.push_back(std::move(step));
  }
  return script;
}

Script load_script(const std::filesystem::path& file) {
  return parse_script(read_text_file(file, "script", "a text file of actions", kLargestScript),
                      file.string());
}

namespace {
const Control* find_control(const std::string& label, const std::string& panel);
} // namespace

ScriptPlayer::ScriptPlayer(Script script) : m_script(std::move(script)) {
  if (m_script.steps.empty())
    m_outcome = ScriptOutcome{0, m_script.file + ": nothing to do"};
}

void ScriptPlayer::feed_input(ImGuiIO& io) {
  if (m_input.x >= 0 || m_input.x <= -1e6f)
    io.MousePos = ImVec2(m_input.x, m_input.y);
  io.MouseDown[0] = m_input.left;
  io.MouseWheel += m_input.wheel;
  m_input.wheel = 0;
  io.KeyCtrl = m_input.ctrl;
  for (int key : m_input.keys_down)
    io.KeysDown[key] = true;
  for (int key : m_input.keys_up)
    io.KeysDown[key] = false;
  m_input.keys_down.clear();
  m_input.keys_up.clear();
  for (char c : m_input.characters)
    io.AddInputCharacter(static_cast<unsigned char>(c));
  m_input.characters.clear();
}

std::optional<std::pair<int, int>> ScriptPlayer::take_window_size() {
  std::optional<std::pair<int, int>> size = m_window_size;
  m_window_size.reset();
  return size;
}

void ScriptPlayer::fail(const ScriptStep& step, int code, const std::string& message) {
  m_outcome = ScriptOutcome{code, m_script.file + ":" + std::to_string(step.line) + ": " + message};
}

void ScriptPlayer::next_step() {
  m_pointer_rests = m_script.steps[m_index].verb == "hover";
  ++m_index;
  m_phase = 0;
  m_detours = m_scrolls = m_looks = m_moves = m_drawn = m_frames_to_show = 0;
  m_typed = 0;
  m_responded = false;
  m_retries = 0;
  m_value_before.clear();
  if (m_index >= m_script.steps.size())
    m_outcome = ScriptOutcome{0, ""};
}

void ScriptPlayer::after_frame(App& app) {
  if (m_outcome)
    return;
  const ScriptStep& step = m_script.steps[m_index];
  if (m_saves_counted_from != m_index) { // the step starts: saves from here on are its own
    m_saves_counted_from = m_index;
    m_saves_before = app.messages.saves;
  }
  if (step.verb == "click")
    step_click(app, step);
  else if (step.verb == "hover")
    step_hover(app, step);
  else if (step.verb == "set")
    step_set(app, step);
  else if (step.verb == "key")
    step_key(app, step);
  else if (step.verb == "wait")
    step_wait(app, step);
  else if (step.verb == "sleep")
    step_sleep(step);
  else if (step.verb == "edit")
    step_edit(step);
  else if (step.verb == "screenshot")
    step_screenshot(app, step);
  else if (step.verb == "window") {
    m_window_size = window_size(step.args[0]);
    next_step();
  } else if (step.verb == "scale") {
    app.choices.ui_scale = static_cast<float>(std::atof(step.args[0].c_str()));
    next_step();
  }
}

namespace {

// The control a step means: the label in the panel asked for, one in sight first, and of those
// one in an open list (which lies above the rest, as a person sees it: "stride" in the parameter
// list, not the Launch panel's field of that name).
const Control* find_control(const std::string& label, const std::string& panel) {
  const auto rank = [](const Control& c) { return (c.visible ? 2 : 0) + (c.in_popup ? 1 : 0); };
  const Control* found = nullptr;
  for (const Control& c : controls_on_screen())
    if (c.label == label && panel_matches(panel, c.panel) && (!found || rank(c) > rank(*found)))
      found = &c;
  return found;
}

// What a person would open first to reach a label that is not on screen: the panel's tab, or
// the kernel's family in the Launch tree.
const Control* detour_to(const std::string& label, const std::string& panel) {
  if (!panel.empty())
    for (const Control& c : controls_on_screen())
      if (c.kind == ControlKind::tab && panel_matches(panel, c.label))
        return &c;
  if (const KernelDesc* kernel = find_kernel(label)) {
    const std::string family = kernel_family(kernel->id);
    if (const Control* node = find_control(family, ""))
      return node;
    for (const Control& c : controls_on_screen())
      if (c.kind == ControlKind::tab && c.label == panel_title(Panel::launch))
        return &c;
  }
  return nullptr;
}

std::vector<std::string> visible_labels() {
  std::vector<std::string> labels;
  for (const Control& c : controls_on_screen())
    if (c.visible && !c.label.empty() &&
        std::find(labels.begin(), labels.end(), c.label) == labels.end())
      labels.push_back(c.label);
  return labels;
}

std::string labels_on_screen() {
  const std::vector<std::string> labels = visible_labels();
  std::string text;
  const std::size_t shown = std::min<std::size_t>(labels.size(), 60);
  for (std::size_t i = 0; i < shown; ++i)
    text += (i ? ", \"" : "\"") + clip(labels[i], 32) + "\"";
  if (labels.size() > shown)
    text += " and " + std::to_string(labels.size() - shown) + " more";
  return text.empty() ? "none" : text;
}

// "; did you mean 'line 22: shared load, 4 B'?": a near miss, else a control on screen whose
// label holds the words typed (a site's row reads "line 22: " before the words a person reads).
std::string suggestion(const std::string& label) {
  const std::vector<std::string> labels = visible_labels();
  if (std::string near = did_you_mean(label, labels); !near.empty())
    return near;
  for (const std::string& shown : labels)
    if (!label.empty() && shown.find(label) != std::string::npos)
      return "; did you mean '" + clip(shown, 60) + "'?";
  return "";
}

} // namespace

// Phase 0 of a click or a set: puts the pointer over the control, scrolling it into sight or
// opening what hides it first (a detour ends with phase 0 again). False when the step failed.
bool ScriptPlayer::reach(App&, const ScriptStep& step, const std::string& label) {
  const Control* target = find_control(label, step.panel);
  // A list or popup opened by the last click appears a frame or two later: look again first.
  if (!target && ++m_looks <= kFramesToAppear)
    return true;
  const bool detour = !target;
  if (!target)
    target = detour_to(label, step.panel);
  if (!target || (detour && target->visible && ++m_detours > kMostDetours)) {
    fail(step, 2,
         step.verb + ": no \"" + clip(label) + "\" on screen" +
             (step.panel.empty() ? "" : " in " + step.panel) + suggestion(label) +
             "; on screen: " + labels_on_screen());
    return false;
  }
  if (!target->visible) { // scrolled away: the wheel over its window, towards it
    if (++m_scrolls > kMostScrolls) {
      fail(step, 2, step.verb + ": \"" + clip(label) + "\" cannot be scrolled into sight");
      return false;
    }
    // Over the window's own scrollbar, just right of its inner area: in the middle the wheel
    // could scroll a table that scrolls by itself instead of the panel. Where the panel is what
    // hides the control (its window, a tree in a child window, lies partly out of the panel's
    // view) or shows too little of that window, the panel's own window is scrolled instead; a
    // control its own window hides (even by its one-pixel border) is scrolled within that window.
    const ScreenRect& w = target->window;
    const ScreenRect& panel = target->panel_window;
    const bool in_its_window =
        target->click_y >= target->window_inner.y0 && target->click_y < target->window_inner.y1;
    const bool window_in_view = w.y1 - w.y0 > ImGui::GetTextLineHeight() * 2;
    const bool nested = panel.y1 > panel.y0 && (panel.y0 != w.y0 || panel.y1 != w.y1);
    const bool panel_hides_it =
        in_its_window && (target->click_y < panel.y0 || target->click_y >= panel.y1);
    const bool scroll_panel = nested && (panel_hides_it || !window_in_view);
    const ScreenRect& scrolled = scroll_panel ? panel : w;
    m_input.x = scrolled.x1 + ImGui::GetStyle().ScrollbarSize / 2;
    m_input.y = (scrolled.y0 + scrolled.y1) / 2;
    // Towards the control, or towards its window's top where the control is not yet in it.
    const float towards =
        !scroll_panel || in_its_window ? target->click_y : target->window_inner.y0;
    m_input.wheel = towards < scrolled.y0 ? 1.0f : -1.0f;
    return true;
  }
  m_input.x = target->click_x;
  m_input.y = target->click_y;
  m_input.ctrl =
      step.verb == "set" && target->kind == ControlKind::slider; // Ctrl+click types into a slider
  m_phase = detour ? 101 : 1; // a detour is clicked, then the step starts over
  m_looks = 0;
  return true;
}

// Before pressing: the control may have moved since the pointer went there (a result arrived and
// the panel's layout changed), so the pointer follows it, as a person's hand would.
bool ScriptPlayer::still_under_pointer(const ScriptStep& step, const std::string& label) {
  const Control* target = m_phase == 1 ? find_control(label, step.panel) : nullptr;
  if (!target || !target->visible || (target->click_x == m_input.x && target->click_y == m_input.y))
    return true;
  m_input.x = target->click_x;
  m_input.y = target->click_y;
  return ++m_moves > kMostMoves;
}

// Whether the step's control took the pointer in the frame just drawn (its press or release):
// any control of that label in that panel, since a label may stand twice (a tab and a link).
bool ScriptPlayer::control_responded(const ScriptStep& step) const {
  return std::any_of(
      controls_on_screen().begin(), controls_on_screen().end(), [&](const Control& c) {
        return c.responded && c.label == step.args[0] && panel_matches(step.panel, c.panel);
      });
}

// The phases a click and a set share: the pointer onto the control (or a detour that hides it:
// phases 101-103, then the search again), the button down, then up. True once the control itself
// was clicked; a click its control never felt (the panel moved under the pointer) fails the step,
// as a person would see that nothing happened.
bool ScriptPlayer::clicked(App& app, const ScriptStep& step) {
  switch (m_phase) {
  case 0:
    reach(app, step, step.args[0]);
    return false;
  case 1:
  case 101:
    if (still_under_pointer(step, step.args[0])) {
      m_input.left = true, ++m_phase;
      const Control* target = find_control(step.args[0], step.panel);
      m_value_before = target ? target->value : "";
    }
    return false;
  case 2:
  case 102:
    m_responded = control_responded(step); // the press
    m_input.left = false;
    m_input.ctrl = false;
    ++m_phase;
    return false;
  case 103:
    m_phase = 0; // the detour opened; find the control again
    return false;
  case 3:
    if (!m_responded && !control_responded(step) && ++m_retries <= kMostRetries) {
      m_phase = 0; // the layout moved under the pointer: as a person would, look and click again
      return false;
    }
    if (!m_responded && !control_responded(step)) { // nor the release, try after try
      fail(step, 2,
           step.verb + ": \"" + clip(step.args[0]) + "\" did not respond to the click at (" +
               std::to_string(static_cast<int>(m_input.x)) + ", " +
               std::to_string(static_cast<int>(m_input.y)) + ") after " +
               std::to_string(kMostRetries + 1) +
               " tries: something else is under the pointer, or it is disabled");
      return false;
    }
    m_responded = true;
    return true;
  default:
    return true;
  }
}

void ScriptPlayer::step_click(App& app, const ScriptStep& step) {
  if (clicked(app, step) && saves_done(app, step))
    next_step();
}

// A picture the step's click or key asked for (Export PNG, F12) is drawn over frames: the step ends
// once it is saved. Where each save went (or why it did not, and where it was kept) is printed, as
// a screenshot line's picture is.
bool ScriptPlayer::saves_done(const App& app, const ScriptStep& step) {
  if (app.frame.screenshot)
    return false;
  if (app.messages.saves != m_saves_before)
    m_notes.push_back(m_script.file + ":" + std::to_string(step.line) + ": " +
                      app.messages.last_save);
  return true;
}

// The pointer onto the control and kept there while its tooltip shows (a detour that hides the
// control is clicked, as for a click); the next screenshot leaves the pointer where it rests.
void ScriptPlayer::step_hover(App& app, const ScriptStep& step) {
  if (m_phase == 0 || m_phase > 100) {
    clicked(app, step);
    return;
  }
  if (!still_under_pointer(step, step.args[0]))
    m_drawn = 0; // it moved: the pointer follows and the tooltip starts again
  else if (++m_drawn >= kFramesToSettle)
    next_step();
}

void ScriptPlayer::step_set(App& app, const ScriptStep& step) {
  // Typing into a combo or a button would do nothing and pass for done: said instead.
  const Control* target = m_phase == 0 ? find_control(step.args[0], step.panel) : nullptr;
  if (target && target->kind != ControlKind::input && target->kind != ControlKind::slider) {
    fail(step, 2,
         "set: \"" + clip(step.args[0]) + "\" is not a field to type into; " +
             (target->kind == ControlKind::combo ? "click it, then click the item"
                                                 : "click it instead"));
    return;
  }
  if (!clicked(app, step))
    return;
  switch (m_phase) {
  case 3: // select all...
    m_input.ctrl = true;
    m_input.keys_down.push_back(GLFW_KEY_A);
    ++m_phase;
    return;
  case 4: // ...and delete it, so an empty value empties the field
    m_input.keys_up.push_back(GLFW_KEY_A);
    m_input.ctrl = false;
    m_input.keys_down.push_back(GLFW_KEY_BACKSPACE);
    ++m_phase;
    return;
  case 5:
    m_input.keys_up.push_back(GLFW_KEY_BACKSPACE);
    ++m_phase;
    return;
  case 6: { // a character a frame, as a person types, so a field sees each half-typed value; a
            // value longer than any field goes in at once after its first characters
    const std::string& value = step.args[1];
    std::size_t count = m_typed < kTypedOneByOne ? 1 : value.size() - m_typed;
    while (m_typed + count < value.size() && (value[m_typed + count] & 0xC0) == 0x80)
      ++count; // the rest of a UTF-8 character
    m_input.characters = value.substr(m_typed, count);
    m_typed += count;
    if (m_typed >= value.size())
      ++m_phase;
    return;
  }
  case 7:
    m_input.keys_down.push_back(GLFW_KEY_ENTER);
    ++m_phase;
    return;
  case 8:
    m_input.keys_up.push_back(GLFW_KEY_ENTER);
    ++m_phase;
    return;
  default:
    if (!field_took(step))
      return;
    next_step();
    return;
  }
}

// After a set: the field shows the value typed, or at least changed (a value it refuses stays on
// screen to be mended). One still showing what it showed before took none of the keys.
bool ScriptPlayer::field_took(const ScriptStep& step) {
  const Control* field = find_control(step.args[0], step.panel);
  const std::string now = field ? field->value : "";
  if (!field || now == step.args[1] || now != m_value_before)
    return true;
  fail(step, 2,
       "set: \"" + clip(step.args[0]) + "\" still shows \"" + clip(now) + "\" after \"" +
           clip(step.args[1]) + "\" was typed: the keys went elsewhere");
  return false;
}

void ScriptPlayer::step_key(App& app, const ScriptStep& step) {
  const Chord chord = *parse_chord(step.args[0]);
  switch (m_phase) {
  case 0:
    m_input.ctrl = chord.ctrl;
    m_input.keys_down.push_back(chord.key);
    ++m_phase;
    return;
  case 1:
    m_input.keys_up.push_back(chord.key);
    m_input.ctrl = false;
    ++m_phase;
    return;
  default:
    if (saves_done(app, step))
      next_step();
    return;
  }
}

void ScriptPlayer::step_wait(App& app, const ScriptStep& step) {
  using namespace std::chrono;
  if (m_phase == 0) {
    const double seconds =
        step.args.empty() ? kDefaultWaitSeconds : parse_seconds(step.args[0], "");
    m_deadline =
        steady_clock::now() + duration_cast<steady_clock::duration>(duration<double>(seconds));
    m_phase = 1;
  }
  const std::string busy = app.unsettled_by();
  if (busy.empty()) {
    // A save that does not compile settles too: the script's reader learns it, once a problem.
    const std::string problem = app.file.open() ? app.file.problem : "";
    if (!problem.empty() && problem != m_file_problem_said)
      m_notes.push_back(m_script.file + ":" + std::to_string(step.line) + ": wait: settled; " +
                        app.file.path.filename().string() +
                        " does not compile: " + clip(problem, 200));
    m_file_problem_said = problem;
    return next_step();
  }
  if (steady_clock::now() > m_deadline)
    fail(step, 1,
         "wait: still not settled after " + (step.args.empty() ? std::string("60") : step.args[0]) +
             " s: waiting on " + busy);
}

std::chrono::steady_clock::duration
ScriptPlayer::pause(std::chrono::steady_clock::duration longest) const {
  using std::chrono::steady_clock;
  if (m_index >= m_script.steps.size() || m_script.steps[m_index].verb != "sleep")
    return longest;
  if (m_phase == 0) // its next frame sets its end
    return steady_clock::duration::zero();
  return std::clamp<steady_clock::duration>(m_deadline - steady_clock::now(),
                                            steady_clock::duration::zero(), longest);
}

// Frames drawn for the time given, whatever is computing: a pause a person makes (to see a save
// compile while the window draws on, or a picture before the figures arrive).
void ScriptPlayer::step_sleep(const ScriptStep& step) {
  using namespace std::chrono;
  if (m_phase == 0) {
    m_deadline = steady_clock::now() + duration_cast<steady_clock::duration>(
                                           duration<double>(parse_seconds(step.args[0], "")));
    m_phase = 1;
  }
  if (steady_clock::now() >= m_deadline)
    next_step();
}

// A person's edit of a file in their own editor: the first FIND replaced by REPLACE, the file
// written whole as an editor saves it (a new file renamed over it), so the GUI's watch sees a save.
namespace {

// The 1-based line of a byte offset in `text`.
std::size_t line_of_offset(const std::string& text, std::size_t offset) {
  return 1 + static_cast<std::size_t>(
                 std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n'));
}

} // namespace

void ScriptPlayer::step_edit(const ScriptStep& step) {
  const std::filesystem::path file = step.args[0];
  std::string text;
  try {
    text = read_text_file(file, "file to edit", "a text file", std::size_t{1} << 20);
  } catch (const UsageError& e) {
    return fail(step, 2, std::string("edit: ") + e.what());
  }
  if (text.find('\0') != std::string::npos)
    return fail(step, 2,
                "edit: " + clip(file.string(), 120) +
                    " is not text (it holds a NUL byte); a file to edit is a text file");
  const std::size_t at = text.find(step.args[1]);
  if (at == std::string::npos)
    return fail(step, 2,
                "edit: \"" + clip(step.args[1]) + "\" is not in " + clip(file.string(), 120) +
                    "; give text the file holds");
  // The text must say which place it means: a second one would be changed by chance.
  if (const std::size_t again = text.find(step.args[1], at + 1); again != std::string::npos)
    return fail(step, 2,
                "edit: \"" + clip(step.args[1]) + "\" is in " + clip(file.string(), 120) +
                    " more than once (lines " + std::to_string(line_of_offset(text, at)) + " and " +
                    std::to_string(line_of_offset(text, again)) +
                    "); give text that is there once, with more of its line");
  text.replace(at, step.args[1].size(), step.args[2]);
  const std::string problem = write_file_safely(
      file, text, {.replace_existing = true, .write_through_links = true, .keep_on_failure = true});
  if (!problem.empty())
    return fail(step, 2, "edit: " + problem);
  next_step();
}

// A panel that is closed is opened (as View > PANEL does) and one that is not in sight has its tab
// clicked first, as a person would; then the picture is drawn a few frames as it stands before it
// is saved.
void ScriptPlayer::step_screenshot(App& app, const ScriptStep& step) {
  const std::optional<Panel> panel =
      step.args.size() == 2 ? parse_panel(step.args[1]) : std::nullopt;
  if (m_phase < kShooting) {
    if (panel && !app.open(*panel)) { // closed: opened as View > PANEL opens it
      app.show_panel(*panel);
      m_drawn = 0;
      return;
    }
    if (panel && !app.frame.panel_rects[static_cast<int>(*panel)].visible) {
      if (++m_frames_to_show > kMostFramesToShow)
        return fail(step, 2,
                    std::string("screenshot: the panel ") + panel_title(*panel) +
                        " does not show after its tab was clicked");
      m_drawn = 0;
      const ScriptStep tab{step.line, "screenshot", {panel_title(*panel)}, ""};
      if (clicked(app, tab))
        m_phase = 0; // the tab is pressed; the panel shows from the next frame
      return;
    }
    if (!m_pointer_rests) // the pointer out of the picture: no tooltip over what is saved
      m_input.x = m_input.y = -1e6f; // (after a hover it stays, and so does its tooltip)
    if (++m_drawn < kFramesToSettle)
      return;
    app.messages.last_screenshot_path.clear();
    app.frame.screenshot = ScreenshotRequest{panel, step.args[0]};
    m_phase = kShooting;
    return;
  }
  if (app.frame.screenshot)
    return; // a panel's picture is still settling
  if (app.messages.last_screenshot_path
          .empty()) // a path that cannot be written: refused, as --headless does
    return fail(step, 2, clip(app.messages.status, 200));
  // A taken name is never overwritten; the script's reader learns where the picture went instead.
  std::error_code error;
  if (std::filesystem::is_directory(step.args[0], error))
    m_notes.push_back(m_script.file + ":" + std::to_string(step.line) + ": saved into " +
                      step.args[0] + " as " + app.messages.last_screenshot_path);
  else if (const std::string taken =
               taken_name_note(step.args[0], app.messages.last_screenshot_path);
           !taken.empty())
    m_notes.push_back(m_script.file + ":" + std::to_string(step.line) + ": " + taken + "; saved " +
                      app.messages.last_screenshot_path);
  else if (app.messages.last_screenshot_path == step.args[0] + ".png")
    m_notes.push_back(m_script.file + ":" + std::to_string(step.line) + ": saved as " +
                      app.messages.last_screenshot_path + " (a picture's name ends in .png)");
  else
    m_notes.push_back(m_script.file + ":" + std::to_string(step.line) + ": saved " +
                      app.messages.last_screenshot_path);
  next_step();
}

} // namespace wl::viz
