#include "cli_commands.h"
#include "cli_numbers.h"
#include "viz_main.h"

namespace wl {

// Each text option refuses an empty value (`--block ""`), which would otherwise read as "not
// given" and quietly open the default.
void add_gui_options(CLI::App& app, viz::GuiOptions& options) {
  app.add_flag("--headless", options.headless,
               "With no subcommand: render the GUI without a display and save a screenshot");
  app.add_option("--screenshot", options.screenshot,
                 "The PNG --headless writes (a JSON sidecar goes beside it)")
      ->check(written_option("a path for the PNG"));
  app.add_option("--kernel", options.kernel_id, "The kernel the GUI shows (default matmul/tiled)")
      ->check(written_option("a kernel id (warplens list)"));
  app.add_option("--block", options.block,
                 "Its block shape X, XxY or XxYxZ (default: the kernel's)")
      ->check(written_option("X, XxY or XxYxZ"));
  app.add_option("--panel", options.panel,
                 "With --headless: only this panel (launch, occupancy, timings, counters, global, "
                 "shared, divergence, sweep)")
      ->check(written_option("a panel name"));
  app.add_option("--param", options.params, "A kernel parameter as name=value (repeat for several)")
      ->check(written_option("name=value"));
  app.add_option("--sweep-json", options.sweep_json,
                 "Show this sweep (written by `warplens sweep ... --json`) in the Sweep panel")
      ->check(written_option("a sweep's JSON file"));
  app.add_option("--sweep-x", options.sweep_x,
                 "A model sweep in the Sweep panel: block x sides, start:end:step or a list")
      ->check(written_option("start:end:step or a list"));
  app.add_option("--sweep-y", options.sweep_y, "and its block y sides")
      ->check(written_option("start:end:step or a list"));
  app.add_option("--baseline", options.baseline,
                 "With --headless: pin this kernel (at its defaults) as the baseline the panels "
                 "compare with")
      ->check(written_option("a kernel id (warplens list)"));
  app.add_option("--arch", options.arch, "The architecture the models use")
      ->capture_default_str()
      ->check(written_option("a preset id or alias (warplens arches), or a .json preset"));
  app.add_option("--worker", options.worker,
                 "The command that runs the worker, e.g. \"ssh gpuhost warplens worker\" (default: "
                 "this warplens)")
      ->check(written_option("a command that runs `warplens worker`"));
  app.add_flag("--model", options.model_only, "No worker: the occupancy and access models alone");
  app.add_option(
         "--script", options.script,
         "Play a script of user actions (click, set, key, wait, screenshot; see the README) "
         "in the window, or headless with --headless; exits when it ends")
      ->check(written_option("a script file"));
}

} // namespace wl
