// Every panel drawn headless (EGL, software rendering) from canned model results: the same frame
// function the window runs, with no display and no GPU.

#include "drawing/widgets.h"
#include "gui_test_support.h"
#include "registry.h"

#include <map>

#include <imgui.h>

namespace wl::viz::test {
namespace {

void open_all(App& app) {
  for (Panel panel : kAllPanels)
    app.open(panel) = true; // the memory maps start closed
}

// Each panel's tab shown in turn: it draws in a tile of a readable size.
void expect_panels_drawn(App& app, HeadlessGui& gui, const std::string& what) {
  for (Panel panel : kAllPanels) {
    app.show_panel(panel);
    const Image image = gui.render(1);
    const PanelRect& rect = app.frame.panel_rects[static_cast<int>(panel)];
    EXPECT_TRUE(rect.visible) << what << ": " << panel_name(panel);
    EXPECT_GT(rect.width, 100) << what << ": " << panel_name(panel);
    EXPECT_GT(rect.height, 100) << what << ": " << panel_name(panel);
    EXPECT_GT(grey_variance(image), 100) << what;
  }
}

// The defect: ImGui's wrapping breaks after a '.', so at 1280x720 the Occupancy panel read
// "5.<newline>1 KiB per block". Text wraps between words only, measured here a character a unit.
TEST(TextWrap, ANumberIsNeverSplitWhereTextWraps) {
  const auto characters = [](std::string_view words) { return static_cast<float>(words.size()); };
  const std::string row = "32 per thread (no local memory), 5.1 KiB per block";
  EXPECT_EQ(wrap_between_words(row, 35, characters),
            "32 per thread (no local memory),\n5.1 KiB per block");
  EXPECT_EQ(wrap_between_words(row, 100, characters), row);
  EXPECT_EQ(wrap_between_words("a line\nand the next", 100, characters), "a line\nand the next");
  // A word wider than the line stands alone on its line (ImGui then breaks it where it must).
  EXPECT_EQ(wrap_between_words("see /a/very/long/path/here now", 10, characters),
            "see\n/a/very/long/path/here\nnow");
}

TEST(GuiPanels, EveryPanelDrawsEveryKernelFromAModelResult) {
  App app = make_app("", "h100");
  open_all(app);
  HeadlessGui gui(app, 1440, 900);
  for (const KernelDesc& kernel : all_kernels()) {
    app.select_kernel(kernel.id);
    app.show(canned_result(kernel.id, "", app.arch()));
    expect_panels_drawn(app, gui, kernel.id);
  }
}

// The words a panel drew in one frame, taken as a screenshot (what its sidecar would hold).
std::string words_drawn(App& app, HeadlessGui& gui, Panel panel, const std::filesystem::path& dir) {
  app.show_panel(panel);
  app.frame.screenshot = ScreenshotRequest{std::nullopt, (dir / "words.png").string()};
  gui.render(1);
  return app.frame.panel_text[static_cast<int>(panel)];
}

// A kernel given at run time has no index math: each panel that predicts per site says why there
// is no prediction, and those that need none (occupancy, timings) show its figures.
TEST(GuiPanels, ARunTimeKernelWithoutCodeToRunSaysWhatIsNotPredicted) {
  KernelDesc mine = *find_kernel("vec_add/scalar");
  mine.id = "mine/saxpy_gui";
  mine.sites.clear(); // and no compiled model: nothing the model can run
  add_run_time_kernel(std::move(mine));
  App app = app_showing("mine/saxpy_gui", "");
  open_all(app);
  HeadlessGui gui(app, 1440, 900);
  const std::filesystem::path dir = scratch_dir();
  const std::map<Panel, std::string> says = {
      {Panel::global_memory, "No global access on the file's lines"},
      {Panel::shared_memory, "No shared-memory access on the file's lines"},
      {Panel::counters, "No global or shared access on the file's lines"},
  };
  for (const auto& [panel, text] : says)
    EXPECT_NE(words_drawn(app, gui, panel, dir).find(text), std::string::npos)
        << panel_name(panel) << ": " << words_drawn(app, gui, panel, dir);
  const std::string occupancy = words_drawn(app, gui, Panel::occupancy, dir);
  EXPECT_NE(occupancy.find("<- limiter"), std::string::npos) << occupancy;
}

TEST(GuiPanels, EmptyStatesBeforeAnyResult) {
  App app = make_app("vec_add/scalar", "h100");
  open_all(app);
  HeadlessGui gui(app, 1280, 800);
  expect_panels_drawn(app, gui, "no result");
  EXPECT_FALSE(app.results.latest);
}

TEST(GuiPanels, EachPanelDrawsAlone) {
  App app = app_showing("transpose/smem", "32x8");
  HeadlessGui gui(app, 1280, 800);
  for (Panel only : kAllPanels) {
    for (Panel panel : kAllPanels)
      app.open(panel) = panel == only;
    const Image image = gui.render(2);
    for (Panel panel : kAllPanels)
      EXPECT_EQ(app.rect(panel).visible, panel == only)
          << panel_name(only) << " alone: " << panel_name(panel);
    EXPECT_GT(grey_variance(image), 50) << panel_name(only);
  }
}

TEST(GuiPanels, BothThemesDrawDifferentPixels) {
  App app = app_showing("matmul/tiled", "16x16");
  HeadlessGui gui(app, 1280, 800);
  app.choices.theme = Theme::dark;
  const Image dark = gui.render();
  app.choices.theme = Theme::light;
  app.frame.screenshot = ScreenshotRequest{std::nullopt, (scratch_dir() / "light.png").string()};
  const Image light = gui.render();
  EXPECT_FALSE(app.messages.last_screenshot_path.empty()) << app.messages.status;
  EXPECT_NE(dark.rgba, light.rgba);
  EXPECT_GT(grey_variance(light), 100);
}

TEST(GuiPanels, ShortcutsTogglePanelsAndLive) {
  App app = app_showing("matmul/tiled", "16x16");
  HeadlessGui gui(app, 800, 600);
  gui.render(1);
  auto press = [&](int key) {
    ImGui::GetIO().KeysDown[key] = true;
    gui.render(1);
    ImGui::GetIO().KeysDown[key] = false;
    gui.render(1);
  };
  press('2'); // GLFW_KEY_2: the Occupancy panel
  EXPECT_FALSE(app.open(Panel::occupancy));
  press('2');
  EXPECT_TRUE(app.open(Panel::occupancy));
  ASSERT_TRUE(app.choices.live); // on from the first start
  press('L');
  EXPECT_FALSE(app.choices.live);
}

TEST(GuiPanels, MeasuredCountersAndTimingsDrawBesideThePrediction) {
  App app = make_app("bank_conflicts/stride", "h100");
  RunResult result = canned_result("bank_conflicts/stride", "", app.arch());
  CounterResult counters;
  counters.available = true;
  counters.chip = "GH100";
  counters.passes = 1;
  counters.values.push_back({"shared_load_wavefronts",
                             "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                             "Shared load wavefronts", "wavefronts", 12345});
  result.counters = counters;
  TimingStats timing;
  timing.samples = 12, timing.median_time = 0.5, timing.min_time = 0.49, timing.noise = 0.004,
  timing.converged = true;
  result.timing = timing;
  app.show(result);
  result.timing->median_time = 0.4;
  app.show(result);
  open_all(app);
  HeadlessGui gui(app, 1440, 900);
  expect_panels_drawn(app, gui, "measured");
  app.frame.screenshot = ScreenshotRequest{std::nullopt, (scratch_dir() / "measured.png").string()};
  gui.render(1);
  const nlohmann::json sidecar = read_json(
      std::filesystem::path(app.messages.last_screenshot_path).replace_extension(".json"));
  EXPECT_EQ(sidecar["figures"]["counters_measured"], "collected (result.counters)")
      << app.messages.status;
  EXPECT_EQ(sidecar["figures"]["history_median_time"].size(), 2u);
  app.results.latest->counters->available = false;
  app.results.latest->counters->reason = "ERR_NVGPUCTRPERM: run as root or allow profiling";
  expect_panels_drawn(app, gui, "counters unavailable");
}

// Texts that come from outside (a worker's error, a recording's device name, a reason from a
// remote CUPTI) may be of any length and hold escape codes. Dear ImGui draws a text as one mesh of
// 16-bit indices and aborted the process on one of 20,000 characters; every panel draws them
// bounded and cleaned.
TEST(GuiPanels, TextsFromOutsideOfAnyLengthDrawWithoutAborting) {
  std::string huge;
  for (int i = 0; i < 2000; ++i)
    huge += "\x1b[31mfault\r\n";
  App app = make_app("vec_add/scalar", "h100");
  RunResult result = canned_result("vec_add/scalar", "", app.arch());
  result.arch.name = huge;
  result.recorded_on = huge;
  CounterResult counters;
  counters.available = false;
  counters.reason = huge;
  result.counters = counters;
  if (result.verification)
    result.verification->first_failure = huge;
  app.show(result);
  app.messages.status = huge;
  app.results.last_error = huge;
  app.messages.last_saved_path = huge;
  open_all(app);
  HeadlessGui gui(app, 1280, 720);
  expect_panels_drawn(app, gui, "texts of 20,000 characters");
  EXPECT_EQ(app.messages.status, huge); // bounded where drawn, kept whole for the sidecar and hover
}

// Recent runs are the runs timed here: the latest few, and neither an untimed model result nor a
// recording replayed (in model mode F5 shows the same recorded run again; it is not another run).
TEST(GuiPanels, HistoryKeepsTheRecentTimedRuns) {
  App app = make_app("vec_add/scalar", "h100");
  RunResult timed = canned_result("vec_add/scalar", "", app.arch());
  timed.timing = TimingStats{};
  timed.timing->median_time = 0.5;
  for (std::size_t i = 0; i < Results::kHistoryLength + 5; ++i)
    app.show(timed);
  EXPECT_EQ(app.results.history.size(), Results::kHistoryLength);
  EXPECT_TRUE(app.results.curves.has_value());
  app.results.history.clear();
  app.show(canned_result("vec_add/scalar", "", app.arch()));
  RunResult replayed = timed;
  replayed.recorded_on = "recorded on an H100";
  app.show(replayed);
  EXPECT_TRUE(app.results.history.empty());
}

} // namespace
} // namespace wl::viz::test
