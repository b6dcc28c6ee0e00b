#pragma once
// The subcommands of `warplens`, each group in its own file; cli.cpp parses and reports errors.
// A subcommand's callback prints its result or throws UsageError.

#include "arch.h"

#include <string>

#include <CLI/CLI.hpp>

namespace wl {

// "h100", "sm_90", "device", "device:1" or a path to a .json preset.
Arch resolve_arch(const std::string& spec);

void add_arch_commands(CLI::App& app);   // arches, occupancy
void add_kernel_commands(CLI::App& app); // list, model, run

} // namespace wl
