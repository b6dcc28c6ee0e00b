#pragma once
// The one home of every text format: printf-style formatting into a std::string, numbers with
// their digits grouped, bytes, counts and CSV quoting, for the CLI's reports, the panels, the
// sidecars and the messages alike.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
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
  for (std::int64_t value : values) // appended: "," + std::to_string trips GCC 12's -Wrestrict
    text.append(text.empty() ? "" : separator).append(std::to_string(value));
  return text;
}

// "a, b, c": words as a list reads them.
inline std::string joined(const std::vector<std::string>& words, const char* separator) {
  std::string text;
  for (const std::string& word : words)
    text.append(text.empty() ? "" : separator).append(word);
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

// 1234567.8 -> "1,234,567.80": `decimals` after the point, the whole part grouped.
inline std::string format_number(double value, int decimals = 2) {
  const std::string text = format("%.*f", decimals, value);
  const std::size_t dot = text.find('.');
  return group_digits(text.substr(0, dot)) + (dot == std::string::npos ? "" : text.substr(dot));
}

// 75.04 -> "75.0 %": a percentage (0 to 100) with `decimals` after the point.
inline std::string format_percent(double percent, int decimals = 1) {
  return format_number(percent, decimals) + " %";
}

// 1234567 -> "1,234,567".
inline std::string format_count(std::int64_t value) { return group_digits(std::to_string(value)); }

// "512 B", "48 KiB", "1.5 MiB", "1.1 GiB": binary units, one decimal where the value is not whole
// in its unit.
inline std::string format_bytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while ((bytes >= 1024 || bytes <= -1024) && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  std::string number = format(unit == 0 ? "%.0f" : "%.1f", bytes);
  if (number.size() > 2 && number.compare(number.size() - 2, 2, ".0") == 0)
    number.resize(number.size() - 2);
  return number + " " + kUnits[unit];
}

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

// The candidate closest to `word` by edit distance (letter case ignored; two neighbouring letters
// swapped count as one edit, the commonest typo) when it is near enough to be a typo of it (at
// most 3 edits, and at most half its letters); "" when none is.
inline std::string closest_word(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string typed = lowercase(std::string(word));
  const std::size_t most = std::min<std::size_t>(3, std::max<std::size_t>(1, typed.size() / 2));
  std::string best;
  std::size_t best_distance = most + 1;
  for (const std::string& candidate : candidates) {
    const std::string known = lowercase(candidate);
    // Rows i-2, i-1 and i of the distances between typed's first i letters and known's first j.
    std::vector<std::size_t> before(known.size() + 1), above(known.size() + 1),
        row(known.size() + 1);
    for (std::size_t j = 0; j <= known.size(); ++j)
      row[j] = j;
    for (std::size_t i = 1; i <= typed.size(); ++i) {
      before.swap(above);
      above.swap(row);
      row[0] = i;
      for (std::size_t j = 1; j <= known.size(); ++j) {
        row[j] = std::min(
            {above[j] + 1, row[j - 1] + 1, above[j - 1] + (typed[i - 1] == known[j - 1] ? 0 : 1)});
        if (i > 1 && j > 1 && typed[i - 1] == known[j - 2] && typed[i - 2] == known[j - 1])
          row[j] = std::min(row[j], before[j - 2] + 1);
      }
    }
    if (row[known.size()] < best_distance)
      best_distance = row[known.size()], best = candidate;
  }
  return best;
}

// "; did you mean 'panel'?" for a near miss, else "".
inline std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string near = closest_word(word, candidates);
  return near.empty() ? "" : "; did you mean '" + near + "'?";
}

// Text from outside (a worker's message, a file's field, a path) as a screen may draw it: at most
// `most` bytes, cut at a character's start with the number of bytes left out, and control
// characters other than line breaks shown as '?' (escape codes would otherwise reach a terminal
// or draw as nothing). Dear ImGui draws one text as one mesh of 16-bit indices, four vertices a
// character, so an unbounded text (a 20,000-character error) aborts the process.
inline constexpr std::size_t kMostScreenTextBytes = 4000;
inline std::string screen_text(std::string_view text, std::size_t most = kMostScreenTextBytes) {
  std::size_t kept = text.size();
  if (kept > most) {
    kept = most;
    while (kept > 0 && (static_cast<unsigned char>(text[kept]) & 0xC0) == 0x80)
      --kept; // not inside a UTF-8 sequence
  }
  std::string shown(text.substr(0, kept));
  for (char& c : shown)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f)
      c = '?';
  if (kept < text.size())
    shown += "... (" + std::to_string(text.size() - kept) + " more bytes)";
  return shown;
}

} // namespace wl
