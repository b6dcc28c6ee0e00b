// A cubin's SASS listing made at run time is kept in the user's cache folder: the next process
// reads it instead of running nvdisasm again (a family's listing takes it a second or more), and
// a kept listing cut short is made again. An nvdisasm of our own (a script in $CUDA_HOME/bin,
// where the toolkit's is looked for first) prints a listing and counts its runs.

#include "hostile_support.h"
#include "model/sass_text.h"

#include <fstream>

#include <gtest/gtest.h>

namespace wl {
namespace {

class KeptListing : public ::testing::Test {
protected:
  void SetUp() override {
    folder = test::scratch() / "kept-listing";
    std::filesystem::remove_all(folder);
    std::filesystem::create_directories(folder / "toolkit" / "bin");
    const std::filesystem::path script = folder / "toolkit" / "bin" / "nvdisasm";
    std::ofstream(script)
        << "#!/bin/sh\n"
           "echo run >> '"
        << (folder / "runs").string()
        << "'\n"
           "echo '.text._Z4kernPf:'\n"
           "echo '        /*0000*/                   LDG.E R2, desc[UR4][R2.64] ;'\n"
           "echo '        /*0010*/                   EXIT ;'\n";
    std::filesystem::permissions(script, std::filesystem::perms::owner_all);
    ::setenv("CUDA_HOME", (folder / "toolkit").c_str(), 1);
    ::setenv("XDG_CACHE_HOME", (folder / "cache").c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("CUDA_HOME");
    ::unsetenv("XDG_CACHE_HOME");
  }

  int runs() const {
    std::ifstream in(folder / "runs");
    int count = 0;
    for (std::string line; std::getline(in, line);)
      ++count;
    return count;
  }
  std::filesystem::path kept_file() const {
    for (const auto& entry :
         std::filesystem::directory_iterator(folder / "cache" / "warplens" / "listings"))
      return entry.path();
    return {};
  }

  std::filesystem::path folder;
  const unsigned char cubin[8] = {0x7f, 'E', 'L', 'F', 1, 2, 3, 4};
};

TEST_F(KeptListing, TheSecondListingOfACubinIsReadNotMadeAgain) {
  const SassListing made = disassemble_cubin(cubin, sizeof cubin, "test");
  ASSERT_EQ(made.functions.size(), 1u) << made.reason;
  EXPECT_TRUE(made.origin.ends_with("(run now)")) << made.origin;
  EXPECT_EQ(runs(), 1);
  const SassListing read = disassemble_cubin(cubin, sizeof cubin, "test");
  EXPECT_EQ(runs(), 1);
  EXPECT_TRUE(read.origin.ends_with("(kept from an earlier run)")) << read.origin;
  ASSERT_EQ(read.functions.at("_Z4kernPf").size(), 2u);
  EXPECT_EQ(read.functions.at("_Z4kernPf")[1].text, "EXIT");
  // Another cubin is another listing.
  const unsigned char other[8] = {0x7f, 'E', 'L', 'F', 9, 9, 9, 9};
  disassemble_cubin(other, sizeof other, "test");
  EXPECT_EQ(runs(), 2);
}

TEST_F(KeptListing, AKeptListingCutShortIsMadeAgain) {
  disassemble_cubin(cubin, sizeof cubin, "test");
  const std::filesystem::path kept = kept_file();
  ASSERT_FALSE(kept.empty());
  // A disk that filled: half the file, its last line missing.
  std::filesystem::resize_file(kept, std::filesystem::file_size(kept) / 2);
  const SassListing again = disassemble_cubin(cubin, sizeof cubin, "test");
  EXPECT_EQ(runs(), 2);
  EXPECT_EQ(again.functions.at("_Z4kernPf").size(), 2u);
  // And kept whole again.
  disassemble_cubin(cubin, sizeof cubin, "test");
  EXPECT_EQ(runs(), 2);
}

TEST_F(KeptListing, AFolderInTheWayOfTheCacheLeavesTheListingMadeEachTime) {
  std::filesystem::create_directories(folder / "cache");
  std::ofstream(folder / "cache" / "warplens") << "a file, not a folder";
  const SassListing made = disassemble_cubin(cubin, sizeof cubin, "test");
  EXPECT_EQ(made.functions.size(), 1u);
  disassemble_cubin(cubin, sizeof cubin, "test");
  EXPECT_EQ(runs(), 2);
}

} // namespace
} // namespace wl
