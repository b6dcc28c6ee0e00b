#include "cli.h"

#include "cli_commands.h"
#include "error.h"
#include "json_input.h"
#include "viz_main.h"

#include <iostream>

namespace wl {

namespace {

constexpr int kExitBadInput = 2;
constexpr int kExitWrongOutput = 1;

// One line on stderr whatever the message holds: control characters replaced, length capped.
int report(const char* what, int code) {
  std::cerr << "warplens: " << clip(what, 1000) << "\n";
  return code;
}

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
    if (app.get_subcommands().empty())
      return viz::run_gui_command(gui); // the GUI, or its screenshot
    return 0;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return report(e.what(), kExitBadInput);
  } catch (const VerificationFailure& e) {
    return report(e.what(), kExitWrongOutput);
  } catch (const UsageError& e) {
    return report(e.what(), kExitBadInput);
  } catch (const std::bad_alloc&) {
    return report("out of memory; the input asks for more than this machine has", kExitBadInput);
  } catch (const std::exception& e) { // a last resort: every expected failure is a UsageError
    return report(("unexpected failure: " + clip(e.what(), 200)).c_str(), kExitBadInput);
  } catch (...) {
    return report("unexpected failure of an unknown kind", kExitBadInput);
  }
}

} // namespace wl
