#pragma once
// A text's fingerprint, the same on every machine and run: a kernel file's (its compile cache, a
// tune's cache) and a bundled kernel's source. FNV-1a, 64 bits: a change is seen, not hidden.

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

} // namespace wl
