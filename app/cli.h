#pragma once
// The `warplens` command line: subcommands, their options, and the one-line errors with exit
// code 2 for bad input.

namespace wl {

int run_cli(int argc, char** argv);

} // namespace wl
