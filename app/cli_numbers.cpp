#include "cli_numbers.h"

#include "base/json_fields.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "model/block_text.h"
#include "model/run_options.h"

#include <charconv>
#include <cmath>
#include <string>
#include <type_traits>
#include <variant>

namespace wl {

namespace {

std::string shown_value(const std::string& text) {
  return text.empty() ? "an empty value" : "'" + clip(text, 40) + "'";
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

CLI::Validator written_option(const char* allowed) {
  return CLI::Validator(
      [allowed](std::string& text) -> std::string {
        return text.empty() ? std::string("an empty value; allowed ") + allowed : "";
      },
      "");
}

void add_engine_options(CLI::App& cmd, EngineOptions& engine, OptionUse command) {
  for (const EngineOption& option : kEngineOptions) {
    if (!(option.use & command) || !*option.flag)
      continue;
    std::visit(
        [&](auto member) {
          auto& value = member(engine);
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, bool>) {
            if (option.flag_sets_false)
              cmd.add_flag_callback(
                  option.flag, [&value] { value = false; }, option.help);
            else
              cmd.add_flag(option.flag, value, option.help);
          } else if constexpr (std::is_same_v<T, double>) {
            cmd.add_option(option.flag, value, option.help)
                ->check(seconds_option(option.longest, option.shortest))
                ->capture_default_str();
          } else if constexpr (std::is_same_v<T, std::string>) {
            cmd.add_option(option.flag, value, option.help)->check(written_option(option.allowed));
          } else {
            cmd.add_option(option.flag, value, option.help)
                ->check(whole_number_option(option.least, option.most))
                ->capture_default_str();
          }
        },
        option.field);
  }
}

} // namespace wl
