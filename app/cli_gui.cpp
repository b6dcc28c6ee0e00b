#include "cli_commands.h"
#include "cli_numbers.h"
#include "front_end/viz_main.h"
#include "report/panel_table.h"

namespace wl {

namespace {

// The GUI's text options, one row each: every one refuses an empty value (`--block ""`), which
// would otherwise read as "not given" and quietly open the default.
struct TextOption {
  const char* name;
  std::string viz::GuiOptions::*field;
  std::string help;
  const char* allowed; // named when the value is empty
};

const TextOption kTextOptions[] = {
    {"--screenshot", &viz::GuiOptions::screenshot,
     "The PNG --headless writes (a JSON sidecar goes beside it)", "a path for the PNG"},
    {"--kernel", &viz::GuiOptions::kernel_id, "The kernel the GUI shows (default matmul/tiled)",
     "a kernel id (warplens list)"},
    {"--kernel-file", &viz::GuiOptions::kernel_file,
     "A kernel file of your own the GUI shows and recompiles on each save (FILE.cu or "
     "FILE.cu:KERNEL; also the first argument: warplens FILE.cu)",
     "a .cu file with a // @warplens description"},
    {"--block", &viz::GuiOptions::block, "Its block shape X, XxY or XxYxZ (default: the kernel's)",
     "X, XxY or XxYxZ"},
    {"--panel", &viz::GuiOptions::panel,
     "With --headless: only this panel (" + panel_keys_listed() + ")", "a panel name"},
    {"--sweep-json", &viz::GuiOptions::sweep_json,
     "Show this sweep (written by `warplens sweep ... --json`) in the Sweep panel",
     "a sweep's JSON file"},
    {"--sweep-x", &viz::GuiOptions::sweep_x,
     "A model sweep in the Sweep panel: block x sides, start:end:step or a list",
     "start:end:step or a list"},
    {"--sweep-y", &viz::GuiOptions::sweep_y, "and its block y sides (with --sweep-x)",
     "start:end:step or a list"},
    {"--baseline", &viz::GuiOptions::baseline,
     "With --headless: pin this kernel (at its defaults) as the baseline the panels compare with",
     "a kernel id (warplens list)"},
    {"--arch", &viz::GuiOptions::arch, "The architecture the models use (default h100)",
     "a preset id or alias (warplens arches), or a .json preset"},
    {"--worker", &viz::GuiOptions::worker,
     "The command that runs the worker, e.g. \"ssh gpuhost warplens worker\" (default: this "
     "warplens)",
     "a command that runs `warplens worker`"},
    {"--lesson", &viz::GuiOptions::lesson,
     "Open a lesson in the Lessons panel: a bundled one's name (warplens lesson list) or a "
     ".lesson file's path",
     "a lesson's name or path"},
    {"--recording", &viz::GuiOptions::recording,
     "A recording (`warplens record --out FILE` on a GPU) whose figures model mode shows for its "
     "preset, in place of the bundled one; its preset goes on screen unless --arch is given",
     "a recording's JSON file"},
    {"--script", &viz::GuiOptions::script,
     "Play a script of user actions (click, set, key, wait, screenshot; see docs/gui.md, Scripted "
     "sessions) in the window, or headless with --headless; exits when it ends",
     "a script file"},
};

} // namespace

void add_gui_options(CLI::App& app, viz::GuiOptions& options) {
  app.add_flag("--headless", options.headless,
               "With no subcommand: render the GUI without a display and save a screenshot");
  for (const TextOption& option : kTextOptions)
    app.add_option(option.name, options.*option.field, option.help)
        ->check(written_option(option.allowed));
  // `warplens mine.cu`: the GUI on a person's file (a subcommand's name is still the subcommand).
  app.add_option("file", options.kernel_file, "A kernel file of your own (as --kernel-file)")
      ->check(written_option("a .cu file"))
      ->excludes(app.get_option("--kernel-file"));
  add_engine_options(app, options.engine, kGuiCommand);
  app.add_option("--param", options.params, "A kernel parameter as name=value (repeat for several)")
      ->check(written_option("name=value"));
  CLI::Option* model = app.add_flag("--model", options.model_only,
                                    "No worker: the occupancy and access models alone");
  // A lesson's steps choose the launch.
  for (const char* launch :
       {"--kernel", "--kernel-file", "file", "--block", "--param", "--sweep-json", "--baseline"})
    app.get_option("--lesson")->excludes(app.get_option(launch));
  // --model starts no worker, so a worker command with it would be ignored without a word, and
  // nothing is launched to be limited.
  app.get_option("--worker")->excludes(model);
  for (const EngineOption& option : kEngineOptions)
    if (option.use & kGuiCommand)
      app.get_option(option.flag)->excludes(model);
#ifndef WARPLENS_LINKS_ENGINE
  options.no_local_worker = "no CUDA toolkit: this WarpLens was built without the CUDA toolkit, "
                            "so it measures only through a worker on a machine with CUDA "
                            "(--worker \"ssh HOST warplens worker\"); warplens doctor says what "
                            "this machine has";
#endif
}

} // namespace wl
