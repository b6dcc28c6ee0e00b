#pragma once
// printf-style formatting into a std::string, for the text reports.

#include <cstdio>
#include <string>

namespace wl {

template <typename... Values> std::string format(const char* pattern, Values... values) {
  const int size = std::snprintf(nullptr, 0, pattern, values...);
  std::string text(static_cast<std::size_t>(size > 0 ? size : 0), '\0');
  std::snprintf(text.data(), text.size() + 1, pattern, values...);
  return text;
}

} // namespace wl
