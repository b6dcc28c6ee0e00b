#include "viz_main.h"

#include "block_text.h"
#include "error.h"
#include "front_end.h"
#include "model_source.h"
#include "settings.h"

#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>
#include <GLFW/glfw3.h>

namespace wl::viz {

namespace {

App app_from(const GuiOptions &options) {
  App app = make_app(options.kernel_id, options.arch);
  if (!options.block.empty()) app.set_block(parse_block(options.block));
  return app;
}

bool has_display() {
  const char *x11 = std::getenv("DISPLAY");
  const char *wayland = std::getenv("WAYLAND_DISPLAY");
  return (x11 && *x11) || (wayland && *wayland);
}

// The fallback when there is no screen: the same view, saved where the user can find it.
int write_default_view(const GuiOptions &options, const std::string &why) {
  GuiOptions headless = options;
  headless.panel.clear();
  std::cout << "warplens: no window (" << why << "); writing the default view instead\n";
  return run_headless_screenshot(headless);
}

} // namespace

int run_headless_screenshot(const GuiOptions &options) {
  std::optional<Panel> panel;
  if (!options.panel.empty() && !(panel = parse_panel(options.panel)))
    throw UsageError("unknown panel '" + options.panel + "'; choose launch, occupancy, timings or counters");
  App app = app_from(options);
  if (const std::string problem = app.request_problem(); !problem.empty()) throw UsageError(problem);
  ModelSource source;
  app.source = &source;
  app.run();
  source.wait_idle();
  app.poll_source();
  if (!app.last_error.empty()) throw UsageError(app.last_error);
  HeadlessGui gui(app, options.width, options.height);
  gui.render(2); // windows and tables settle
  app.screenshot = ScreenshotRequest{panel, options.screenshot};
  gui.render(1);
  if (app.last_screenshot_path.empty()) throw UsageError(app.status);
  std::cout << app.last_screenshot_path << "\n";
  return 0;
}

void add_gui_options(CLI::App &app, GuiOptions &options) {
  app.add_flag("--headless", options.headless,
               "With no subcommand: render the GUI without a display and save a screenshot");
  app.add_option("--screenshot", options.screenshot, "The PNG --headless writes (a JSON sidecar goes beside it)");
  app.add_option("--kernel", options.kernel_id, "The kernel the GUI shows (default matmul/tiled)");
  app.add_option("--block", options.block, "Its block shape X, XxY or XxYxZ (default: the kernel's)");
  app.add_option("--panel", options.panel, "With --headless: only this panel (launch, occupancy, timings, counters)");
  app.add_option("--arch", options.arch, "The architecture the models use")->capture_default_str();
}

int run_gui_command(const GuiOptions &options) {
  return options.headless ? run_headless_screenshot(options) : run_gui(options);
}

int run_gui(const GuiOptions &options) {
  if (!has_display()) return write_default_view(options, "$DISPLAY and $WAYLAND_DISPLAY are not set");
  App app = app_from(options);
  const std::filesystem::path config_dir = options.config_dir.empty() ? default_config_dir() : options.config_dir;
  ModelSource source([] { glfwPostEmptyEvent(); });
  app.source = &source; // the window sends the first request once the saved settings are read
  std::string problem;
  if (!run_window(app, config_dir, problem)) return write_default_view(options, problem);
  return 0;
}

} // namespace wl::viz
