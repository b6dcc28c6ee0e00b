#include "cli.h"

#include "cli_commands.h"
#include "error.h"
#include "viz_main.h"

#include <iostream>

namespace wl {

namespace {

constexpr int kExitBadInput = 2;

} // namespace

int run_cli(int argc, char** argv) {
  CLI::App app{"WarpLens: see what a GPU does with a kernel launch"};
  app.require_subcommand(0, 1);
  add_arch_commands(app);
  add_kernel_commands(app);
  add_worker_command(app);
  viz::GuiOptions gui;
  viz::add_gui_options(app, gui);
  try {
    app.parse(argc, argv);
    if (app.get_subcommands().empty()) return viz::run_gui_command(gui); // the GUI, or its screenshot
    return 0;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "warplens: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const UsageError& e) {
    std::cerr << "warplens: " << e.what() << "\n";
    return kExitBadInput;
  }
}

} // namespace wl
