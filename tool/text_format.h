#pragma once
// printf-style formatting into a std::string, and CSV quoting, for the text reports.

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace wl {

template <typename... Values> std::string format(const char* pattern, Values... values) {
  const int size = std::snprintf(nullptr, 0, pattern, values...);
  std::string text(static_cast<std::size_t>(size > 0 ? size : 0), '\0');
  std::snprintf(text.data(), text.size() + 1, pattern, values...);
  return text;
}

// A CSV field that may hold commas or quotes: quoted, its quotes doubled (RFC 4180).
inline std::string csv_quoted(const std::string& text) {
  std::string quoted = "\"";
  for (char c : text)
    quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// "4, 8, 16" (separator ", ") or "4,8,16" (","): whole numbers as a list reads them.
inline std::string joined(const std::vector<std::int64_t>& values, const char* separator) {
  std::string text;
  for (std::int64_t value : values)
    text += (text.empty() ? "" : separator) + std::to_string(value);
  return text;
}

// "1234567" -> "1,234,567" (a sign kept in front). Built forwards, character by character:
// inserting into the string trips GCC 12's -Wrestrict.
inline std::string group_digits(const std::string& digits) {
  const std::size_t sign = !digits.empty() && digits[0] == '-' ? 1 : 0;
  std::string grouped = digits.substr(0, sign);
  for (std::size_t i = sign; i < digits.size(); ++i) {
    if (i > sign && (digits.size() - i) % 3 == 0)
      grouped.push_back(',');
    grouped.push_back(digits[i]);
  }
  return grouped;
}

// "1234567.4" -> "1,234,567": a count as the reports write it.
inline std::string whole_number(double value) { return group_digits(format("%.0f", value)); }

// The text in lower case (ASCII): names compared regardless of how they were typed.
inline std::string lowercase(std::string text) {
  for (char& c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// "1 point", "3 points": a count and its noun, made plural by an s where it is not one.
inline std::string counted(std::size_t count, const std::string& noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

} // namespace wl
