#include "model/block_text.h"

#include "base/error.h"
#include "base/json_input.h"

#include <charconv>
#include <vector>

namespace wl {

namespace {

UsageError bad_block(std::string_view text, const std::string& why) {
  return UsageError("block '" + clip(text, 40) + "': " + why +
                    "; write X, XxY or XxYxZ with sides of at least 1 (e.g. 256 or 32x8)");
}

} // namespace

WholeNumber read_whole_number(std::string_view text) {
  WholeNumber number;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number.value);
  if (text.empty())
    number.problem = "is empty";
  else if (ec == std::errc::result_out_of_range && end == text.data() + text.size())
    number.problem = text.front() == '-' ? "is too small" : "is too large";
  else if (ec != std::errc() || end != text.data() + text.size())
    number.problem = "is not a whole number";
  return number;
}

BlockShape parse_block(std::string_view text) {
  std::vector<int> sides;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find('x', start);
    const std::string_view part =
        text.substr(start, end == std::string_view::npos ? end : end - start);
    const auto [value, problem] = read_whole_number(part);
    if (part.empty())
      throw bad_block(text, "a side is missing");
    if (!problem.empty())
      throw bad_block(text, "'" + clip(part, 20) + "' " + problem);
    if (value < 1)
      throw bad_block(text, "side " + std::to_string(value) + " is not positive");
    if (value > (1LL << 31) - 1)
      throw bad_block(text, "side " + std::to_string(value) + " is too large");
    sides.push_back(static_cast<int>(value));
    if (end == std::string_view::npos)
      break;
    start = end + 1;
  }
  if (sides.size() > 3)
    throw bad_block(text, "more than three sides");
  sides.resize(3, 1);
  return BlockShape{sides[0], sides[1], sides[2]};
}

std::string format_block(const BlockShape& block) {
  std::string text = std::to_string(block.x);
  if (block.y > 1 || block.z > 1)
    text.append("x").append(std::to_string(block.y));
  if (block.z > 1)
    text.append("x").append(std::to_string(block.z));
  return text;
}

std::string format_sides(const BlockShape& block) {
  return std::to_string(block.x) + "x" + std::to_string(block.y) + "x" + std::to_string(block.z);
}

} // namespace wl
