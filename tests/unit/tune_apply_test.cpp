// `tune --apply`: a tune's winner written into the person's kernel file as its defaults, the rest
// of the file byte for byte, and never over an edit the person made while the tune ran.

#include "base/error.h"
#include "kernel_file/description.h"
#include "tune/tune_apply.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

namespace wl {
namespace {

namespace fs = std::filesystem;

// A whole description (kernel, args, grid and check are required), its tune lines on lines 2 and
// 3 and its block line on line 6.
const std::string kApplyFile = "// @warplens kernel k\n"
                               "// @warplens tune TILE = 32, 16, 8\n"
                               "// @warplens tune PAD = 1, 0\n"
                               "// @warplens arg n: int = 4\n"
                               "// @warplens grid 1\n"
                               "// @warplens block 256\n"
                               "// @warplens check none\n"
                               "__global__ void k(int n) {}\n";

std::string apply_read(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void apply_write(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary) << text;
}

// The UsageError's message, or what happened instead.
std::string apply_refusal(const std::function<void()>& call) {
  try {
    call();
  } catch (const UsageError& error) {
    return error.what();
  } catch (const std::exception& error) {
    return std::string("not a UsageError: ") + error.what();
  }
  return "no error";
}

std::string apply_replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

std::vector<std::string> apply_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

fs::path apply_examples() {
#ifdef WARPLENS_SOURCE_ASSETS
  return fs::path(WARPLENS_SOURCE_ASSETS).parent_path() / "examples";
#else
  return fs::path(__FILE__).parent_path().parent_path().parent_path() / "examples";
#endif
}

// Each test writes in a folder of its own under gtest's temporary folder.
class TuneApply : public ::testing::Test {
protected:
  void SetUp() override {
    folder = fs::path(::testing::TempDir()) / ("wl_tune_apply_" + std::to_string(::getpid())) /
             ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(folder);
    fs::create_directories(folder);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(folder.parent_path(), ignored);
  }
  fs::path folder;
};

TEST_F(TuneApply, TheWinningValueMovesToTheFrontOfEachTunableTheOthersInTheirOrder) {
  const std::string text = apply_replaced(kApplyFile, "// @warplens arg",
                                          "// @warplens tune WARPS = 1, 2, 4, 8\n// @warplens arg");
  const TuneWinner winner{{256, 1, 1}, {{"TILE", 8}, {"PAD", 0}, {"WARPS", 4}}};
  std::string expected = apply_replaced(text, "TILE = 32, 16, 8", "TILE = 8, 32, 16");
  expected = apply_replaced(expected, "PAD = 1, 0", "PAD = 0, 1");
  expected = apply_replaced(expected, "WARPS = 1, 2, 4, 8", "WARPS = 4, 1, 2, 8");
  EXPECT_EQ(with_winner_as_default(text, "k.cu", winner), expected);
  // The defaults already winning: the text unchanged.
  EXPECT_EQ(with_winner_as_default(text, "k.cu", {{256, 1, 1}, {{"TILE", 32}, {"PAD", 1}}}), text);
}

TEST_F(TuneApply, ValuesWrittenAsExpressionsAreFoundByTheirValueAndTheLineKeepsItsSpacing) {
  const std::string text = apply_replaced(kApplyFile, "// @warplens tune PAD = 1, 0",
                                          "//   @warplens tune  N =1 << 5,min(64, 128) ,  8   \t");
  EXPECT_EQ(with_winner_as_default(text, "k.cu", {{256, 1, 1}, {{"N", 64}}}),
            apply_replaced(text, "N =1 << 5,min(64, 128) ,  8", "N =min(64, 128),1 << 5 ,  8"));
}

TEST_F(TuneApply, TheBlockLineTakesTheWinningBlock) {
  EXPECT_EQ(with_winner_as_default(kApplyFile, "k.cu", {{16, 16, 1}, {}}),
            apply_replaced(kApplyFile, "block 256", "block 16x16"));
  EXPECT_EQ(with_winner_as_default(kApplyFile, "k.cu", {{8, 8, 4}, {}}),
            apply_replaced(kApplyFile, "block 256", "block 8x8x4"));
}

TEST_F(TuneApply, AFileWithoutABlockLineGetsOneAfterItsLastDescriptionLineInItsForm) {
  const std::string text = "#include \"k.h\"\n"
                           "  //  @warplens kernel k\n"
                           "  //  @warplens arg n: int = 4\n"
                           "  //  @warplens grid 1\n"
                           "  //  @warplens check none\n"
                           "\n"
                           "__global__ void k(int n) {}\n";
  EXPECT_EQ(with_winner_as_default(text, "k.cu", {{128, 1, 1}, {}}),
            apply_replaced(text, "check none\n", "check none\n  //  @warplens block 128\n"));
  // 256 is the default a file without a block line already has: nothing is added.
  EXPECT_EQ(with_winner_as_default(text, "k.cu", {{256, 1, 1}, {}}), text);
}

TEST_F(TuneApply, CrlfLinesAndAMissingFinalNewlineAreKept) {
  std::string text = "// @warplens kernel k\r\n"
                     "// @warplens tune TILE = 32, 16, 8\r\n"
                     "__global__ void k(int n) {}\r\n"
                     "// @warplens arg n: int = 4\r\n"
                     "// @warplens grid 1\r\n"
                     "// @warplens check none";
  EXPECT_EQ(with_winner_as_default(text, "k.cu", {{64, 2, 1}, {{"TILE", 16}}}),
            "// @warplens kernel k\r\n"
            "// @warplens tune TILE = 16, 32, 8\r\n"
            "__global__ void k(int n) {}\r\n"
            "// @warplens arg n: int = 4\r\n"
            "// @warplens grid 1\r\n"
            "// @warplens check none\r\n"
            "// @warplens block 64x2");
  text = apply_replaced(text, "// @warplens check none",
                        "// @warplens block 256\r\n// @warplens check none");
  EXPECT_EQ(with_winner_as_default(text, "k.cu", {{32, 1, 1}, {}}),
            apply_replaced(text, "block 256\r\n", "block 32\r\n"));
}

TEST_F(TuneApply, AByteOrderMarkBeforeTheFirstLineIsKept) {
  const std::string text = "\xEF\xBB\xBF" + kApplyFile;
  EXPECT_EQ(with_winner_as_default(text, "k.cu", {{256, 1, 1}, {{"PAD", 0}}}),
            apply_replaced(text, "PAD = 1, 0", "PAD = 0, 1"));
}

TEST_F(TuneApply, AWinningTunableWithoutATuneLineIsRefusedNamingTheTuneLines) {
  const std::string message = apply_refusal([] {
    with_winner_as_default(kApplyFile, "k.cu", {{256, 1, 1}, {{"WARPS", 4}}});
  });
  EXPECT_EQ(message, "k.cu: the winner's tunable 'WARPS' has no '// @warplens tune WARPS = ...' "
                     "line (its tune lines: TILE on line 2, PAD on line 3)");
}

TEST_F(TuneApply, AWinningValueNotListedIsRefusedNamingItsLine) {
  const std::string message = apply_refusal([] {
    with_winner_as_default(kApplyFile, "k.cu", {{256, 1, 1}, {{"TILE", 64}}});
  });
  EXPECT_EQ(message, "k.cu:2: the winner's TILE=64 is not among the values of tune TILE "
                     "(32, 16, 8)");
}

TEST_F(TuneApply, AWinnerNamingATunableTwiceIsRefused) {
  const std::string message = apply_refusal([] {
    with_winner_as_default(kApplyFile, "k.cu", {{256, 1, 1}, {{"PAD", 0}, {"PAD", 1}}});
  });
  EXPECT_EQ(message, "k.cu:3: the winner names tunable PAD twice; give each tunable once");
}

TEST_F(TuneApply, ApplyingRewritesTheFileAndSaysWhatChangedLineByLine) {
  const fs::path file = folder / "k.cu";
  apply_write(file, kApplyFile);
  const std::vector<std::string> changes =
      apply_winner(file, kApplyFile, {{128, 1, 1}, {{"TILE", 16}, {"PAD", 1}}});
  EXPECT_EQ(changes, (std::vector<std::string>{"line 2: tune TILE = 32, 16, 8 -> 16, 32, 8",
                                               "line 6: block 256 -> 128"}));
  EXPECT_EQ(apply_read(file), apply_replaced(apply_replaced(kApplyFile, "32, 16, 8", "16, 32, 8"),
                                             "block 256", "block 128"));
  EXPECT_EQ(std::distance(fs::directory_iterator(folder), fs::directory_iterator()), 1)
      << "a temporary was left beside the file";
}

TEST_F(TuneApply, AFileChangedOnDiskSinceTheTuneBeganIsLeftAsThePersonLeftIt) {
  const fs::path file = folder / "k.cu";
  const std::string edited = apply_replaced(kApplyFile, "grid 1", "grid 2");
  apply_write(file, edited);
  const std::string message = apply_refusal([&] {
    apply_winner(file, kApplyFile, {{16, 16, 1}, {{"TILE", 16}, {"PAD", 0}}});
  });
  EXPECT_EQ(message, file.string() + " changed since the tune began: not applied (the winner: "
                                     "block 16x16, TILE=16, PAD=0)");
  EXPECT_EQ(apply_read(file), edited);
  // Only longer, or gone: still the person's, and named as such.
  apply_write(file, kApplyFile + "// more\n");
  EXPECT_NE(apply_refusal([&] {
              apply_winner(file, kApplyFile, {{16, 16, 1}, {}});
            }).find("changed since the tune began: not applied"),
            std::string::npos);
  EXPECT_EQ(apply_read(file), kApplyFile + "// more\n");
  fs::remove(file);
  EXPECT_EQ(apply_refusal([&] {
              apply_winner(file, kApplyFile, {{16, 16, 1}, {}});
            }),
            file.string() + " changed since the tune began (it is gone): not applied (the winner: "
                            "block 16x16)");
  EXPECT_FALSE(fs::exists(file));
}

TEST_F(TuneApply, ALinkedFileStaysALinkWithItsTargetRewritten) {
  fs::create_directories(folder / "real");
  const fs::path target = folder / "real" / "k.cu", link = folder / "k.cu";
  apply_write(target, kApplyFile);
  fs::create_symlink("real/k.cu", link);
  EXPECT_EQ(apply_winner(link, kApplyFile, {{512, 1, 1}, {}}).size(), 1u);
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(fs::read_symlink(link), fs::path("real/k.cu"));
  EXPECT_EQ(apply_read(target), apply_replaced(kApplyFile, "block 256", "block 512"));
}

TEST_F(TuneApply, TheFilesModeIsKept) {
  const fs::path file = folder / "k.cu";
  apply_write(file, kApplyFile);
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(apply_winner(file, kApplyFile, {{256, 1, 1}, {{"PAD", 0}}}).size(), 1u);
  EXPECT_EQ(fs::status(file).permissions(), fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(apply_read(file), apply_replaced(kApplyFile, "PAD = 1, 0", "PAD = 0, 1"));
}

TEST_F(TuneApply, NothingToChangeLeavesTheFileAndItsModificationTimeAlone) {
  const fs::path file = folder / "k.cu";
  apply_write(file, kApplyFile);
  const auto an_hour_ago = fs::last_write_time(file) - std::chrono::hours(1);
  fs::last_write_time(file, an_hour_ago);
  EXPECT_TRUE(apply_winner(file, kApplyFile, {{256, 1, 1}, {{"TILE", 32}, {"PAD", 1}}}).empty());
  EXPECT_EQ(fs::last_write_time(file), an_hour_ago);
  EXPECT_EQ(apply_read(file), kApplyFile);
}

TEST_F(TuneApply, TheTransposeExampleReadsBackWithTheWinnerAsItsDefaults) {
  const fs::path file = folder / "transpose.cu";
  fs::copy_file(apply_examples() / "transpose.cu", file);
  const std::string before_text = apply_read(file);
  const KernelFileDescription before = read_kernel_file_description(before_text, "transpose.cu");
  ASSERT_EQ(before.tunables.size(), 2u);
  ASSERT_EQ(before.tunables[0].name, "TILE");
  ASSERT_EQ(before.tunables[1].name, "PAD");
  const TuneWinner winner{{16, 8, 1}, {{"TILE", 16}, {"PAD", 0}}};
  ASSERT_NE(before.default_block, winner.block);

  const std::vector<std::string> changes = apply_winner(file, before_text, winner);
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_TRUE(
      changes[0].starts_with("line " + std::to_string(before.tunables[0].line) + ": tune TILE = "))
      << changes[0];
  EXPECT_TRUE(
      changes[1].starts_with("line " + std::to_string(before.tunables[1].line) + ": tune PAD = "))
      << changes[1];
  EXPECT_TRUE(changes[2].ends_with(" -> 16x8")) << changes[2];

  const std::string after_text = apply_read(file);
  const KernelFileDescription after = read_kernel_file_description(after_text, "transpose.cu");
  EXPECT_EQ(after.default_block, winner.block);
  ASSERT_EQ(after.tunables.size(), 2u);
  EXPECT_EQ(after.tunables[0].values, (std::vector<std::int64_t>{16, 32}));
  EXPECT_EQ(after.tunables[1].values, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(after.kernels, before.kernels);
  EXPECT_EQ(after.args.size(), before.args.size());
  EXPECT_EQ(after.reference, before.reference);
  // Three lines differ, the rest are the example's own.
  const std::vector<std::string> old_lines = apply_lines(before_text),
                                 new_lines = apply_lines(after_text);
  ASSERT_EQ(new_lines.size(), old_lines.size());
  int differing = 0;
  for (std::size_t i = 0; i < old_lines.size(); ++i)
    differing += old_lines[i] != new_lines[i];
  EXPECT_EQ(differing, 3);
}

} // namespace
} // namespace wl
