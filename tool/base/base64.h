#pragma once
// Bytes as base64 text (RFC 4648, with padding) and back: a compiled kernel's cubin inside a JSON
// line between processes.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wl {

inline std::string base64_encoded(const std::vector<char>& bytes) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string text;
  text.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const auto byte = [&](std::size_t k) {
      return k < bytes.size() ? static_cast<unsigned>(static_cast<unsigned char>(bytes[k])) : 0u;
    };
    const unsigned group = byte(i) << 16 | byte(i + 1) << 8 | byte(i + 2);
    text += kDigits[group >> 18 & 63];
    text += kDigits[group >> 12 & 63];
    text += i + 1 < bytes.size() ? kDigits[group >> 6 & 63] : '=';
    text += i + 2 < bytes.size() ? kDigits[group & 63] : '=';
  }
  return text;
}

// nullopt for text that is not base64 (a length that is no multiple of 4, a character outside
// the alphabet, padding anywhere but at the end).
inline std::optional<std::vector<char>> base64_decoded(std::string_view text) {
  const auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z')
      return c - 'A';
    if (c >= 'a' && c <= 'z')
      return c - 'a' + 26;
    if (c >= '0' && c <= '9')
      return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
  };
  if (text.size() % 4 != 0)
    return std::nullopt;
  std::vector<char> bytes;
  bytes.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const int pad = last ? (text[i + 3] == '=') + (text[i + 2] == '=' && text[i + 3] == '=') : 0;
    unsigned group = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const int v = k >= 4 - static_cast<std::size_t>(pad) ? 0 : value(text[i + k]);
      if (v < 0)
        return std::nullopt;
      group = group << 6 | static_cast<unsigned>(v);
    }
    bytes.push_back(static_cast<char>(group >> 16 & 255));
    if (pad < 2)
      bytes.push_back(static_cast<char>(group >> 8 & 255));
    if (pad < 1)
      bytes.push_back(static_cast<char>(group & 255));
  }
  return bytes;
}

} // namespace wl
