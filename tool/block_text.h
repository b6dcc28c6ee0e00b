#pragma once
// Block shapes as the user writes them ("256", "32x8", "16x8x8").

#include "shape.h"

#include <string>
#include <string_view>

namespace wl {

// Parses "X", "XxY" or "XxYxZ" with positive sides; throws UsageError naming the bad text.
BlockShape parse_block(std::string_view text);

// "256", "32x8" or "16x8x8": the shortest form that round-trips through parse_block.
std::string format_block(const BlockShape& block);

} // namespace wl
