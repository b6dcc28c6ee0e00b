#pragma once
// Checks for the numeric options of the command line. CLI11 reads an empty value as 0 and a
// number too large for the option's type as an error only sometimes; these validators refuse
// both with "--OPTION: 'TEXT' is not a whole number; allowed ..." before the value is converted,
// and leave the meaning of the value (registers over the arch's limit, ...) to the models' checks.

#include "model/run_options.h"

#include <cstdint>

#include <CLI/CLI.hpp>

namespace wl {

// A whole number from min to max, written in decimal.
CLI::Validator whole_number_option(std::int64_t min, std::int64_t max);

// A finite number of seconds above 0 and at most max.
CLI::Validator seconds_option(double max, double min = 0);

// Text that may not be empty: `--block ""` is refused naming what is allowed, never read as "not
// given" (the default).
CLI::Validator written_option(const char* allowed);

// Every engine option (run_options.h: kEngineOptions) that `command` (kRunCommand, ...) sets,
// filling `engine`: its flag, help and bounds from its row, its default shown as `engine` holds it
// now.
void add_engine_options(CLI::App& cmd, EngineOptions& engine, OptionUse command);

} // namespace wl
