#pragma once
// The subcommands of `warplens`, each group in its own file; cli.cpp parses and reports errors.
// A subcommand's callback prints its result or throws UsageError.

#include "engine/device.h"
#include "viz_main.h"

#include <string>

#include <CLI/CLI.hpp>

namespace wl {

void add_arch_commands(CLI::App& app);   // arches, occupancy
void add_kernel_commands(CLI::App& app); // list, model, run, sweep
void add_worker_command(CLI::App& app);  // worker: the engine behind the GUI, in JSON lines
// The top-level options of `warplens` that apply when no subcommand is given: the GUI's.
void add_gui_options(CLI::App& app, viz::GuiOptions& options);

} // namespace wl
