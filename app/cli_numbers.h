#pragma once
// Checks for the numeric options of the command line. CLI11 reads an empty value as 0 and a
// number too large for the option's type as an error only sometimes; these validators refuse
// both with "--OPTION: 'TEXT' is not a whole number; allowed ..." before the value is converted,
// and leave the meaning of the value (registers over the arch's limit, ...) to the models' checks.

#include <cstdint>

#include <CLI/CLI.hpp>

namespace wl {

// A whole number from min to max, written in decimal.
CLI::Validator whole_number_option(std::int64_t min, std::int64_t max);

// A seed: any whole number from 0 to 2^64 - 1.
CLI::Validator seed_option();

// A finite number of seconds above 0 and at most max.
CLI::Validator seconds_option(double max, double min = 0);

// `--kernel-time-limit S` (0.1 to 3600 seconds, its default shown); `past_it` says what happens
// when a launch runs longer, for the command's help.
CLI::Option* add_kernel_time_limit_option(CLI::App& cmd, double& limit, const std::string& past_it);

// Text that may not be empty: `--block ""` is refused naming what is allowed, never read as "not
// given" (the default).
CLI::Validator written_option(const char* allowed);

} // namespace wl
