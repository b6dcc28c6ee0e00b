#pragma once
// Scripted sessions: a plain-text list of what a person does, one action per line, played into
// Dear ImGui as the mouse and keyboard events a person makes, frame by frame. A control is found
// by its visible label (controls.h), the pointer moved onto it, the button pressed and released
// over frames; nothing reaches into the App's state. Teachers make screenshot series with it;
// the GUI tests use it as a person's hands.
//
//   window 1280x720                 the window's size
//   scale 1.5                       the UI scale (fonts rebuilt at that size)
//   click "LABEL" [in "PANEL"]      a button, tab, tree node, checkbox, combo or its item, menu,
//                                   heatmap cell ("16x8"); a kernel id opens its family first
//   hover "LABEL" [in "PANEL"]      the pointer onto a control, left there: its tooltip shows (in
//                                   the next screenshot too)
//   set "LABEL" VALUE [in "PANEL"]  a field or slider: click, select all, type (a character a
//                                   frame, as a person types), Enter
//   key KEY                         F5, F12, 1-9, B, L, Escape, Enter, Tab, ctrl+= ...
//   wait [SECONDS]                  until nothing is computing and the panels show the launch on
//                                   screen (default 60 s; then the script stops, exit 1, naming
//                                   what it waited on)
//   sleep SECONDS                   frames drawn for that long, whatever is computing
//   edit FILE "FIND" "REPLACE"      the file's first FIND replaced and saved, as an editor saves
//   screenshot FILE [PANEL]         a PNG and its JSON sidecar, as F12 makes
//   # a comment
//
// A line the reader does not understand, or a label that is not on screen, stops the script with
// one line naming the file, the line number and what is wrong (exit 2).

#include "workflows/app.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

struct ImGuiIO;

namespace wl::viz {

struct ScriptStep {
  int line = 0;
  std::string verb;              // window, scale, click, set, key, wait, sleep, edit, screenshot
  std::vector<std::string> args; // the label and value, the key, the size...
  std::string panel;             // `in "PANEL"` (a title or a key), else ""
};

struct Script {
  std::string file; // for messages: "stories/switch.txt"
  std::vector<ScriptStep> steps;
};

// Throws UsageError "FILE:LINE: what is wrong; what is allowed".
Script parse_script(const std::string& text, const std::string& file);
Script load_script(const std::filesystem::path& file);

// How a script ended: exit code 0, 1 (a wait timed out) or 2 (a line that cannot be carried out,
// a screenshot that cannot be written), with the one-line message.
struct ScriptOutcome {
  int exit_code = 0;
  std::string message;
};

class ScriptPlayer {
public:
  explicit ScriptPlayer(Script script);

  // Before ImGui::NewFrame (after a backend's NewFrame, which it overrides): the pointer, buttons,
  // keys and characters of this frame.
  void feed_input(ImGuiIO& io);
  // After the frame was drawn: looks at what is on screen and moves on.
  void after_frame(App& app);

  bool finished() const { return m_outcome.has_value(); }
  // True while a `wait` or `sleep` line waits: the front-end may draw frames slowly meanwhile.
  bool waiting() const {
    return !m_outcome && m_index < m_script.steps.size() &&
           (m_script.steps[m_index].verb == "wait" || m_script.steps[m_index].verb == "sleep");
  }
  // How long the front-end may pause before its next frame while waiting: until a sleep's end,
  // and at most `longest`.
  std::chrono::steady_clock::duration pause(std::chrono::steady_clock::duration longest) const;
  const std::optional<ScriptOutcome>& outcome() const { return m_outcome; }
  // Lines for the script's reader on the way (a screenshot name that was taken), printed at the
  // end.
  const std::vector<std::string>& notes() const { return m_notes; }
  // A window size the script asked for, taken once by the front-end.
  std::optional<std::pair<int, int>> take_window_size();

private:
  struct Input {
    float x = -1, y = -1;
    bool left = false, ctrl = false;
    float wheel = 0;
    std::vector<int> keys_down, keys_up;
    std::string characters;
  };
  bool clicked(App& app, const ScriptStep& step);
  void step_click(App& app, const ScriptStep& step);
  void step_hover(App& app, const ScriptStep& step);
  void step_set(App& app, const ScriptStep& step);
  void step_key(App& app, const ScriptStep& step);
  bool saves_done(const App& app, const ScriptStep& step);
  void step_wait(App& app, const ScriptStep& step);
  void step_sleep(const ScriptStep& step);
  void step_edit(const ScriptStep& step);
  void step_screenshot(App& app, const ScriptStep& step);
  bool reach(App& app, const ScriptStep& step,
             const std::string& label); // pointer over it, or a way there
  bool control_responded(const ScriptStep& step) const;
  bool field_took(const ScriptStep& step);
  void next_step();
  void fail(const ScriptStep& step, int code, const std::string& message);

  Script m_script;
  std::size_t m_index = 0;
  int m_phase = 0;
  bool still_under_pointer(const ScriptStep& step, const std::string& label);
  int m_detours = 0, m_scrolls = 0, m_looks = 0,
      m_moves = 0; // on the way to the current step's control
  int m_drawn = 0; // frames the picture a screenshot step saves has been drawn as it will be
  int m_frames_to_show = 0;   // clicking a panel's tab for its picture: one that never shows fails
  std::size_t m_typed = 0;    // characters of a set step's value typed so far
  bool m_responded = false;   // the control took the press of the current click
  int m_retries = 0;          // clicks made again after the control did not respond
  std::string m_value_before; // a set step's field, as it showed before the click
  bool m_pointer_rests = false; // the last step was a hover: a screenshot keeps the pointer
  Input m_input;
  std::optional<std::pair<int, int>> m_window_size;
  std::optional<ScriptOutcome> m_outcome;
  std::vector<std::string> m_notes;
  std::string m_file_problem_said; // a kernel file's compile problem a `wait` last noted
  std::size_t m_saves_counted_from = SIZE_MAX; // the step whose saves are being counted
  int m_saves_before = 0;                      // Messages::saves when that step started
  std::chrono::steady_clock::time_point m_deadline;
  float m_target_x = 0, m_target_y = 0;
};

} // namespace wl::viz
