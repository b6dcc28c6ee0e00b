#pragma once
// A text's fingerprint, the same on every machine and run: a kernel file's (its compile cache, a
// tune's cache), a bundled kernel's source, a cubin's kept SASS listing. FNV-1a: a change is
// seen, not hidden.

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace wl {

// "fnv1a64:0123456789abcdef"
inline std::string text_hash(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (const unsigned char c : text)
    hash = (hash ^ c) * 0x100000001b3ull;
  char digits[17];
  std::snprintf(digits, sizeof digits, "%016llx", static_cast<unsigned long long>(hash));
  return std::string("fnv1a64:") + digits;
}

// 32 hex digits: two FNV-1a digests of different starts, 128 bits, so two different texts
// (compiles, cubins) never share a cache entry named by it.
inline std::string text_digest(std::string_view text) {
  std::string hex;
  for (const std::uint64_t start : {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull}) {
    std::uint64_t hash = start;
    for (const unsigned char c : text)
      hash = (hash ^ c) * 0x100000001b3ull;
    char digits[17];
    std::snprintf(digits, sizeof digits, "%016llx", static_cast<unsigned long long>(hash));
    hex += digits;
  }
  return hex;
}

} // namespace wl
