#pragma once
// Numbers as a person types them: whole numbers ("4096") and block shapes ("256", "32x8",
// "16x8x8").

#include "shape.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace wl {

// The whole of `text` as one 64-bit whole number. `problem` is "" when it is one, else what is
// wrong, worded for "'TEXT' <problem>": "is empty", "is not a whole number", or "is too large"
// ("is too small") for a whole number beyond 64 bits, so that no field calls a long number not a
// number. Callers add the range they allow.
struct WholeNumber {
  std::int64_t value = 0;
  std::string problem;
};
WholeNumber read_whole_number(std::string_view text);

// Parses "X", "XxY" or "XxYxZ" with positive sides; throws UsageError naming the bad text.
BlockShape parse_block(std::string_view text);

// "256", "32x8" or "16x8x8": the shortest form that round-trips through parse_block.
std::string format_block(const BlockShape& block);
// "256x1x1": every side, where two shapes are set side by side ("block 1024x1x1 where 64x1x1 was
// asked") and a short form would hide which side differs.
std::string format_sides(const BlockShape& block);

} // namespace wl
