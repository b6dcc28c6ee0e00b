#include "base/error.h"
#include "model/block_text.h"

#include <gtest/gtest.h>

namespace wl {
namespace {

TEST(BlockShape, ParsesOneTwoAndThreeSides) {
  EXPECT_EQ(parse_block("256"), (BlockShape{256, 1, 1}));
  EXPECT_EQ(parse_block("32x8"), (BlockShape{32, 8, 1}));
  EXPECT_EQ(parse_block("16x8x8"), (BlockShape{16, 8, 8}));
  EXPECT_EQ(parse_block("16x8x8").threads(), 1024);
  EXPECT_EQ(parse_block("16x8x8").rank(), 3);
}

TEST(BlockShape, FormatRoundTrips) {
  for (const char* text : {"256", "32x8", "16x8x8", "1x1x4", "1x2"})
    EXPECT_EQ(format_block(parse_block(text)), text);
}

TEST(BlockShape, RejectsMalformedTextNamingIt) {
  for (const char* text :
       {"", "0", "-1", "32x", "x8", "1x2x3x4", "abc", "32X8", "8x0x2", "3.5", "99999999999"}) {
    try {
      parse_block(text);
      ADD_FAILURE() << "accepted '" << text << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + text + "'"), std::string::npos)
          << e.what();
    }
  }
}

} // namespace
} // namespace wl
