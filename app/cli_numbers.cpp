#include "cli_numbers.h"

#include "base/json_fields.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "model/block_text.h"
#include "model/run_options.h"
#include "protocol/protocol.h"

#include <charconv>
#include <cmath>
#include <string>

namespace wl {

namespace {

std::string shown_value(const std::string& text) {
  return text.empty() ? "an empty value" : "'" + clip(text, 40) + "'";
}

// The whole text as one number of type T, or nothing.
template <class T> bool parse_whole(const std::string& text, T& value) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

} // namespace

CLI::Validator whole_number_option(std::int64_t min, std::int64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        const std::string allowed = "; " + integer_range(min, max);
        const auto [value, problem] = read_whole_number(text);
        if (!problem.empty())
          return shown_value(text) + " " + (text.empty() ? "is not a whole number" : problem) +
                 allowed;
        if (value < min || value > max)
          return shown_value(text) + " is out of range" + allowed;
        return "";
      },
      "");
}

CLI::Validator seed_option() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::uint64_t value = 0;
        if (!parse_whole(text, value))
          return shown_value(text) +
                 " is not a seed; allowed a whole number from 0 to 18446744073709551615";
        return "";
      },
      "");
}

CLI::Validator seconds_option(double max, double min) {
  return CLI::Validator(
      [max, min](std::string& text) -> std::string {
        double value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        const bool number = !text.empty() && ec == std::errc() && end == text.data() + text.size();
        const std::string allowed = min > 0 ? format("; allowed seconds from %g to %g", min, max)
                                            : format("; allowed seconds above 0, at most %g", max);
        if (!number || !std::isfinite(value))
          return shown_value(text) + " is not a time" + allowed;
        if (value <= 0 || value < min || value > max)
          return shown_value(text) + " is out of range" + allowed;
        return "";
      },
      "");
}

CLI::Option* add_kernel_time_limit_option(CLI::App& cmd, double& limit,
                                          const std::string& past_it) {
  return cmd
      .add_option("--kernel-time-limit", limit,
                  "Seconds one launch of a kernel file may run (0.1 to 3600); past it " + past_it +
                      " (a running kernel cannot be interrupted)")
      ->check(seconds_option(kMaxRequestSeconds, kShortestKernelTimeLimit))
      ->capture_default_str();
}

CLI::Validator written_option(const char* allowed) {
  return CLI::Validator(
      [allowed](std::string& text) -> std::string {
        return text.empty() ? std::string("an empty value; allowed ") + allowed : "";
      },
      "");
}

} // namespace wl
