#pragma once
// What the GUI remembers between sessions, in $XDG_CONFIG_HOME/warplens (or ~/.config/warplens):
// settings.json holds the theme, UI scale, kernel, parameters, block, arch, live, open panels,
// the layout, and the folder screenshots go to. A file that is not JSON, or holds a value
// WarpLens cannot use, is moved aside (settings.json.bad-STAMP) before anything is written, and
// the status line says where; one the system does not let us read (no permission) is left as it
// is, nothing is saved over it, and the status line gives the system's reason. Keys WarpLens does
// not know, at the top or inside an object it reads (panels, layout), are kept and named; a
// settings.json that is a link is written where it points; a missing HOME is never made (nothing
// is saved, and the status line says why).

#include "base/system_check.h"
#include "workflows/app.h"

#include <filesystem>
#include <map>
#include <string>

namespace wl::viz {

// $XDG_CONFIG_HOME/warplens, else $HOME/.config/warplens; empty when neither is set.
std::filesystem::path default_config_dir();

// Reads settings.json into `app`; returns "" or the one-line problem (the app keeps its defaults,
// the damaged file is kept beside under another name; unknown keys are named and kept in
// `app.choices.unknown_settings`; a folder that cannot be made is said now).
std::string load_settings(App& app, const std::filesystem::path& dir);
// For `warplens doctor`: settings.json in `dir` read as the GUI reads it (from a copy, so a file
// it cannot use is not moved aside); what it would say about it is the fix.
SystemCheck check_settings(const std::filesystem::path& dir);
// Returns "" or the one-line problem.
std::string save_settings(const App& app, const std::filesystem::path& dir);
// The lessons' progress that settings.json in `dir` holds, by lesson id (none where there is no
// file); throws UsageError naming the file where it cannot be read or its lessons cannot be used.
std::map<std::string, LessonProgress> read_lesson_progress(const std::filesystem::path& dir);
// A step judged outside the GUI: met or not, and on whose figures.
struct JudgedTry {
  bool right = false;
  std::string measured_on; // the GPU that ran it; "" for the models
};
// Adds `tries` (by step) to lesson `id`'s progress in settings.json in `dir` (LessonProgress::
// tried), the rest of the file as it was (one that is not the GUI's is refused and left alone,
// as read_lesson_progress refuses it). Returns "" or the one-line problem. For `warplens lesson
// try`, whose judged exercises count as the GUI's checks do.
std::string record_lesson_progress(const std::filesystem::path& dir, const std::string& id,
                                   const std::map<int, JudgedTry>& tries);
// Takes into `app` what another process (`warplens lesson try`) added to the progress in
// settings.json in `dir` since the GUI read it: steps met there that the GUI has not, their first
// tries, how they were met and the misses; the longer time. The GUI calls it before each save, so
// its save never drops them. A file it cannot read adds nothing.
void merge_saved_progress(App& app, const std::filesystem::path& dir);
// The settings as save_settings writes them.
std::string settings_text(const App& app);

} // namespace wl::viz
