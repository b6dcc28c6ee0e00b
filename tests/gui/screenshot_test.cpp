// Headless EGL screenshots in model mode: the whole window and each panel, checked for size,
// non-blank content and the sidecar's configuration and figures. Names never overwrite.

#include "base/error.h"
#include "gui_test_support.h"
#include "workflows/model_source.h"

namespace wl::viz::test {
namespace {

std::filesystem::path sidecar_of(std::filesystem::path png) {
  return png.replace_extension(".json");
}

// The model-mode app the CLI renders: a ModelSource fills the result on its own thread.
struct ModelModeApp {
  ModelSource source;
  App app = make_app("matmul/tiled", "h100");
  ModelModeApp() {
    app.source = &source;
    app.choices.set_block({16, 16, 1});
    app.run();
    source.wait_idle();
    app.poll_source();
  }
};

void expect_sidecar(const nlohmann::json& sidecar, const App& app, const std::string& panel,
                    int width, int height) {
  ASSERT_TRUE(sidecar.is_object());
  EXPECT_EQ(sidecar["screenshot"]["panel"], panel);
  EXPECT_EQ(sidecar["screenshot"]["width"], width);
  EXPECT_EQ(sidecar["screenshot"]["height"], height);
  EXPECT_EQ(sidecar["configuration"]["kernel"], "matmul/tiled");
  EXPECT_EQ(sidecar["configuration"]["block"], "16x16");
  EXPECT_EQ(sidecar["configuration"]["arch"], "h100");
  EXPECT_NE(sidecar["configuration"]["mode"].get<std::string>().find("model mode"),
            std::string::npos);
  const nlohmann::json& result = sidecar["result"];
  EXPECT_EQ(result["kernel"], "matmul/tiled");
  EXPECT_DOUBLE_EQ(result["occupancy"]["occupancy"].get<double>(),
                   app.results.latest->occupancy->occupancy);
  EXPECT_EQ(result["occupancy"]["blocks_per_sm"], app.results.latest->occupancy->blocks_per_sm);
  EXPECT_EQ(result["sites"].size(), app.results.latest->prediction.sites.size());
  // matmul/tiled 16x16 is in the bundled H100 recording: its counters show, marked as recorded.
  EXPECT_EQ(sidecar["figures"]["counters_measured"], "collected (result.counters)");
  EXPECT_EQ(sidecar["figures"]["recorded_on"], app.results.latest->recorded_on);
  EXPECT_NE(app.results.latest->recorded_on.find("recorded on NVIDIA H100"), std::string::npos)
      << app.results.latest->recorded_on;
  EXPECT_NE(sidecar["figures"]["achieved_occupancy"].get<std::string>().find("(recorded)"),
            std::string::npos);
  EXPECT_TRUE(sidecar["result"]["figures"]["time_at_peak_bytes"].is_number());
  EXPECT_TRUE(sidecar["figures"]["impact_curves_current"]["registers"].is_object());
}

TEST(GuiScreenshot, WholeWindowInModelMode) {
  const std::filesystem::path dir = scratch_dir();
  ModelModeApp model;
  ASSERT_TRUE(model.app.results.latest);
  HeadlessGui gui(model.app, 1440, 900);
  gui.render(2);
  model.app.frame.screenshot = ScreenshotRequest{std::nullopt, (dir / "window.png").string()};
  gui.render(1);
  ASSERT_EQ(model.app.messages.last_screenshot_path, (dir / "window.png").string())
      << model.app.messages.status;
  EXPECT_EQ(model.app.messages.last_saved_path,
            (dir / "window.png").string()); // the path is shown, with a copy button
  const Png png = load_png(dir / "window.png");
  EXPECT_EQ(png.width, 1440);
  EXPECT_EQ(png.height, 900);
  EXPECT_GT(grey_variance(png.image), 100);
  expect_sidecar(read_json(dir / "window.json"), model.app, "window", 1440, 900);
}

TEST(GuiScreenshot, EachPanelCroppedInModelMode) {
  const std::filesystem::path dir = scratch_dir();
  ModelModeApp model;
  for (Panel panel : kAllPanels)
    model.app.open(panel) = true; // the memory maps start closed
  HeadlessGui gui(model.app, 1440, 900);
  gui.render(2);
  for (Panel panel : kAllPanels) {
    const std::filesystem::path file = dir / (std::string(panel_name(panel)) + ".png");
    model.app.frame.screenshot = ScreenshotRequest{panel, file.string()};
    gui.render(kPanelPictureFrames);
    ASSERT_EQ(model.app.messages.last_screenshot_path, file.string()) << model.app.messages.status;
    const PanelRect rect = model.app.rect(panel);
    const Png png = load_png(file);
    EXPECT_EQ(png.width, static_cast<int>(rect.x + rect.width) - static_cast<int>(rect.x))
        << panel_name(panel);
    EXPECT_EQ(png.height, static_cast<int>(rect.y + rect.height) - static_cast<int>(rect.y))
        << panel_name(panel);
    EXPECT_LT(png.width, 1440);
    EXPECT_GT(grey_variance(png.image), 100) << panel_name(panel);
    expect_sidecar(read_json(sidecar_of(file)), model.app, panel_name(panel), png.width,
                   png.height);
  }
}

TEST(GuiScreenshot, NeverOverwritesAndTimestampsTakenNames) {
  const std::filesystem::path dir = scratch_dir();
  ModelModeApp model;
  HeadlessGui gui(model.app, 640, 480);
  gui.render(1);
  std::vector<std::string> paths;
  for (int i = 0; i < 3; ++i) {
    model.app.frame.screenshot = ScreenshotRequest{std::nullopt, (dir / "same.png").string()};
    gui.render(1);
    paths.push_back(model.app.messages.last_screenshot_path);
  }
  EXPECT_EQ(paths[0], (dir / "same.png").string());
  EXPECT_NE(paths[1], paths[0]);
  EXPECT_NE(paths[2], paths[1]);
  for (const std::string& path : paths) {
    EXPECT_TRUE(std::filesystem::exists(path)) << path;
    EXPECT_TRUE(std::filesystem::exists(sidecar_of(path))) << path;
  }
  // same-<date>-<time>.png, then same-<date>-<time>-2.png within the same second
  EXPECT_EQ(std::filesystem::path(paths[1]).stem().string().size(),
            std::string("same-20260321-142501").size());
  EXPECT_TRUE(paths[2].ends_with("-2.png") ||
              std::filesystem::path(paths[2]).stem() != std::filesystem::path(paths[1]).stem())
      << paths[2];
}

TEST(GuiScreenshot, AClosedPanelIsReportedNotSaved) {
  const std::filesystem::path dir = scratch_dir();
  ModelModeApp model;
  model.app.open(Panel::counters) = false;
  HeadlessGui gui(model.app, 800, 600);
  model.app.frame.screenshot = ScreenshotRequest{Panel::counters, (dir / "counters.png").string()};
  gui.render(kPanelPictureFrames);
  EXPECT_TRUE(model.app.messages.last_screenshot_path.empty());
  EXPECT_NE(model.app.messages.status.find("not open"), std::string::npos)
      << model.app.messages.status;
  EXPECT_FALSE(std::filesystem::exists(dir / "counters.png"));
}

TEST(GuiScreenshot, HeadlessUsesAnEglDisplayWithNoWindowSystem) {
  App app = make_app("", "h100");
  HeadlessGui gui(app, 64, 64);
  EXPECT_FALSE(gui.display_kind().empty());
  EXPECT_FALSE(gui.renderer().empty());
  EXPECT_THROW(HeadlessGui(app, 0, 10), UsageError);
}

} // namespace
} // namespace wl::viz::test
