#pragma once
// A block shape as the user writes it ("256", "32x8", "16x8x8").

#include <string>
#include <string_view>

namespace wl {

struct BlockShape {
  int x = 1, y = 1, z = 1;

  long long threads() const { return static_cast<long long>(x) * y * z; }
  int rank() const { return z > 1 ? 3 : (y > 1 ? 2 : 1); }
  bool operator==(const BlockShape&) const = default;
};

// Parses "X", "XxY" or "XxYxZ" with positive sides; throws UsageError naming the bad text.
BlockShape parse_block(std::string_view text);

// "256", "32x8" or "16x8x8": the shortest form that round-trips through parse_block.
std::string format_block(const BlockShape& block);

} // namespace wl
