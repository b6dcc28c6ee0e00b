// Baselines: a pinned run every panel compares the latest with, like Nsight Compute's; two
// variants of a family side by side (softmax/naive against softmax/block_tree).

#include "drawing/widgets.h"
#include "gui_test_support.h"

namespace wl::viz::test {
namespace {

TEST(Baseline, NothingToPinBeforeAResult) {
  App app = make_app("softmax/naive", "h100");
  EXPECT_FALSE(app.pin_baseline());
  EXPECT_FALSE(app.results.baseline);
  EXPECT_EQ(app.baseline_label(), "");
}

TEST(Baseline, APinnedRunStaysWhileOtherKernelsAreShown) {
  App app = app_showing("softmax/naive", "");
  ASSERT_TRUE(app.pin_baseline());
  EXPECT_EQ(app.baseline_label(), "softmax/naive, block 256, rows=8192 cols=8192");
  app.select_kernel("softmax/block_tree");
  app.show(canned_result("softmax/block_tree", "", app.arch()));
  ASSERT_TRUE(app.results.baseline);
  EXPECT_EQ(app.results.baseline->kernel_id, "softmax/naive");
  EXPECT_EQ(app.results.latest->kernel_id, "softmax/block_tree");
  ASSERT_TRUE(app.results.latest->timing && app.results.baseline->timing)
      << "both are in the bundled H100 recording";
  EXPECT_LT(app.results.latest->timing->median_time, app.results.baseline->timing->median_time);
}

TEST(Baseline, ChangesReadAsPercentOrPoints) {
  EXPECT_EQ(change_text(1.125, 1.0), "+12.5 %");
  EXPECT_EQ(change_text(0.5, 1.0), "-50.0 %");
  EXPECT_EQ(change_text(90.4, 12.5, true), "+77.9 points");
  EXPECT_EQ(change_text(std::nullopt, 1.0), "-");
  EXPECT_EQ(change_text(0.0, 0.0), "same");
}

TEST(Baseline, EveryPanelDrawsAgainstABaseline) {
  App app = app_showing("softmax/naive", "");
  ASSERT_TRUE(app.pin_baseline());
  app.select_kernel("softmax/block_tree");
  app.show(canned_result("softmax/block_tree", "", app.arch()));
  for (Panel panel : kAllPanels)
    app.open(panel) = true;
  HeadlessGui gui(app, 1440, 900);
  const std::filesystem::path png = scratch_dir() / "compare.png";
  app.frame.screenshot = ScreenshotRequest{std::nullopt, png.string()};
  const Image image = gui.render(3);
  EXPECT_GT(grey_variance(image), 100);
  ASSERT_EQ(app.messages.last_screenshot_path, png.string()) << app.messages.status;
  const nlohmann::json sidecar = read_json(std::filesystem::path(png).replace_extension(".json"));
  EXPECT_EQ(sidecar["baseline"]["kernel"], "softmax/naive");
  EXPECT_EQ(sidecar["result"]["kernel"], "softmax/block_tree");
}

} // namespace
} // namespace wl::viz::test
