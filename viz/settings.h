#pragma once
// What the GUI remembers between sessions, in $XDG_CONFIG_HOME/warplens (or ~/.config/warplens):
// layout.ini (Dear ImGui's window positions and sizes) and settings.json (theme, kernel, block,
// arch, live, open panels). A file that cannot be read is reported in the status line and
// ignored: the defaults are used and the next save replaces it.

#include "app.h"

#include <filesystem>
#include <string>

namespace wl::viz {

// $XDG_CONFIG_HOME/warplens, else $HOME/.config/warplens; empty when neither is set.
std::filesystem::path default_config_dir();

// Reads settings.json into `app`; returns "" or the one-line problem (the app keeps its defaults).
std::string load_settings(App &app, const std::filesystem::path &dir);
// Returns "" or the one-line problem.
std::string save_settings(const App &app, const std::filesystem::path &dir);

// The text of layout.ini if it looks like one ImGui wrote ("[Window][Name]" sections of
// key=value lines); else empty, with the problem in `problem`.
std::string read_layout(const std::filesystem::path &dir, std::string &problem);
std::string write_layout(const std::filesystem::path &dir, const std::string &ini_text);

} // namespace wl::viz
