// Stories of the panels a launch fills: the memory maps and their selectors, the pad slider,
// divergence, baselines, sweeps, screenshots and exports, the layout, keys and the status line.

#include "figures.h"
#include "story_support.h"

#include <chrono>

#include <unistd.h>

namespace wl::viz::test {
namespace {

using nlohmann::json;

// Every figure a memory map's sidecar shows is a figure of the table (its name, unit and meaning
// defined there once); the rest says which warp the map draws.
void expect_only_table_figures(const json& map) {
  for (const auto& [key, value] : map.items())
    if (key != "site" && key != "block" && key != "warp" && key != "iteration")
      EXPECT_NE(find_figure(key), nullptr) << key << " is not in tool/figures.cpp";
}

TEST(StoryMaps, TheGlobalMapFollowsItsWarpAndBlockFields) {
  const Story story = play(
      "click \"coalescing/stride\"\nwait\nset \"stride\" 2 in \"Launch\"\nclick \"Global memory\"\n"
      "wait\nscreenshot a.png global\nset \"warp\" 3 in \"Global memory\"\n"
      "set \"block x\" 5 in \"Global memory\"\nwait\nscreenshot b.png global\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a")["shown"]["global_map"],
             b = story.sidecar("b")["shown"]["global_map"];
  EXPECT_EQ(a["sectors"], 8); // stride 2: 8 sectors, half of each used
  EXPECT_EQ(a["ideal_sectors"], 4);
  EXPECT_EQ(b["warp"], 3);
  EXPECT_EQ(b["block"], json({5, 0, 0}));
  EXPECT_EQ(b["sectors"], 8);
  expect_only_table_figures(a);
}

TEST(StoryMaps, TheSiteListChoosesAnotherSite) {
  const Story story =
      play("click \"transpose/smem\"\nwait\nclick \"Shared memory\"\nclick \"site\" in \"Shared "
           "memory\"\n"
           "screenshot open.png\nclick \"store tile\"\nwait\nscreenshot a.png shared\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  EXPECT_EQ(story.sidecar("a")["shown"]["shared_map"]["site"], "store tile")
      << story.sidecar("open")["shown"]["controls"];
}

TEST(StoryMaps, TheIterationFieldStepsThroughALoop) {
  const Story story = play("click \"matmul/tiled\"\nwait\nclick \"Shared memory\"\nset "
                           "\"iteration\" 3 in \"Shared memory\"\n"
                           "wait\nscreenshot a.png shared\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  EXPECT_EQ(story.sidecar("a")["shown"]["shared_map"]["iteration"], 3);
}

TEST(StoryMaps, ThePadSliderDissolvesTheConflict) {
  const Story story = play("click \"bank_conflicts/padded\"\nwait\nclick \"Shared memory\"\nset "
                           "\"pad\" 0 in \"Shared memory\"\n"
                           "wait\nscreenshot a.png shared\nset \"pad\" 1 in \"Shared "
                           "memory\"\nwait\nscreenshot b.png shared\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a"), b = story.sidecar("b");
  EXPECT_EQ(a["configuration"]["params"]["pad"], 0);
  EXPECT_GT(a["shown"]["shared_map"]["conflict_degree"].get<int>(), 1);
  EXPECT_EQ(b["configuration"]["params"]["pad"], 1);
  EXPECT_EQ(b["shown"]["shared_map"]["conflict_degree"], 1);
  expect_only_table_figures(a["shown"]["shared_map"]);
}

TEST(StoryDivergence, TheTreeOfAReductionShowsInItsPanel) {
  const Story story = play("click \"reduce_sum/interleaved\"\nwait\nclick \"Divergence\"\nset "
                           "\"warp\" 1 in \"Divergence\"\n"
                           "wait\nscreenshot a.png divergence\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a");
  EXPECT_EQ(a["screenshot"]["panel"], "divergence");
  EXPECT_TRUE(shown(a, "warp", "Divergence"));
}

TEST(StoryBaseline, PinCompareAndTheLabelNamesTheParameters) {
  const Story story = play("click \"coalescing/stride\"\nwait\nclick \"Pin as baseline (B)\"\n"
                           "set \"stride\" 2 in \"Launch\"\nwait\nscreenshot a.png timings\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a");
  ASSERT_TRUE(a["baseline"].is_object());
  EXPECT_EQ(a["baseline"]["params"]["stride"], 1);
  EXPECT_EQ(a["result"]["params"]["stride"], 2);
}

TEST(StoryBaseline, TheBKeyPinsAndClearRemoves) {
  const Story story = play(
      "click \"softmax/naive\"\nwait\nkey B\nclick \"softmax/block_tree\"\nwait\nscreenshot a.png\n"
      "click \"Clear baseline\"\nwait\nscreenshot b.png\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  EXPECT_EQ(story.sidecar("a")["baseline"]["kernel"], "softmax/naive");
  EXPECT_TRUE(story.sidecar("b")["baseline"].is_null());
}

std::string sweep_2d(const std::string& more) {
  return "click \"vec_add_3d/blocks3d\"\nwait\nclick \"Sweep\"\nset \"block x\" \"16,32,64\" in "
         "\"Sweep\"\n"
         "set \"block y\" \"1,2,4\" in \"Sweep\"\nclick \"Model sweep\"\nwait\n" +
         more;
}

TEST(StorySweep, AModelSweepIn1DHasEveryShape) {
  const Story story = play("click \"vec_add/scalar\"\nwait\nclick \"Sweep\"\nset \"block x\" "
                           "\"32:256:32\" in \"Sweep\"\n"
                           "click \"Model sweep\"\nwait\nscreenshot a.png sweep\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json sweep = story.sidecar("a")["shown"]["sweep"];
  EXPECT_EQ(sweep["points"], 8);
  EXPECT_EQ(sweep["allowed"], 8);
  EXPECT_EQ(sweep["kernel"], "vec_add/scalar");
}

// Model sweeps offer the model's figures only (no time or GB/s that would stay empty).
TEST(StorySweep, A2DSweepIsColouredByEveryFigureItHas) {
  const std::vector<std::string> figures = {"theoretical occupancy (%)", "sectors per request",
                                            "registers per thread"};
  std::string more;
  for (std::size_t i = 0; i < figures.size(); ++i)
    more += "click \"colour by\" in \"Sweep\"\nclick \"" + figures[i] + "\"\nscreenshot c" +
            std::to_string(i) + ".png sweep\n";
  const Story story = play(sweep_2d(more));
  ASSERT_EQ(story.exit_code, 0) << story.output;
  for (std::size_t i = 0; i < figures.size(); ++i) {
    const json sweep = story.sidecar("c" + std::to_string(i))["shown"]["sweep"];
    EXPECT_EQ(sweep["metric"], figures[i]);
    EXPECT_EQ(sweep["points"], 9);
    const std::vector<std::string> offered = sweep["offered"];
    EXPECT_EQ(std::count(offered.begin(), offered.end(), "median time (ms)"), 0);
    EXPECT_EQ(std::count(offered.begin(), offered.end(), "throughput (GB/s)"), 0);
  }
}

TEST(StorySweep, AClickOnACellLoadsThatShape) {
  const Story story = play(sweep_2d("click \"32x2\" in \"Sweep\"\nwait\nscreenshot a.png\n"));
  ASSERT_EQ(story.exit_code, 0) << story.output;
  EXPECT_EQ(story.sidecar("a")["configuration"]["block"], "32x2");
}

// The defect: choosing in the "colour by" list clicked through to the heatmap under it.
TEST(StorySweep, ChoosingAColourDoesNotClickTheCellUnderTheList) {
  const Story story =
      play(sweep_2d("screenshot before.png\nclick \"colour by\" in \"Sweep\"\n"
                    "click \"registers per thread\"\nwait\nscreenshot after.png\n"));
  ASSERT_EQ(story.exit_code, 0) << story.output;
  EXPECT_EQ(story.sidecar("after")["configuration"]["block"],
            story.sidecar("before")["configuration"]["block"]);
  EXPECT_EQ(story.sidecar("after")["shown"]["sweep"]["metric"], "registers per thread");
}

TEST(StorySweep, ASweepOfRefusedShapesNamesItsKernelAndWhy) {
  const Story story = play(
      "click \"transpose/smem\"\nwait\nclick \"Sweep\"\nset \"block x\" \"16,48\" in \"Sweep\"\n"
      "click \"Model sweep\"\nwait\nscreenshot a.png sweep\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json sweep = story.sidecar("a")["shown"]["sweep"];
  EXPECT_EQ(sweep["kernel"], "transpose/smem");
  EXPECT_EQ(sweep["allowed"], 0);
}

TEST(StorySweep, AnotherKernelClearsTheOldSweep) {
  const Story story =
      play("click \"vec_add/scalar\"\nwait\nclick \"Sweep\"\nclick \"Model sweep\"\nwait\n"
           "click \"softmax/naive\"\nwait\nscreenshot a.png sweep\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  EXPECT_FALSE(story.sidecar("a")["shown"]["sweep"].contains("points"));
}

TEST(StorySweep, ExportCsvWritesIntoThePicturesFolderAndSaysWhere) {
  const Story story =
      play("click \"vec_add/scalar\"\nwait\nclick \"Sweep\"\nclick \"Model sweep\"\nwait\n"
           "click \"Export CSV\"\nscreenshot a.png\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  int csv = 0;
  for (const auto& entry : std::filesystem::directory_iterator(story.dir / "pictures" / "WarpLens"))
    csv += entry.path().extension() == ".csv";
  EXPECT_EQ(csv, 1);
  EXPECT_NE(story.sidecar("a")["configuration"]["status"].get<std::string>().find("sweep saved"),
            std::string::npos);
}

TEST(StoryScreenshots, EachPanelAndTheWindowAreSaved) {
  std::string script = "wait\n";
  for (const char* panel :
       {"launch", "occupancy", "timings", "counters", "global", "shared", "divergence", "sweep"})
    script += std::string("screenshot ") + panel + ".png " + panel + "\n";
  script += "key F12\nscreenshot window.png\n";
  const Story story = play(script);
  ASSERT_EQ(story.exit_code, 0) << story.output;
  for (const char* panel :
       {"launch", "occupancy", "timings", "counters", "global", "shared", "divergence", "sweep"})
    EXPECT_EQ(story.sidecar(panel)["screenshot"]["panel"], panel);
  EXPECT_EQ(story.sidecar("window")["screenshot"]["width"], 1440);
  int pictures = 0; // F12 saves into the pictures folder
  for (const auto& entry : std::filesystem::directory_iterator(story.dir / "pictures" / "WarpLens"))
    pictures += entry.path().extension() == ".png";
  EXPECT_EQ(pictures, 1);
}

TEST(StoryScreenshots, ANameEndingInJsonNeverLosesThePicture) {
  const Story story = play("wait\nscreenshot shot.json\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  EXPECT_TRUE(std::filesystem::exists(story.dir / "shot.json.png"));
  EXPECT_TRUE(story.sidecar("shot.json")["screenshot"].is_object());
}

TEST(StoryLayout, EveryPanelTabIsReachableAt1280x720AndTwiceTheScale) {
  for (const char* scale : {"1", "2"}) {
    const Story story =
        play(std::string("window 1280x720\nscale ") + scale + "\nwait\nscreenshot a.png\n");
    ASSERT_EQ(story.exit_code, 0) << story.output;
    for (const char* title : {"Launch", "Occupancy", "Timings", "Counters", "Global memory",
                              "Shared memory", "Divergence", "Sweep"})
      EXPECT_TRUE(shown(story.sidecar("a"), title, "")) << scale << ": " << title;
  }
}

TEST(StoryLayout, ResetLayoutAndTheViewMenuBringPanelsBack) {
  const Story story = play("key 2\nwait\nscreenshot closed.png\nclick \"View\"\nclick \"Reset "
                           "layout\"\nwait\nscreenshot reset.png\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  EXPECT_FALSE(story.sidecar("closed")["configuration"]["panels_open"]["occupancy"].get<bool>());
  EXPECT_TRUE(story.sidecar("reset")["configuration"]["panels_open"]["occupancy"].get<bool>());
}

TEST(StoryLayout, CtrlPlusAndMinusScaleTheInterface) {
  const Story story =
      play("key ctrl+=\nwait\nscreenshot a.png\nkey ctrl+0\nwait\nscreenshot b.png\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  EXPECT_FLOAT_EQ(story.sidecar("a")["configuration"]["ui_scale"].get<float>(), 1.25f);
  EXPECT_FLOAT_EQ(story.sidecar("b")["configuration"]["ui_scale"].get<float>(), 1.0f);
}

TEST(StoryLayout, TheLightThemeFromTheViewMenu) {
  const Story story = play("click \"View\"\nclick \"Light theme\"\nwait\nscreenshot a.png\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  EXPECT_EQ(story.sidecar("a")["configuration"]["theme"], "light");
}

TEST(StoryScript, ALabelNotOnScreenStopsWithTheLineAndWhatIsThere) {
  const Story story = play("wait\nclick \"No such button\"\n");
  EXPECT_EQ(story.exit_code, 2) << story.output;
  EXPECT_NE(story.output.find("story.txt:2"), std::string::npos) << story.output;
  EXPECT_NE(story.output.find("No such button"), std::string::npos) << story.output;
  EXPECT_NE(story.output.find("Run (F5)"), std::string::npos) << story.output;
  EXPECT_EQ(std::count(story.output.begin(), story.output.end(), '\n'), 1) << story.output;
}

TEST(StoryScript, ALineItCannotReadStopsBeforeAnything) {
  for (const char* line : {"fly \"x\"", "click", "click \"unclosed", "key F99", "wait -1",
                           "wait 1e999", "window 10x10", "scale 9", "screenshot a.png nopanel",
                           "set \"n\"", "click \"x\" in \"Nowhere\""}) {
    const Story story = play(std::string("# a comment\n") + line + "\n");
    EXPECT_EQ(story.exit_code, 2) << line << ": " << story.output;
    EXPECT_NE(story.output.find("story.txt:2"), std::string::npos) << line << ": " << story.output;
    EXPECT_EQ(std::count(story.output.begin(), story.output.end(), '\n'), 1)
        << line << ": " << story.output;
  }
}

TEST(StoryScript, AWorkerThatNeverAnswersEndsTheWaitWithTheReason) {
  const Story story = play("wait 3\n", "--worker \"sleep 100\"");
  EXPECT_EQ(story.exit_code, 1) << story.output;
  EXPECT_NE(story.output.find("wait"), std::string::npos) << story.output;
}

// A worker command that never starts is given up after 5 s per try, with the reason on screen.
TEST(StoryScript, AWorkerThatNeverSaysHelloIsGivenUpWithTheReason) {
  const auto start = std::chrono::steady_clock::now();
  const Story story = play("wait 60\nscreenshot a.png\n", "--worker \"sleep 100\"");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(story.exit_code, 0) << story.output;
  EXPECT_NE(story.sidecar("a")["error"].get<std::string>().find("no hello within 5 s"),
            std::string::npos)
      << story.sidecar("a")["error"];
  EXPECT_LT(seconds, 30); // two tries of 5 s, not minutes
}

// A worker killed in the middle of a run (wl_fault_proxy kills it at the run's first progress
// line): the GUI starts another, measures the launch again there, and keeps what was chosen.
TEST(StoryScript, AWorkerKilledMidRunIsReplacedAndTheLaunchMeasuredAgain) {
  const std::filesystem::path control = std::filesystem::temp_directory_path() /
                                        ("warplens-kill-control-" + std::to_string(getpid()));
  std::filesystem::create_directories(control);
  write_file(control / "kill-during", "coalescing/stride\n");
  const Story story = play("wait\nkey L\nclick \"coalescing/stride\"\nset \"stride\" 4 in "
                           "\"Launch\"\nkey F5\nwait\nscreenshot a.png\n",
                           std::string("--worker \"") + WARPLENS_FAULT_PROXY + " " +
                               control.string() + " -- " + WARPLENS_BINARY + " worker\"");
  const bool killed = !std::filesystem::exists(control / "kill-during");
  std::filesystem::remove_all(control);
  ASSERT_EQ(story.exit_code, 0) << story.output;
  EXPECT_TRUE(killed) << "the proxy never killed the worker";
  const nlohmann::json a = story.sidecar("a");
  EXPECT_EQ(a["result"]["kernel"], "coalescing/stride") << a["error"];
  EXPECT_EQ(a["result"]["params"]["stride"], 4);
  EXPECT_EQ(a["configuration"]["live"], false);
  EXPECT_EQ(a["configuration"]["measured_is_stale"], false);
  // With a GPU the status says the worker was restarted; without one the new worker answered in
  // model mode, as any worker there does.
  const std::string mode = a["configuration"]["mode"];
  EXPECT_TRUE(mode.find("restarted 1 time") != std::string::npos || mode.starts_with("model mode"))
      << mode;
}

TEST(StoryStatus, TheStatusLineStaysShortAndTheSidecarSaysTheMode) {
  const Story story = play("wait\nscreenshot a.png\nscreenshot b.png\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const std::string mode = story.sidecar("a")["configuration"]["mode"];
  EXPECT_FALSE(mode.empty());
  EXPECT_FALSE(shown(story.sidecar("a"), "Copy path"));
  EXPECT_TRUE(
      shown(story.sidecar("b"), "Copy path")); // the first screenshot's path, with its copy button
}

} // namespace
} // namespace wl::viz::test
