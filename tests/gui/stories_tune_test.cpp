// The Tune panel as a person uses it: in model mode the model's ranking of the space (nothing can
// be measured) and a click that puts a point on screen; with a real worker a tune of a few points,
// measured one at a time, the best set beside the default launch.

#include "story_support.h"

#include <gtest/gtest.h>

namespace wl::viz::test {
namespace {

using nlohmann::json;

bool in_gpu_mode(const json& sidecar) {
  return sidecar["configuration"]["mode"].get<std::string>().rfind("GPU mode", 0) == 0;
}

TEST(StoryTune, ATuneRanksOrMeasuresTheSpaceAndAClickOpensAPoint) {
  const std::string open =
      "window 1280x720\nclick \"View\"\nclick \"Tune\"\nset \"budget\" 6 in \"Tune\"\n"
      "click \"Tune\" in \"Tune\"\nwait\nscreenshot tuned.png tune\n";
  const Story story = play(open + "click \"block 512\" in \"Tune\"\nwait\nscreenshot opened.png\n",
                           "--kernel vec_add/scalar");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json tuned = story.sidecar("tuned");
  const std::string t = flat_text(tuned, "tune");
  EXPECT_NE(t.find("block 256 (default)"), std::string::npos) << t;
  if (!in_gpu_mode(tuned)) {
    EXPECT_NE(t.find("Model mode: nothing is measured here. The model's ranking of 32 allowed "
                     "points"),
              std::string::npos)
        << t;
    EXPECT_EQ(t.find("Best so far"), std::string::npos) << t;
  } else {
    EXPECT_NE(t.find("6 of 32 allowed points measured"), std::string::npos) << t;
    EXPECT_NE(t.find("the budget of 6 evaluations was spent"), std::string::npos) << t;
    EXPECT_NE(t.find("Best so far: block "), std::string::npos) << t;
    EXPECT_NE(t.find("1. block "), std::string::npos) << t;
    EXPECT_NE(t.find(" ms"), std::string::npos) << t;
  }
  const json opened = story.sidecar("opened");
  EXPECT_EQ(opened["configuration"]["block"], "512") << opened["configuration"];
}

TEST(StoryTune, AKernelWithTunablesIsTunedOverThemAndRefusedPointsAreCounted) {
  const Story story = play("window 1920x1200\nclick \"View\"\nclick \"Tune\"\n"
                           "click \"Tune\" in \"Tune\"\nwait\nscreenshot tuned.png tune\n",
                           "--kernel matmul/async_copy");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const std::string t = flat_text(story.sidecar("tuned"), "tune");
  EXPECT_NE(t.find("20 allowed points"), std::string::npos) << t;
  EXPECT_NE(t.find("bn=256, bk=16, stages=3, group=8 (default)"), std::string::npos) << t;
}

// examples/transpose.cu's tile of 16 forbids its default block (32x8): each such point is still
// measured at its own shape (a worker once refused them all at the default block); in model mode
// the ranking holds them.
TEST(StoryTune, ATunableThatForbidsTheDefaultBlockIsMeasuredAtItsOwnShapes) {
  const std::filesystem::path file =
      std::filesystem::path(WARPLENS_SOURCE_TESTS).parent_path() / "examples" / "transpose.cu";
  const Story story = play("window 1920x1200\nclick \"View\"\nclick \"Tune\"\n"
                           "set \"budget\" 22 in \"Tune\"\nclick \"Tune\" in \"Tune\"\nwait\n"
                           "screenshot tuned.png tune\n",
                           file.string());
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json tuned = story.sidecar("tuned");
  const std::string t = flat_text(tuned, "tune");
  EXPECT_NE(t.find("22 allowed points"), std::string::npos) << t;
  EXPECT_NE(t.find("block 16x16, TILE=16, PAD=1"), std::string::npos) << t;
  if (in_gpu_mode(tuned)) {
    // The model strategy with the whole space as its budget: every point measured or proven
    // slower, none of them without a time.
    EXPECT_NE(t.find("every allowed point was measured or skipped"), std::string::npos) << t;
    EXPECT_EQ(t.find("no time"), std::string::npos) << t;
  }
}

} // namespace
} // namespace wl::viz::test
