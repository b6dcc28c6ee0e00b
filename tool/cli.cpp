#include "cli.h"

#include "cli_commands.h"
#include "error.h"

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
  try {
    app.parse(argc, argv);
    if (app.get_subcommands().empty()) {
      std::cerr << "warplens: choose a subcommand (arches, occupancy, list, model, run); --help lists them\n";
      return kExitBadInput;
    }
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
