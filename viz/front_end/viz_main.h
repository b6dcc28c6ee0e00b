#pragma once
// The GUI's entry points for the command line: `warplens` with no subcommand, and
// `warplens --headless --screenshot out.png`. The window measures through a worker process (GPU
// mode, model mode when the worker's machine has no GPU) unless --model asks for the model
// alone, headless or not. Bad input throws UsageError (one line), as the other subcommands do.

#include "base/system_check.h"
#include "model/run_options.h"

#include <filesystem>
#include <string>
#include <vector>

namespace wl::viz {

struct GuiOptions {
  std::string kernel_id;           // empty: the last session's, else matmul/tiled
  std::string kernel_file;         // a person's kernel file ("mine.cu", "mine.cu:kernel") instead
  std::string block;               // "X", "XxY", "XxYxZ"; empty: the kernel's default
  std::vector<std::string> params; // "name=value": the kernel's parameters; the rest take defaults
  std::string baseline;            // headless: a kernel id pinned first as the baseline
  std::string sweep_json;       // a sweep measured by `warplens sweep --json`, for the Sweep panel
  std::string sweep_x, sweep_y; // side lists for a model sweep in the Sweep panel
  std::string arch;       // preset id, alias or .json path; empty: the last session's, else h100
  std::string panel;      // headless: one panel's name; empty: the whole window
  std::string screenshot; // headless: the PNG's path; empty: a timestamped name here
  int width = 1440, height = 900;   // headless image size
  std::filesystem::path config_dir; // window: where layout and settings live; empty: the default
  std::string worker;    // the command that runs `warplens worker`; empty: this executable's
  std::string script;    // a script of user actions to play (script.h)
  std::string lesson;    // a lesson to open: a bundled one's name or a .lesson file's path
  std::string recording; // a recording model mode shows in place of its preset's bundled one
  // Where an exercise's copies go; empty: WARPLENS_EXERCISES, else the home folder's (a script's:
  // a scratch folder). Slides set their own, so a learner's copies never reach them.
  std::filesystem::path exercises_dir;
  EngineOptions engine;    // what the command line set of every request (kGuiCommand's options)
  bool model_only = false; // --model: no worker, the models alone
  // Why this executable cannot be its own worker (a build without the CUDA toolkit); "" where
  // it can. Without --worker such a GUI runs the models alone and shows this reason.
  std::string no_local_worker;
  bool headless = false;
};

// With no subcommand: the headless screenshot with --headless, else the window.
int run_gui_command(const GuiOptions& options);

// Opens the window; with no display (or no window possible) writes the default view headless
// and says where. Returns the exit code.
int run_gui(const GuiOptions& options);

// Renders the view (or one panel), writes PNG + JSON sidecar, prints the PNG's path; or plays
// the script. Returns the exit code.
int run_headless_screenshot(const GuiOptions& options);

// For `warplens doctor`: the display, EGL's headless rendering and the settings file.
std::vector<PendingCheck> gui_checks();

} // namespace wl::viz
