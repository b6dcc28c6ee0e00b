// Stories of the panels a launch fills: the memory maps and their selectors, the pad slider,
// divergence, baselines, sweeps, screenshots and exports, the layout, keys and the status line.

#include "report/figures.h"
#include "story_support.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <regex>

#include <unistd.h>

namespace wl::viz::test {
namespace {

using nlohmann::json;

// Every figure a memory map's sidecar shows is a figure of the table (its name, unit and meaning
// defined there once); the rest says which warp the map draws.
void expect_only_table_figures(const json& map) {
  for (const auto& [key, value] : map.items())
    if (key != "site" && key != "block" && key != "warp" && key != "iteration") {
      EXPECT_NE(find_figure(key), nullptr) << key << " is not in tool/report/figures.cpp";
    }
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

// The defects: lanes 10 and up were never numbered, and the legend's grey was drawn in a navy that
// vanished into the background.
TEST(StoryMaps, TheWarpMapNumbersEveryLaneAndShowsUnusedBytesInTheLegendsGrey) {
  const Story story = play("click \"coalescing/stride\"\nwait\nset \"stride\" 2 in \"Launch\"\n"
                           "click \"Global memory\"\nwait\nscreenshot a.png global\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a");
  std::string every_lane = "lanes numbered: 0";
  for (int lane = 1; lane < 32; ++lane)
    every_lane += " " + std::to_string(lane);
  EXPECT_TRUE(says(a, "global", every_lane + "\n")) << text_of(a, "global");
  EXPECT_TRUE(says(a, "global", "grey: fetched, not used")) << text_of(a, "global");
  const Png png = load_png(story.dir / "a.png");
  // Stride 2 leaves half of each fetched sector unused: 8 sectors' worth of grey.
  EXPECT_GT(pixels_of(png.image, 128, 128, 128), 1000);
}

// The defect: numbers cut off without an ellipsis ("4,294,967,29") where a column was too narrow.
TEST(StoryLayout, NoNumberIsCutOffAt1280x720) {
  const Story story = play("window 1280x720\nclick \"matmul/tiled\"\nwait\nscreenshot a.png\n"
                           "click \"Counters\"\nscreenshot b.png counters\n"
                           "click \"Shared memory\"\nscreenshot c.png shared\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  for (const char* name : {"a", "b", "c"})
    EXPECT_EQ(story.sidecar(name)["shown"]["cut_off"], json::array()) << name;
  EXPECT_TRUE(says(story.sidecar("b"), "counters", "4,294,967,296"))
      << text_of(story.sidecar("b"), "counters");
}

// The height in the window where a panel's control sits (-1 when it was not drawn).
int control_y(const json& sidecar, const std::string& label, const std::string& panel) {
  for (const json& c : sidecar["shown"]["controls"])
    if (c["label"] == label && c["panel"] == panel)
      return c["y"];
  return -1;
}

// The defect: at 1280x720 the bank grid and the warp map came after the measured counters, below
// the panel's edge. Their last field (the row right above them) now sits with room for several
// of their rows before the tile below begins (its Timings tab).
TEST(StoryLayout, TheBankGridAndTheWarpMapStartInSightAt1280x720) {
  const Story story = play("window 1280x720\nclick \"transpose/smem\"\nclick \"Shared memory\"\n"
                           "wait\nscreenshot shared.png\nclick \"coalescing/stride\"\n"
                           "click \"Global memory\"\nwait\nscreenshot global.png\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json shared = story.sidecar("shared"), global = story.sidecar("global");
  const int rows = 5 * 20; // five rows of the grid or map, each a line high
  const int tile_below = control_y(shared, "Timings", "");
  ASSERT_GT(tile_below, 0) << shared["shown"]["controls"];
  const int grid_top = control_y(shared, "iteration", "Shared memory");
  EXPECT_GT(grid_top, 0) << shared["shown"]["controls"];
  EXPECT_LT(grid_top + rows, tile_below) << "the bank grid's first rows are below the panel";
  const int map_top = control_y(global, "warp", "Global memory");
  EXPECT_GT(map_top, 0) << global["shown"]["controls"];
  EXPECT_LT(map_top + rows, control_y(global, "Timings", "")) << "the warp map is out of sight";
  // The measured counters follow the grid.
  const std::string text = text_of(shared, "shared");
  EXPECT_LT(text.find("32 wavefronts (ideal 1)"), text.find("Measured wavefronts")) << text;
}

// The defect: at 1280x720 five paragraphs above the roofline chart pushed it out of sight. The
// verdict comes first, then the chart, then the words.
TEST(StoryLayout, TheRooflineChartComesRightAfterItsVerdict) {
  const Story story = play("window 1280x720\nclick \"View\"\nclick \"Roofline\"\n"
                           "click \"matmul/tiled\"\nwait\nscreenshot a.png\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const std::string text = text_of(story.sidecar("a"), "roofline");
  EXPECT_LT(text.find("of the roof over it"), text.find("this launch:")) << text;
  EXPECT_LT(text.find("this launch:"), text.find("FP32 FLOP/s against FLOP per byte")) << text;
}

bool has(const std::string& text, const std::string& words) {
  return text.find(words) != std::string::npos;
}

// The memory chart: opened from the View menu, every link's prediction stands in its table. With a
// real worker, "Count the chart's links" and a Run measure every link beside the model's, with
// why a link differs. In model mode the box is not offered (nothing runs): the recording's
// figures stand where it has them, said to be recorded and without the chart's own counters,
// and its DRAM links' shares of peak come from their bytes over the median time.
TEST(StoryPanels, TheMemoryChartSetsEachLinksMeasuredFigureBesideThePrediction) {
  const std::string open = "window 1280x720\nclick \"View\"\nclick \"Memory chart\"\nwait\n";
  const Story story = play(open + "screenshot before.png memory\n", "--kernel transpose/naive");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json before = story.sidecar("before");
  const std::string b = text_of(before, "memory");
  EXPECT_TRUE(has(b, "| Kernel -> Global | global load instructions |")) << b;
  EXPECT_TRUE(has(b, "| L1/TEX cache -> L2 cache | L1 bytes written to L2 | 2 GiB | 2 GiB |"))
      << "32 bytes a sector of the stores: " << b;
  EXPECT_TRUE(has(b, "| Kernel -> Shared | shared load instructions | 0 | 0 |"))
      << "no shared site in a whole prediction: none predicted: " << b;
  EXPECT_TRUE(has(b, "DRAM bytes read differs from the model:")) << b;
  const std::vector<std::string> controls = labels_shown(before, "Memory chart");
  const bool box =
      std::find(controls.begin(), controls.end(), "Count the chart's links") != controls.end();
  EXPECT_EQ(box, has(b, "Count the chart's links")) << "the box is a control of the panel";
  const std::string mode = before["configuration"]["mode"];
  if (mode.rfind("GPU mode", 0) != 0) {
    EXPECT_FALSE(box) << "nothing runs in model mode";
    EXPECT_TRUE(has(b, "Measured figures recorded on")) << b;
    EXPECT_TRUE(has(b, "recorded without the chart's own counters")) << b;
    EXPECT_TRUE(has(b, "| Device memory -> L2 cache | DRAM bytes read | 281.9 MiB | 256 MiB | "
                       "+10.1 % |"))
        << "the recording's DRAM bytes, their share of peak from the median time: " << b;
    return;
  }
  EXPECT_TRUE(box);
  const Story counted_story =
      play(open + "click \"Count the chart's links\" in \"Memory chart\"\nkey F5\nwait\n"
                  "screenshot counted.png memory\n",
           "--kernel transpose/naive");
  ASSERT_EQ(counted_story.exit_code, 0) << counted_story.output;
  const json counted = counted_story.sidecar("counted");
  EXPECT_TRUE(counted["configuration"]["measure_memory_chart"].get<bool>());
  const std::string c = text_of(counted, "memory");
  EXPECT_TRUE(has(c, "Measured by this run's counters: 16 of 16 links measured.")) << c;
  EXPECT_TRUE(has(c, "| Kernel -> Global | global load instructions | 2,097,152 | 2,097,152 | "
                     "+0.0 % |"))
      << c;
  EXPECT_TRUE(has(c, "| L1/TEX cache -> L2 cache | L1 bytes written to L2 | 2 GiB | 2 GiB |")) << c;
  EXPECT_TRUE(has(c, "DRAM bytes read differs from the model:")) << c;
  EXPECT_TRUE(
      counted["result"]["memory_chart"]["by_ncu_name"].contains("lts__t_sector_hit_rate.pct"))
      << counted["result"];
}

// The defect: a kernel with no shared memory showed empty site and baseline tables in Shared
// memory, the sentence saying why at the bottom, out of sight.
// Where a launch's warps waited and what it cost: in model mode the H200's recording (its stall
// samples and energy, labelled as recorded, no box to tick), on a GPU the boxes ticked and a Run.
// A naive transpose's scattered stores keep its warps waiting to drain at exit either way.
TEST(StoryPanels, TheStallsAndTheEnergySayWhereALaunchWaitedAndWhatItCost) {
  const std::string look = "wait\nscreenshot source.png source\nscreenshot timings.png timings\n"
                           "click \"Counters\"\nscreenshot counters.png counters\n";
  const std::string open = "window 1920x1200\nclick \"Source\"\nclick \"Timings\"\n";
  const std::string options = "--kernel transpose/naive --arch h200";
  const Story first = play(open + "key F5\n" + look, options);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const bool gpu =
      first.sidecar("source")["configuration"]["mode"].get<std::string>().rfind("GPU mode", 0) == 0;
  Story story = first;
  if (gpu) {
    story = play(open +
                     "click \"Sample stalls\" in \"Source\"\n"
                     "click \"Measure energy\" in \"Timings\"\nkey F5\n" +
                     look,
                 options);
    ASSERT_EQ(story.exit_code, 0) << story.output;
  } else {
    EXPECT_FALSE(shown(first.sidecar("source"), "Sample stalls", "Source"))
        << "nothing runs in model mode";
    EXPECT_FALSE(shown(first.sidecar("timings"), "Measure energy", "Timings"));
  }
  const std::string source = flat_text(story.sidecar("source"), "source");
  EXPECT_TRUE(has(source, "Stalls sampled: "))
      << source << "\nstatus: " << text_of(story.sidecar("source"), "status_line")
      << "\nerror: " << story.sidecar("source")["error"] << "\n"
      << story.output;
  EXPECT_TRUE(has(source, "samples; most on drain (")) << source;
  EXPECT_EQ(has(source, "(recorded on NVIDIA H200, 2026-12-04, model mode: nothing ran here)"),
            !gpu)
      << source;
  const std::string timings = flat_text(story.sidecar("timings"), "timings");
  EXPECT_TRUE(has(timings, "| energy per launch | ")) << timings;
  EXPECT_TRUE(has(timings, "| mean power | ")) << timings;
  EXPECT_EQ(has(timings, "Timing recorded on NVIDIA H200"), !gpu) << timings;
  const std::string counters = flat_text(story.sidecar("counters"), "counters");
  EXPECT_TRUE(has(counters, "| drain | ")) << counters;
  EXPECT_TRUE(has(counters, "| long_scoreboard | ")) << counters;
}

TEST(StoryMaps, AKernelWithoutSharedMemorySaysSoFirstWithNoEmptyTables) {
  const Story story = play("window 1280x720\nclick \"vec_add/scalar\"\nwait\nkey B\n"
                           "click \"Shared memory\"\nwait\nscreenshot a.png\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const std::string text = text_of(story.sidecar("a"), "shared");
  EXPECT_EQ(text.rfind("This kernel uses no shared memory.", 0), 0u) << text;
  EXPECT_EQ(text.find("| site |"), std::string::npos) << text;
  EXPECT_EQ(text.find("Modelled, against the baseline"), std::string::npos) << text;
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
  // The defect: the grid's note said "the whole warp is one transaction" under a 32-way conflict.
  EXPECT_TRUE(says(a, "shared", "bank conflict")) << text_of(a, "shared");
  EXPECT_FALSE(says(a, "shared", "one transaction")) << text_of(a, "shared");
}

TEST(StoryDivergence, TheTreeOfAReductionShowsInItsPanel) {
  const Story story = play("click \"reduce_sum/interleaved\"\nwait\nclick \"Divergence\"\nset "
                           "\"warp\" 1 in \"Divergence\"\n"
                           "wait\nscreenshot a.png divergence\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a");
  EXPECT_EQ(a["screenshot"]["panel"], "divergence");
  EXPECT_TRUE(shown(a, "warp", "Divergence"));
  // The defect: "32.0 of 32 lanes, 99.9 %" stood unexplained above a comb falling to 1 lane.
  EXPECT_TRUE(says(a, "divergence", "1 of 32 lanes")) << text_of(a, "divergence");
  if (says(a, "divergence", "lanes active on average")) {
    EXPECT_TRUE(says(a, "divergence", "the average stays high")) << text_of(a, "divergence");
  }
}

// The defects: the baseline's label left out the parameters (stride 1 and stride 2 read the same),
// and in model mode the modelled sectors had no baseline to compare with.
TEST(StoryBaseline, PinCompareAndTheLabelNamesTheParameters) {
  const Story story = play("click \"coalescing/stride\"\nwait\nclick \"Pin as baseline (B)\"\n"
                           "set \"stride\" 2 in \"Launch\"\nwait\nscreenshot a.png timings\n"
                           "click \"Global memory\"\nscreenshot b.png global\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a"), b = story.sidecar("b");
  ASSERT_TRUE(a["baseline"].is_object());
  EXPECT_EQ(a["baseline"]["params"]["stride"], 1);
  EXPECT_EQ(a["result"]["params"]["stride"], 2);
  EXPECT_TRUE(says(a, "timings", "stride=1")) << text_of(a, "timings");
  EXPECT_TRUE(says(b, "global", "against the baseline")) << text_of(b, "global");
  EXPECT_TRUE(says(b, "global", "+100.0 %")) << text_of(b, "global"); // twice the load sectors
}

// The defect: at 1280x720, after the pin the Launch panel scrolled to the baseline's line and
// jumped back on the next mouse event, so the next click missed its field; the digits typed then
// acted as panel keys, and the script still exited 0 with stride 1.
TEST(StoryBaseline, AFieldSetAfterThePinAtTheSmallestWindowTakesItsValue) {
  const Story story = play("window 1280x720\nclick \"coalescing/stride\"\nwait\n"
                           "click \"Pin as baseline (B)\"\nset \"stride\" 32\nwait\n"
                           "screenshot a.png\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a");
  EXPECT_EQ(a["configuration"]["params"]["stride"], 32);
  EXPECT_EQ(a["baseline"]["params"]["stride"], 1);
  for (const char* panel : {"timings", "occupancy"}) // no digit closed a panel
    EXPECT_TRUE(a["configuration"]["panels_open"][panel].get<bool>()) << panel;
}

// A click its control never feels fails the script instead of passing for done: with Live off
// and the block changed, the pin is disabled (the launch on screen was not run).
TEST(StoryScript, AClickOnADisabledControlFailsTheScript) {
  const Story story = play("click \"vec_add/scalar\"\nwait\nkey L\nset \"block\" 128\n"
                           "click \"Pin as baseline (B)\"\n");
  EXPECT_EQ(story.exit_code, 2) << story.output;
  EXPECT_NE(story.output.find("did not respond"), std::string::npos) << story.output;
}

// The defect: pinning transpose/smem and choosing smem_padded warned "compares different work"
// for the same transpose of the same matrix.
TEST(StoryBaseline, AnotherVariantOfTheSameWorkIsSaidToBeOne) {
  const Story story = play("click \"transpose/smem\"\nwait\nclick \"Pin as baseline (B)\"\n"
                           "click \"transpose/smem_padded\"\nwait\nscreenshot a.png timings\n"
                           "click \"vec_add/scalar\"\nwait\nscreenshot b.png timings\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a"), b = story.sidecar("b");
  EXPECT_TRUE(says(a, "timings", "another variant of the same work")) << text_of(a, "timings");
  EXPECT_FALSE(says(a, "timings", "different work")) << text_of(a, "timings");
  EXPECT_TRUE(says(b, "timings", "compares different work")) << text_of(b, "timings");
}

// The defect: in model mode the Source panel called a baseline from the H100 recording
// "baseline measured", as if this machine had measured it.
TEST(StoryBaseline, ARecordedBaselineIsSaidToBeRecorded) {
  const Story story = play("click \"vec_add/scalar\"\nwait\nclick \"Pin as baseline (B)\"\n"
                           "click \"Source\"\nscreenshot a.png source\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a");
  if (a["figures"]["recorded_on"].get<std::string>().empty())
    GTEST_SKIP() << "measured here: the baseline is this machine's";
  EXPECT_TRUE(says(a, "source", "baseline recorded")) << text_of(a, "source");
  EXPECT_FALSE(says(a, "source", "baseline measured")) << text_of(a, "source");
}

TEST(StoryBaseline, TheBKeyPinsAndClearRemoves) {
  const Story story = play(
      "click \"softmax/naive\"\nwait\nkey B\nclick \"softmax/block_tree\"\nwait\nscreenshot a.png\n"
      "click \"Clear baseline\"\nwait\nscreenshot b.png\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  EXPECT_EQ(story.sidecar("a")["baseline"]["kernel"], "softmax/naive");
  EXPECT_TRUE(story.sidecar("b")["baseline"].is_null());
  // The defect: "speed-up 0.00x" and "-0.0 points" for changes too small or too large to print.
  for (const char* panel : {"timings", "occupancy"}) {
    EXPECT_FALSE(says(story.sidecar("a"), panel, "0.00x")) << text_of(story.sidecar("a"), panel);
    EXPECT_FALSE(says(story.sidecar("a"), panel, "-0.0 points"))
        << text_of(story.sidecar("a"), panel);
  }
}

// The defect: a change too large or too small to print read "speed-up 0.00x" and "-0.0 points".
TEST(StoryBaseline, ChangesTooLargeOrTooSmallToPrintStillReadAsFigures) {
  const Story story =
      play("click \"vec_add/scalar\"\nwait\nclick \"Pin as baseline (B)\"\nclick \"matmul/tiled\"\n"
           "wait\nscreenshot a.png timings\nclick \"Pin as baseline (B)\"\n"
           "click \"matmul/naive\"\nset \"block\" 16x16 in \"Launch\"\nwait\n"
           "screenshot b.png occupancy\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a"), b = story.sidecar("b");
  EXPECT_EQ(a["baseline"]["kernel"], "vec_add/scalar");
  EXPECT_TRUE(says(a, "timings", "speed-up")) << text_of(a, "timings");
  EXPECT_FALSE(says(a, "timings", "0.00x")) << text_of(a, "timings");
  EXPECT_EQ(b["baseline"]["kernel"], "matmul/tiled");
  EXPECT_FALSE(says(b, "occupancy", "-0.0 points")) << text_of(b, "occupancy");
  // A baseline of another kernel is compared with a word about what that comparison means.
  EXPECT_TRUE(says(a, "timings", "The baseline is another kernel (vec_add/scalar)"))
      << text_of(a, "timings");
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
  // The defects: a chart drawn by index with no axis or values, no colour bar, a ties note on a
  // model sweep, and the launch on screen not marked.
  const std::string text = text_of(story.sidecar("a"), "sweep");
  EXPECT_NE(text.find("against block x (threads)"), std::string::npos) << text;
  EXPECT_NE(text.find("best 100.000  to  worst"), std::string::npos) << text;
  EXPECT_NE(text.find("the launch on screen"), std::string::npos) << text;
  EXPECT_EQ(text.find("tied"), std::string::npos) << text;
}

// The defects: a 1D sweep drew refused shapes as silent gaps, and its legend named colours
// ("orange", "Blue outline") rather than showing the marks.
TEST(StorySweep, A1DSweepCountsTheShapesItRefused) {
  const Story story = play("window 1280x720\nclick \"vec_add/scalar\"\nwait\nclick \"Sweep\"\n"
                           "set \"block x\" \"32,64,128,256,512,1024,2048,4096\" in \"Sweep\"\n"
                           "click \"Model sweep\"\nwait\nscreenshot a.png sweep\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a");
  EXPECT_EQ(a["shown"]["sweep"]["allowed"], 6);
  EXPECT_TRUE(says(a, "sweep", "2 of 8 points not allowed for this kernel")) << text_of(a, "sweep");
  EXPECT_FALSE(says(a, "sweep", "orange")) << text_of(a, "sweep");
  EXPECT_FALSE(says(a, "sweep", "Blue outline")) << text_of(a, "sweep");
  EXPECT_EQ(a["shown"]["cut_off"], json::array());
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
    EXPECT_TRUE(says(story.sidecar("c" + std::to_string(i)), "sweep", "} colour by"));
    EXPECT_EQ(sweep["points"], 9);
    const std::vector<std::string> offered = sweep["offered"];
    EXPECT_EQ(std::count(offered.begin(), offered.end(), "median time (ms)"), 0);
    EXPECT_EQ(std::count(offered.begin(), offered.end(), "throughput (GB/s)"), 0);
    EXPECT_EQ(std::count(offered.begin(), offered.end(), "modelled time at peak (ms)"), 1)
        << "a time a model sweep has: labelled as the model's";
  }
  // The defect: sectors per request were coloured with 1x1 as best, not against the ideal.
  EXPECT_TRUE(says(story.sidecar("c1"), "sweep", "times the ideal for the access width"))
      << text_of(story.sidecar("c1"), "sweep");
}

// Every variant: the family's ladder at the size on screen, a bar per variant with what it is,
// the one refusing the size with its reason; a click on a bar opens that variant at that size.
TEST(StorySweep, EveryVariantShowsTheLadderAndABarOpensItsVariant) {
  const Story story = play("window 1280x720\nclick \"softmax/block_tree\"\nwait\n"
                           "click \"Sweep\"\nclick \"Every variant\" in \"Sweep\"\nwait\n"
                           "screenshot a.png sweep\nclick \"softmax/block_shared\" in \"Sweep\"\n"
                           "wait\nscreenshot b.png\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a");
  const json variants = a["shown"]["sweep"]["variants"];
  ASSERT_TRUE(variants.is_object()) << a["shown"]["sweep"].dump().substr(0, 400);
  EXPECT_EQ(variants["family"], "softmax");
  EXPECT_EQ(variants["size"], (json{{"rows", 8192}, {"cols", 8192}}));
  ASSERT_EQ(variants["variants"].size(), 7u);
  for (const json& v : variants["variants"]) {
    EXPECT_FALSE(v["title"].get<std::string>().empty()) << v;
    if (v["kernel"] == "softmax/warp_registers")
      EXPECT_TRUE(wl::test::contains(v["refused"], "cols is at most 1024")) << v;
    else
      EXPECT_GT(v.value("modelled_time", 0.0), 0) << v;
  }
  EXPECT_TRUE(says(a, "sweep", "every variant of softmax at rows=8192 cols=8192"))
      << text_of(a, "sweep");
  EXPECT_TRUE(says(a, "sweep", "a floor the models see")) << text_of(a, "sweep");
  EXPECT_EQ(a["shown"]["cut_off"], json::array());
  const json b = story.sidecar("b");
  EXPECT_EQ(b["result"]["kernel"], "softmax/block_shared");
  EXPECT_EQ(b["result"]["params"]["cols"], 8192);
}

// A file of `warplens sweep FAMILY --variants --json` opens in the Sweep panel with its kernel on
// screen; a file naming a kernel of another family is refused in one line.
TEST(StorySweep, AVariantSweepFileOpensItsLadder) {
  // Beside the story's folder, which each play empties.
  const std::filesystem::path dir = scratch_dir().string() + "-files";
  std::filesystem::create_directories(dir);
  const wl::test::CommandResult written =
      wl::test::run_warplens("sweep reduce_sum --variants --model --force --json '" +
                             (dir / "variants.json").string() + "'");
  ASSERT_EQ(written.exit_code, 0) << written.out;
  const Story shown = play("wait\nscreenshot a.png sweep\n",
                           "--sweep-json '" + (dir / "variants.json").string() + "'");
  ASSERT_EQ(shown.exit_code, 0) << shown.output;
  const json a = shown.sidecar("a");
  EXPECT_EQ(a["shown"]["sweep"]["variants"]["family"], "reduce_sum");
  EXPECT_EQ(a["shown"]["sweep"]["variants"]["variants"].size(), 5u);
  EXPECT_TRUE(wl::test::contains(a["shown"]["sweep"]["variants"]["origin"], "modelled"));
  EXPECT_TRUE(a["result"]["kernel"].get<std::string>().starts_with("reduce_sum/"));
  std::ifstream file(dir / "variants.json");
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  text.replace(text.find("\"kernel\": \"reduce_sum/sequential\""),
               std::string("\"kernel\": \"reduce_sum/sequential\"").size(),
               "\"kernel\": \"softmax/online\"");
  write_file(dir / "other.json", text);
  const Story refused =
      play("screenshot a.png\n", "--sweep-json '" + (dir / "other.json").string() + "'");
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_TRUE(wl::test::contains(refused.output, "'softmax/online' is not a variant of reduce_sum"))
      << refused.output;
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

// The defect: the sweep's sides stayed 32:1024:32 x 1 for every kernel, so a first sweep of a
// kernel that needs a 2D block refused every shape.
TEST(StorySweep, AFirstSweepUsesSidesTheKernelAllows) {
  const Story story = play("click \"matmul/tiled\"\nwait\nclick \"Sweep\"\n"
                           "click \"Model sweep\"\nwait\nscreenshot a.png sweep\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json sweep = story.sidecar("a")["shown"]["sweep"];
  EXPECT_EQ(sweep["kernel"], "matmul/tiled");
  EXPECT_GT(sweep["allowed"].get<int>(), 0) << sweep;
}

TEST(StorySweep, ASweepOfRefusedShapesNamesItsKernelAndWhy) {
  const Story story = play(
      "click \"transpose/smem\"\nwait\nclick \"Sweep\"\nset \"block x\" \"16,48\" in \"Sweep\"\n"
      "click \"Model sweep\"\nwait\nscreenshot a.png sweep\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json sweep = story.sidecar("a")["shown"]["sweep"];
  EXPECT_EQ(sweep["kernel"], "transpose/smem");
  EXPECT_EQ(sweep["allowed"], 0);
  // The defect: the panel said kernel "?" and gave a reason that was not the kernel's.
  EXPECT_TRUE(says(story.sidecar("a"), "sweep", "transpose/smem needs a 2D block 32 wide"))
      << text_of(story.sidecar("a"), "sweep");
}

TEST(StorySweep, AnotherKernelClearsTheOldSweep) {
  const Story story =
      play("click \"vec_add/scalar\"\nwait\nclick \"Sweep\"\nclick \"Model sweep\"\nwait\n"
           "click \"softmax/naive\"\nwait\nscreenshot a.png sweep\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  EXPECT_FALSE(story.sidecar("a")["shown"]["sweep"].contains("points"));
  EXPECT_EQ(story.sidecar("a")["configuration"]["status"],
            "The sweep of vec_add/scalar was closed with its kernel"); // said, not silent
}

// The coalescing lesson's chart, made in the panel: stride 1 to 32 at one block, coloured by
// sectors per request; a point clicked loads that stride.
TEST(StorySweep, AParameterSweepDrawsAFigureAgainstThatParameter) {
  const Story story =
      play("window 1280x720\nclick \"coalescing/stride\"\nwait\nclick \"Sweep\"\n"
           "set \"block x\" \"256\" in \"Sweep\"\nclick \"parameter\" in \"Sweep\"\n"
           "click \"stride\" in \"Sweep\"\nset \"values\" \"1:32:1\" in \"Sweep\"\n"
           "click \"Model sweep\"\nwait\nclick \"figure\" in \"Sweep\"\n"
           "click \"sectors per request\"\nscreenshot a.png sweep\n"
           "click \"stride=8\" in \"Sweep\"\nwait\nscreenshot b.png\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a");
  EXPECT_EQ(a["shown"]["sweep"]["points"], 32);
  EXPECT_EQ(a["shown"]["sweep"]["axes"]["x"], "stride");
  EXPECT_EQ(a["shown"]["sweep"]["axes"]["y"], "");
  EXPECT_TRUE(says(a, "sweep", "sectors per request against stride")) << text_of(a, "sweep");
  EXPECT_TRUE(says(a, "sweep", "Columns: stride.")) << text_of(a, "sweep");
  EXPECT_EQ(a["shown"]["cut_off"], json::array());
  const json b = story.sidecar("b")["configuration"];
  EXPECT_EQ(b["params"]["stride"], 8);
  EXPECT_EQ(b["block"], "256");
}

// The bank-conflict lesson over blocks too: pad rows against block x columns; a cell loads both.
TEST(StorySweep, AParameterAndBlockSweepIsAHeatmapAndACellLoadsBoth) {
  const Story story =
      play("click \"bank_conflicts/padded\"\nwait\nclick \"Sweep\"\n"
           "set \"block x\" \"32,64,128,256\" in \"Sweep\"\nclick \"parameter\" in \"Sweep\"\n"
           "click \"pad\" in \"Sweep\"\nset \"values\" \"0:8:1\" in \"Sweep\"\n"
           "click \"Model sweep\"\nwait\nscreenshot a.png sweep\n"
           "click \"block x=64, pad=2\" in \"Sweep\"\nwait\nscreenshot b.png\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json sweep = story.sidecar("a")["shown"]["sweep"];
  EXPECT_EQ(sweep["points"], 36);
  EXPECT_EQ(sweep["axes"]["x"], "block.x");
  EXPECT_EQ(sweep["axes"]["y"], "pad");
  EXPECT_TRUE(says(story.sidecar("a"), "sweep", "Columns: block x; rows: pad."));
  const json b = story.sidecar("b")["configuration"];
  EXPECT_EQ(b["params"]["pad"], 2);
  EXPECT_EQ(b["block"], "64");
}

// The defects: choosing width offered 4:16:1 (5 to 15 refused), and a refusal about the last
// parameter stayed under the new one.
TEST(StorySweep, ChoosingAParameterOffersValuesItAllowsAndClearsTheOldRefusal) {
  const Story story = play(
      "click \"coalescing/stride\"\nwait\nclick \"Sweep\"\nset \"block x\" \"256\" in \"Sweep\"\n"
      "click \"parameter\" in \"Sweep\"\nclick \"stride\" in \"Sweep\"\n"
      "set \"values\" \"0:4:1\" in \"Sweep\"\nclick \"Model sweep\"\nscreenshot a.png sweep\n"
      "click \"parameter\" in \"Sweep\"\nclick \"width\" in \"Sweep\"\nscreenshot b.png sweep\n"
      "click \"Model sweep\"\nwait\nscreenshot c.png sweep\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  EXPECT_NE(story.sidecar("a")["shown"]["sweep"]["problem"], "");
  const json b = story.sidecar("b")["shown"]["sweep"];
  EXPECT_EQ(b["param_values"], "4,8,16");
  EXPECT_EQ(b["problem"], "");
  const json c = story.sidecar("c")["shown"]["sweep"];
  EXPECT_EQ(c["points"], 3);
  EXPECT_EQ(c["allowed"], 3);
  EXPECT_EQ(c["axes"]["x"], "width");
}

// Enter in the values field sweeps; Measure sweep where nothing measures says it modelled.
TEST(StorySweep, EnterInTheValuesSweepsAndAModelledMeasureSweepSaysSo) {
  const Story story = play(
      "click \"coalescing/stride\"\nwait\nclick \"Sweep\"\nset \"block x\" \"256\" in \"Sweep\"\n"
      "click \"parameter\" in \"Sweep\"\nclick \"stride\" in \"Sweep\"\n"
      "set \"values\" \"1,2,3\" in \"Sweep\"\nwait\nscreenshot a.png sweep\n"
      "click \"Measure sweep\"\nwait\nscreenshot b.png\n",
      "--model");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  EXPECT_EQ(story.sidecar("a")["shown"]["sweep"]["points"], 3) << "set types Enter after the text";
  EXPECT_EQ(story.sidecar("b")["configuration"]["status"],
            "Measure sweep: the models' figures; nothing was measured (no GPU here)");
}

// The defect: a parameter sweep opened on theoretical occupancy, a flat line over every stride.
// Unless the person chose a figure, a sweep shows one that varies across it, and a per-request
// figure names the site it is of.
TEST(StorySweep, AParameterSweepOpensOnAFigureThatVariesAndNamesItsSite) {
  const Story story =
      play("click \"coalescing/stride\"\nwait\nclick \"Sweep\"\n"
           "set \"block x\" \"256\" in \"Sweep\"\nclick \"parameter\" in \"Sweep\"\n"
           "click \"stride\" in \"Sweep\"\nset \"values\" \"1,2,4,8,32\" in \"Sweep\"\n"
           "click \"Model sweep\"\nwait\nscreenshot a.png sweep\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a");
  EXPECT_NE(a["shown"]["sweep"]["metric"], "theoretical occupancy (%)");
  EXPECT_EQ(a["shown"]["sweep"]["metric"], "sectors per request");
  EXPECT_TRUE(says(a, "sweep", "of the worst site, \"load in (strided)\"")) << text_of(a, "sweep");
}

// The defect: a parameter typed for one kernel was back at its default after a look at another.
TEST(StoryLaunch, AKernelLeftAndChosenAgainKeepsItsParametersAndBlock) {
  const Story story = play("click \"coalescing/stride\"\nwait\nset \"stride\" 4 in \"Launch\"\n"
                           "set \"block\" 128 in \"Launch\"\nwait\nclick \"vec_add/scalar\"\nwait\n"
                           "click \"coalescing/stride\"\nwait\nscreenshot a.png\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a")["configuration"];
  EXPECT_EQ(a["params"]["stride"], 4);
  EXPECT_EQ(a["block"], "128");
}

// The defect: sides typed for one kernel carried over to a kernel that refuses every one of them.
TEST(StorySweep, TypedSidesNoBlockOfTheNextKernelTakesAreReplacedAndSaid) {
  const Story story = play("click \"vec_add/scalar\"\nwait\nclick \"Sweep\"\n"
                           "set \"block x\" \"64,128\" in \"Sweep\"\nclick \"matmul/tiled\"\nwait\n"
                           "screenshot a.png sweep\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a")["configuration"];
  EXPECT_NE(a["status"].get<std::string>().find("allow no block of matmul/tiled"),
            std::string::npos)
      << a["status"];
}

// The defect: a sweep along three axes showed the slice at the first point's value only: the
// tile=32 slice of a tile sweep could not be shown.
TEST(StorySweep, AnySliceOfASweepAlongThreeAxesCanBeShown) {
  const Story story =
      play("click \"matmul/tiled\"\nwait\nclick \"Sweep\"\nset \"block x\" \"16,32\" in \"Sweep\"\n"
           "set \"block y\" \"16,32\" in \"Sweep\"\nclick \"parameter\" in \"Sweep\"\n"
           "click \"tile\" in \"Sweep\"\nset \"values\" \"16,32\" in \"Sweep\"\n"
           "click \"Model sweep\"\nwait\nscreenshot a.png sweep\n"
           "click \"tile\" in \"Sweep\"\nclick \"32\" in \"Sweep\"\nscreenshot b.png sweep\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a")["shown"]["sweep"], b = story.sidecar("b")["shown"]["sweep"];
  EXPECT_EQ(a["axes"]["held"], json::array({"tile"})) << a;
  EXPECT_EQ(b["axes"]["held_at"]["tile"], 32) << b;
}

TEST(StorySweep, ParameterValuesOutOfRangeAreRefusedBesideTheFields) {
  const Story story = play(
      "click \"bank_conflicts/padded\"\nwait\nclick \"Sweep\"\n"
      "click \"parameter\" in \"Sweep\"\nclick \"pad\" in \"Sweep\"\n"
      "set \"values\" \"0:99:1\" in \"Sweep\"\nclick \"Model sweep\"\nscreenshot a.png sweep\n"
      "set \"values\" \"1e999\" in \"Sweep\"\nclick \"Model sweep\"\nscreenshot b.png sweep\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a")["shown"]["sweep"];
  EXPECT_EQ(a["problem"],
            "pad values '0:99:1': the end 99 is too large; allowed whole numbers from 0 to 32");
  EXPECT_FALSE(a.contains("points")) << "nothing swept";
  EXPECT_TRUE(says(story.sidecar("a"), "sweep", "the end 99 is too large"));
  EXPECT_NE(story.sidecar("b")["shown"]["sweep"]["problem"].get<std::string>().find("'1e999'"),
            std::string::npos);
}

// The lesson's two figures on one chart: the second on an axis of its own, named in the note.
// The defect: a model sweep whose figure never changes (transpose/smem's occupancy over block y)
// drew one flat colour and line, best 100 to worst 100, without a word.
TEST(StorySweep, AFigureThatNeverChangesAcrossTheSweepIsSaidSo) {
  const Story story = play("click \"Sweep\"\nclick \"Model sweep\"\nwait\nscreenshot a.png sweep\n",
                           "--model --kernel transpose/smem");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a");
  EXPECT_TRUE(says(a, "sweep", "Every point has the same theoretical occupancy"))
      << text_of(a, "sweep");
}

TEST(StorySweep, A1DSweepDrawsASecondFigureOnItsOwnAxis) {
  const Story story =
      play("click \"coalescing/stride\"\nwait\nclick \"Sweep\"\n"
           "set \"block x\" \"256\" in \"Sweep\"\nclick \"parameter\" in \"Sweep\"\n"
           "click \"stride\" in \"Sweep\"\nset \"values\" \"1,2,4,8\" in \"Sweep\"\n"
           "click \"Model sweep\"\nwait\nclick \"figure\" in \"Sweep\"\n"
           "click \"sectors per request\"\nclick \"second figure\" in \"Sweep\"\n"
           "click \"theoretical occupancy (%)\"\nscreenshot a.png sweep\n"
           "click \"second figure\" in \"Sweep\"\nclick \"none\"\nscreenshot b.png sweep\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a");
  EXPECT_EQ(a["shown"]["sweep"]["second"], "theoretical occupancy (%)");
  EXPECT_TRUE(
      says(a, "sweep",
           "sectors per request (left) and theoretical occupancy (%) (right) against stride"))
      << text_of(a, "sweep");
  EXPECT_EQ(a["shown"]["cut_off"], json::array());
  EXPECT_EQ(story.sidecar("b")["shown"]["sweep"]["second"], "");
  EXPECT_TRUE(says(story.sidecar("b"), "sweep", "sectors per request against stride"));
  // A line chart draws its figure along y: its list is "figure", not a heatmap's "colour by".
  EXPECT_TRUE(says(a, "sweep", "{ sectors per request } figure")) << text_of(a, "sweep");
  EXPECT_FALSE(says(a, "sweep", "colour by")) << text_of(a, "sweep");
}

// An open list lies above the panels: its "stride" is clicked, not the Launch panel's field of
// that name, as a person would.
TEST(StorySweep, AClickOnALabelInAnOpenListChoosesTheListItem) {
  const Story story = play("click \"coalescing/stride\"\nwait\nclick \"Sweep\"\n"
                           "click \"parameter\" in \"Sweep\"\nclick \"stride\"\n"
                           "screenshot a.png sweep\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  EXPECT_EQ(story.sidecar("a")["shown"]["sweep"]["param"], "stride");
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

// The defect: a panel's picture cut at the window's bottom (the bank grid at 1280x720) said only
// "saved"; the status line says it was cut, how tall the panel is and what takes it whole.
TEST(StoryScreenshots, APanelPictureCutAtTheWindowSaysSo) {
  // A window small enough to cut the panel whatever the font (the GPU machine has only ImGui's).
  const Story story = play("window 640x360\nclick \"bank_conflicts/padded\"\nwait\n"
                           "click \"Shared memory\"\nscreenshot a.png shared\nscreenshot b.png\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a"), b = story.sidecar("b");
  ASSERT_FALSE(a["screenshot"]["whole"].get<bool>()) << a["screenshot"];
  // The whole status (the line on screen is cut to the window's width).
  const std::string status = b["configuration"]["status"];
  EXPECT_NE(status.find("screenshot cut: the Shared memory panel is "), std::string::npos)
      << status;
  EXPECT_NE(status.find("a larger window"), std::string::npos) << status;
}

// The defect: the block-size impact curve drew peaks at sizes the kernel refuses; matmul/tiled
// takes a block of tile x tile threads alone, so at tile 16 its curve is the one point 256.
TEST(StoryOccupancy, TheBlockSizeCurveHasOnlyTheSizesTheKernelAllows) {
  const Story story = play("click \"matmul/tiled\"\nwait\nscreenshot a.png occupancy\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a");
  ASSERT_EQ(a["configuration"]["params"]["tile"], 16);
  const json curve = a["figures"]["impact_curves_current"]["block_size"];
  ASSERT_TRUE(curve.is_object()) << curve;
  EXPECT_EQ(curve["points"], 1) << curve;
  EXPECT_EQ(curve["x"], 256) << curve;
  // One point is no curve: the box says why it is empty rather than stay blank.
  EXPECT_TRUE(says(a, "occupancy", "no other block size fits this launch's parameters"))
      << text_of(a, "occupancy");
}

// The defect: back from pad 0 (a 32-way conflict, 32 rows of wavefronts) to pad 1 (one row) the
// panel lost 290 px and pulled the pad field above the grid away from the pointer: a person
// toggling the pad to compare the two lost their place. The grid keeps its tallest height, so the
// panel never shrinks back.
TEST(StorySharedMemory, TheBankGridKeepsItsHeightWhenThePadChangesBack) {
  const Story story = play("click \"bank_conflicts/padded\"\nwait\nclick \"Shared memory\"\n"
                           "screenshot a.png shared\nset \"pad\" 0 in \"Launch\"\nwait\n"
                           "screenshot b.png shared\nset \"pad\" 1 in \"Launch\"\nwait\n"
                           "screenshot c.png shared\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a"), b = story.sidecar("b"), c = story.sidecar("c");
  EXPECT_EQ(a["configuration"]["params"]["pad"], 1);
  EXPECT_EQ(b["configuration"]["params"]["pad"], 0);
  EXPECT_EQ(c["configuration"]["params"]["pad"], 1);
  EXPECT_GT(b["screenshot"]["content_height"], a["screenshot"]["content_height"]);
  EXPECT_GE(c["screenshot"]["content_height"], b["screenshot"]["content_height"]);
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

// The defect: a tooltip was one unwrapped line running off the screen.
TEST(StoryLayout, ATooltipIsWrappedAndOnScreen) {
  const Story story = play("window 1280x720\nclick \"Sweep\"\n"
                           "hover \"Model sweep\" in \"Sweep\"\nscreenshot a.png\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json tip = story.sidecar("a")["shown"]["tooltip"];
  ASSERT_TRUE(tip.is_object()) << story.sidecar("a")["shown"];
  const std::string text = tip["text"];
  EXPECT_GT(text.size(), 80u) << text; // one line of it would be far wider than the tooltip
  EXPECT_LE(tip["x1"].get<int>() - tip["x0"].get<int>(), 600) << tip;
  EXPECT_GE(tip["x0"].get<int>(), 0) << tip;
  EXPECT_LE(tip["x1"].get<int>(), 1280) << tip;
  EXPECT_LE(tip["y1"].get<int>(), 720) << tip;
}

// The defect: key 8 closed the Sweep panel, open behind the Timings tab, when a person pressed it
// to see the sweep.
TEST(StoryLayout, APanelsKeyBringsItToTheFrontAndClosesItWhenInFront) {
  const Story story = play("wait\nkey 8\nscreenshot front.png\nkey 8\nscreenshot closed.png\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  EXPECT_TRUE(story.sidecar("front")["configuration"]["panels_open"]["sweep"].get<bool>());
  EXPECT_TRUE(shown(story.sidecar("front"), "Model sweep")); // its controls are in sight
  EXPECT_FALSE(story.sidecar("closed")["configuration"]["panels_open"]["sweep"].get<bool>());
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

// An edit step changes one place a person means: text that is not in the file, that is in it
// twice (the first used to be changed by chance), or a file that is not there stops the script
// with one line, and the file is left as it was.
TEST(StoryScript, AnEditThatCannotMeanOnePlaceStopsAndLeavesTheFile) {
  const std::filesystem::path file = scratch_dir().string() + "-edit.txt";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"edit " + file.string() + " \"absent\" \"x\"\n", "\"absent\" is not in"},
      {"edit " + file.string() + " \"one\" \"x\"\n", "more than once (lines 1 and 2)"},
      {"edit " + file.string() + ".missing \"one\" \"x\"\n",
       "no such file; the file to edit must be a text file"}};
  for (const auto& [script, says] : cases) {
    write_file(file, "one two\none three\n");
    const Story story = play(script, "--model");
    EXPECT_EQ(story.exit_code, 2) << story.output;
    EXPECT_NE(story.output.find("story.txt:1: edit: "), std::string::npos) << story.output;
    EXPECT_NE(story.output.find(says), std::string::npos) << story.output;
    EXPECT_EQ(std::count(story.output.begin(), story.output.end(), '\n'), 1) << story.output;
    std::ifstream in(file);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "one two\none three\n");
  }
  std::filesystem::remove(file);
}

// A quoted text may span lines: \n is a line break, \t a tab, \" a quote, \\ a backslash.
TEST(StoryScript, AnEditWritesLineBreaksTabsQuotesAndBackslashes) {
  const std::filesystem::path file = scratch_dir().string() + "-lines.txt";
  write_file(file, "one two\n");
  const Story story =
      play("edit " + file.string() + " \"two\" \"two\\nthree\\t\\\"four\\\" \\\\n\"\n", "--model");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  std::ifstream in(file);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "one two\nthree\t\"four\" \\n\n");
  // Any other escape was changed without a word ("\q" into "q"): refused, the file as it was.
  const Story other = play("edit " + file.string() + " \"two\" \"t\\qo\"\n", "--model");
  EXPECT_EQ(other.exit_code, 2) << other.output;
  EXPECT_NE(other.output.find("'\\q' in a quoted text; allowed \\n"), std::string::npos)
      << other.output;
  std::ifstream again(file);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(again), {}),
            "one two\nthree\t\"four\" \\n\n");
  std::filesystem::remove(file);
}

TEST(StoryScript, ALabelNotOnScreenStopsWithTheLineAndWhatIsThere) {
  const Story story = play("wait\nclick \"No such button\"\n");
  EXPECT_EQ(story.exit_code, 2) << story.output;
  EXPECT_NE(story.output.find("story.txt:2"), std::string::npos) << story.output;
  EXPECT_NE(story.output.find("No such button"), std::string::npos) << story.output;
  EXPECT_NE(story.output.find("Run (F5)"), std::string::npos) << story.output;
  EXPECT_EQ(std::count(story.output.begin(), story.output.end(), '\n'), 1) << story.output;
}

// A long refusal under the block field leaves the Launch panel scrolled down past the kernel tree
// (a child window of its own): the next click scrolls the panel back, as a person would, instead
// of the tree.
TEST(StoryScript, ATreeRowScrolledOutWithItsPanelIsReachedByScrollingThePanel) {
  const Story story = play("window 1280x720\nclick \"matmul/tiled\"\n"
                           "set \"block\" 32x32 in \"Launch\"\nwait\n"
                           "click \"vec_add/scalar\"\nwait\nscreenshot a.png\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  EXPECT_EQ(story.sidecar("a")["configuration"]["kernel"], "vec_add/scalar");
}

// Typing into the arch combo would change nothing and pass for done.
TEST(StoryScript, SettingAComboStopsAndSaysToClickIt) {
  const Story story = play("wait\nset \"arch\" a100 in \"Launch\"\n");
  EXPECT_EQ(story.exit_code, 2) << story.output;
  EXPECT_NE(story.output.find("story.txt:2: set: \"arch\" is not a field to type into; click it, "
                              "then click the item"),
            std::string::npos)
      << story.output;
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
  WL_SKIP_WITHOUT_ENGINE(); // a real worker
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

// A worker (the real one, its answer rewritten by wl_fault_proxy) that says the launch holds 9999
// blocks per SM: the GUI shows the refusal and its reason, never the figure.
TEST(StoryScript, AnImpossibleAnswerIsRefusedWithTheReasonOnScreen) {
  WL_SKIP_WITHOUT_ENGINE(); // a real worker
  const std::filesystem::path control = std::filesystem::temp_directory_path() /
                                        ("warplens-rewrite-control-" + std::to_string(getpid()));
  std::filesystem::create_directories(control);
  write_file(control / "rewrite", "/result/occupancy/blocks_per_sm 9999\n");
  const Story story = play("wait\nscreenshot a.png\n",
                           std::string("--worker \"") + WARPLENS_FAULT_PROXY + " " +
                               control.string() + " -- " + WARPLENS_BINARY + " worker\"");
  const bool rewritten = !std::filesystem::exists(control / "rewrite");
  std::filesystem::remove_all(control);
  ASSERT_EQ(story.exit_code, 0) << story.output;
  EXPECT_TRUE(rewritten) << "the proxy never rewrote an answer";
  const json a = story.sidecar("a");
  const std::string error = a["error"];
  EXPECT_NE(error.find("the worker's answer was refused"), std::string::npos) << error;
  EXPECT_NE(error.find("occupancy.blocks_per_sm: 9999"), std::string::npos) << error;
  const json shown =
      a["result"].is_object() ? a["result"].value("occupancy", json::object()) : json::object();
  EXPECT_NE(shown.value("blocks_per_sm", 0), 9999) << "the figure was shown";
}

// The defect: in model mode each F5 added the replayed recording to "Recent runs" as another run
// ("3 runs, 0.0123 to 0.0123 ms"), and the sidecar's list mixed kernels. Recent runs are the runs
// timed here, of the kernel on screen.
TEST(StoryTimings, RecentRunsAreRunsTimedHereOfTheKernelOnScreen) {
  const Story story = play("click \"vec_add/scalar\"\nwait\nkey F5\nwait\nkey F5\nwait\n"
                           "click \"coalescing/stride\"\nwait\nkey F5\nwait\nscreenshot a.png\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a");
  const std::size_t runs = a["figures"]["history_median_time"].size();
  if (!a["figures"]["recorded_on"].get<std::string>().empty())
    EXPECT_EQ(runs, 0u) << "model mode replays a recording: nothing was timed here";
  else
    EXPECT_GE(runs, 1u); // with a GPU: the stride runs alone, not vec_add's
  EXPECT_LE(runs, 2u);   // Live's run and F5's of coalescing/stride, never vec_add's three
}

// The Timings panel's modelled time when DRAM bounds it, and the bandwidth it was reckoned at
// ("0.2370 ms, bound by DRAM (1.1 GiB at 4,814 GB/s)"); zeros when the panel says no such thing.
struct DramBound {
  double ms = 0, gbps = 0;
};
DramBound dram_bound_of(const json& sidecar) {
  const std::string text = text_of(sidecar, "timings");
  std::smatch m;
  if (!std::regex_search(text, m,
                         std::regex(R"(([0-9.]+) ms, bound by DRAM \([^)]* at ([0-9,]+) GB/s\))")))
    return {};
  return {std::stod(m[1].str()), std::stod(std::regex_replace(m[2].str(), std::regex(","), ""))};
}

// The defects: "time at peak bandwidth" ignored the sectors actually fetched, then counted them in
// 32-byte sectors where DRAM reads 64-byte segments (576 MiB at stride 32, where the H100 read
// 1024 MiB and wrote 62); a recorded counter the model predicts none of was flagged "100 %" in
// red without its reason on screen.
TEST(StoryTimings, TheFloorCountsTheSectorsFetchedAndADifferenceItsReason) {
  const Story story = play("click \"coalescing/stride\"\nwait\nset \"stride\" 32 in \"Launch\"\n"
                           "wait\nscreenshot a.png timings\nclick \"transpose/smem\"\nwait\n"
                           "click \"Counters\"\nscreenshot b.png counters\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a"), b = story.sidecar("b");
  // 32 segments of 64 bytes per load request (1 GiB) and the store's 64 MiB, not the 128 MiB needed
  EXPECT_TRUE(says(a, "timings", "| DRAM bytes, modelled | 1.1 GiB |")) << text_of(a, "timings");
  // 1,088 MiB at the measuring GPU's DRAM bandwidth (the H100 preset's 3,352 GB/s in model mode),
  // to the rounding of the bandwidth shown.
  const DramBound bound = dram_bound_of(a);
  EXPECT_NEAR(bound.ms, 1088.0 * (1 << 20) / (bound.gbps * 1e6), 0.0005 * bound.ms + 1e-4)
      << text_of(a, "timings");
  if (a["result"]["arch"] == "h100") {
    EXPECT_TRUE(says(a, "timings", "0.3403 ms, bound by DRAM")) << text_of(a, "timings");
  }
  if (b["figures"]["counters_measured"] != "not collected") { // recorded or measured counters
    EXPECT_FALSE(says(b, "counters", "100.0 %")) << text_of(b, "counters");
    EXPECT_TRUE(says(b, "counters", "Why they differ")) << text_of(b, "counters");
  }
}

// A row of the figure table is all a figure needs: the Timings panel lists every launch figure
// of its panel that the run has, written by figure_text, and the sidecar holds each under its key.
TEST(StoryTimings, EveryLaunchFigureOfTheTableIsInThePanelAndTheSidecar) {
  const Story story = play("click \"matmul/tiled\"\nwait\nscreenshot a.png timings\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a");
  const json& figures = a["result"]["figures"];
  ASSERT_TRUE(figures.is_object()) << a["result"].dump().substr(0, 300);
  int shown = 0;
  for (const Figure* f : launch_figures()) {
    if (f->panel != Panel::timings || !figures.contains(std::string(f->key)))
      continue;
    ++shown;
    const std::string row = "| " + std::string(f->display) + " | " +
                            figure_text(*f, figures[std::string(f->key)].get<double>());
    EXPECT_TRUE(says(a, "timings", row)) << row << "\n" << text_of(a, "timings");
  }
  EXPECT_GE(shown, 5);
  EXPECT_TRUE(figures.contains("arithmetic_intensity"));
}

TEST(StoryStatus, TheStatusLineStaysShortAndTheSidecarSaysTheMode) {
  const Story story = play("wait\nscreenshot a.png\nscreenshot b.png\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const std::string mode = story.sidecar("a")["configuration"]["mode"];
  EXPECT_FALSE(mode.empty());
  // The defect: a status of about 200 characters ("no GPU (no GPU (") hid the screenshot path;
  // the line is short, the detail on hover, and the path in sight.
  const std::string line = text_of(story.sidecar("b"), "status_line");
  EXPECT_LT(line.size(), 160u) << line;
  EXPECT_NE(line.find("saved"), std::string::npos) << line;
  EXPECT_EQ(line.find("no GPU (no GPU ("), std::string::npos) << line;
  // Model mode's text cut to "..." beside the saved path is kept whole in the sidecar, as its
  // tooltip is (with a worker, the mode is short enough to stand whole).
  if (mode.starts_with("model mode")) {
    EXPECT_NE(line.find(" ... |"), std::string::npos) << line;
    EXPECT_EQ(story.sidecar("b")["shown"]["shortened"], json::array({mode}));
  }
  EXPECT_FALSE(shown(story.sidecar("a"), "Copy path"));
  EXPECT_TRUE(
      shown(story.sidecar("b"), "Copy path")); // the first screenshot's path, with its copy button
}

} // namespace
// The index playground, opened from the View menu: a column read of a 32-float row is a 32-way
// conflict, the swizzle i ^ (i >> 5) makes it one wavefront, and an expression cut short says why
// in the panel, one line, the figures gone rather than stale.
TEST(StoryPlayground, TypingAnIndexShowsItsBanksAndASwizzleSpreadsThem) {
  const Story story = play(
      "window 1280x720\nclick \"View\"\nclick \"Index playground\"\n"
      "set \"index\" \"threadIdx.x * 32\" in \"Index playground\"\n"
      "click \"shared memory\" in \"Index playground\"\nscreenshot a.png playground\n"
      "set \"swizzle of i\" \"i ^ (i >> 5)\" in \"Index playground\"\nscreenshot b.png playground\n"
      "set \"index\" \"threadIdx.x *\" in \"Index playground\"\nscreenshot c.png playground\n"
      "click \"shared memory\" in \"Index playground\"\n"
      "set \"index\" \"threadIdx.x * 2\" in \"Index playground\"\nscreenshot d.png playground\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a"), b = story.sidecar("b"), c = story.sidecar("c"),
             d = story.sidecar("d");
  EXPECT_EQ(a["shown"]["playground"]["wavefronts"], 32);
  EXPECT_EQ(a["shown"]["playground"]["conflict_degree"], 32);
  EXPECT_TRUE(says(a, "playground", "32 wavefronts per request (ideal 1): 32-way"))
      << text_of(a, "playground");
  EXPECT_EQ(b["shown"]["playground"]["wavefronts"], 1);
  EXPECT_TRUE(says(b, "playground", "1 wavefront per request")) << text_of(b, "playground");
  EXPECT_TRUE(says(c, "playground", "it ends where a value is missing"))
      << text_of(c, "playground");
  EXPECT_FALSE(says(c, "playground", "wavefront")) << text_of(c, "playground");
  EXPECT_EQ(d["shown"]["playground"]["space"], "global");
  EXPECT_EQ(d["shown"]["playground"]["sectors"], 8) << "32 floats 8 bytes apart: 256 bytes";
  json figures = d["shown"]["playground"];
  for (const char* field : {"index", "swizzle", "element_bytes", "space"})
    figures.erase(field); // what was typed, not figures
  expect_only_table_figures(figures);
}

// The Roofline panel, opened from the View menu: matmul/tiled sits under its GPU's roofs (the
// H100 preset's in model mode; with a worker, the device's: an H200 has the same FP32 peak and
// more bandwidth, so its ridge is further left) with its intensity, DRAM bytes and their source;
// vector add is memory-bound far left of the ridge; a transpose does no arithmetic and says why it
// has no place there.
TEST(StoryRoofline, TheLaunchSitsUnderItsRoofsAndAKernelWithoutArithmeticSaysWhy) {
  const Story story = play("window 1280x720\nclick \"View\"\nclick \"Roofline\"\nwait\n"
                           "screenshot matmul.png roofline\nclick \"vec_add/scalar\"\nwait\n"
                           "screenshot add.png roofline\nclick \"transpose/naive\"\nwait\n"
                           "screenshot transpose.png roofline\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json matmul = story.sidecar("matmul")["shown"]["roofline"],
             add = story.sidecar("add")["shown"]["roofline"],
             transpose = story.sidecar("transpose")["shown"]["roofline"];
  EXPECT_NEAR(matmul["fp32_gflops"].get<double>(), 66908, 1);
  EXPECT_NEAR(matmul["ridge"].get<double>(),
              matmul["fp32_gflops"].get<double>() / matmul["dram_gbps"].get<double>(), 0.01);
  if (story.sidecar("matmul")["result"]["arch"] == "h100") {
    EXPECT_NEAR(matmul["ridge"].get<double>(), 19.96, 0.01);
  }
  EXPECT_GT(matmul["intensity"].get<double>(), 1) << matmul;
  EXPECT_TRUE(says(story.sidecar("matmul"), "roofline", "GFLOP, the kernel's count"))
      << text_of(story.sidecar("matmul"), "roofline");
  EXPECT_NEAR(add["intensity"].get<double>(), 1.0 / 12, 0.01) << add;
  EXPECT_TRUE(wl::test::contains(add["verdict"].get<std::string>(), "memory-bound")) << add;
  EXPECT_TRUE(wl::test::contains(transpose["problem"].get<std::string>(),
                                 "does no floating-point arithmetic"))
      << transpose;
  const std::string words = text_of(story.sidecar("transpose"), "roofline");
  EXPECT_FALSE(wl::test::contains(words, "Dot: this launch")) << "no chart, no marks: " << words;
}

// The defect: a screenshot of a panel closed at start (the Roofline) stopped the script with
// "click: no \"Roofline\" on screen" at a screenshot line. A closed panel is opened first, as
// View > Roofline opens it, and its picture is taken.
TEST(StoryScreenshot, AClosedPanelIsOpenedForItsPicture) {
  const Story story = play("window 1280x720\nwait\nscreenshot a.png roofline\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a");
  EXPECT_FALSE(text_of(a, "roofline").empty()) << a["shown"]["text"];
}

// The roofline's third roof and the counters' FLOPs: softmax/block_shared after a Run sits under
// the DRAM, L2 and FP32 roofs with a point by DRAM bytes and one by L2 bytes. With a GPU its FP32
// counters count about four times the kernel's 5 FLOP an element, and the panel says why (each
// expf and division is several FP32 instructions) beside the measured DRAM and L2 bytes; in model
// mode (the recording predates the FP32 counters) the bytes are the model's.
TEST(StoryRoofline, TheCountersFlopsAndTheL2RoofStandBesideTheModels) {
  const Story story = play("window 1280x720\nclick \"softmax/block_shared\"\nwait\n"
                           "click \"View\"\nclick \"Roofline\"\nclick \"Run\"\nwait\n"
                           "screenshot a.png roofline\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a");
  const json roofline = a["shown"]["roofline"];
  EXPECT_GT(roofline["l2_gbps"].get<double>(), roofline["dram_gbps"].get<double>()) << roofline;
  EXPECT_GT(roofline["l2_intensity"].get<double>(), 0) << roofline;
  EXPECT_TRUE(says(a, "roofline", "the thin L2 roof")) << text_of(a, "roofline");
  const std::string mode = a["configuration"]["mode"];
  if (mode.starts_with("model mode")) {
    EXPECT_TRUE(roofline["measured_flops"].is_null()) << roofline;
    return;
  }
  ASSERT_FALSE(roofline["measured_flops"].is_null()) << mode << roofline;
  EXPECT_GT(roofline["measured_flops"].get<double>(),
            3 * a["result"]["figures"]["arithmetic"].get<double>() * 1e9)
      << roofline;
  EXPECT_TRUE(roofline["l2_measured"].get<bool>()) << roofline;
  EXPECT_TRUE(says(a, "roofline", "FP32 operations counted")) << text_of(a, "roofline");
  EXPECT_TRUE(says(a, "roofline", "computes exp once an element")) << text_of(a, "roofline");
  EXPECT_TRUE(says(a, "roofline", "DRAM bytes measured")) << text_of(a, "roofline");
}

// A kernel whose multiply-adds run on the tensor cores: the FP32 roof is not drawn over it and the
// verdict says why; on a GPU older than its instructions (the T4 preset) the launch is refused in
// one line, and back on the H100 it is placed again.
TEST(StoryRoofline, ATensorCoreKernelHasNoFp32RoofAndAnOlderGpuRefusesIt) {
  const Story story = play("window 1280x720\nclick \"View\"\nclick \"Roofline\"\n"
                           "click \"flash_attention/tensor_d64\"\nwait\nscreenshot a.png roofline\n"
                           "click \"arch\" in \"Launch\"\nclick \"t4\"\nwait\nscreenshot b.png\n"
                           "click \"arch\" in \"Launch\"\nclick \"h100\"\nwait\n"
                           "screenshot c.png roofline\n");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a");
  const json roofline = a["shown"]["roofline"];
  EXPECT_TRUE(roofline["tensor_cores"].get<bool>()) << roofline;
  EXPECT_NE(roofline["bound_by"], "FP32") << roofline;
  EXPECT_TRUE(wl::test::contains(roofline["verdict"].get<std::string>(),
                                 "its multiply-adds run on the tensor cores"))
      << roofline;
  const json b = story.sidecar("b");
  EXPECT_TRUE(wl::test::contains(b["configuration"]["request_problem"].get<std::string>(),
                                 "needs compute capability 8.0 or later"))
      << b["configuration"];
  EXPECT_TRUE(story.sidecar("c")["shown"]["roofline"]["tensor_cores"].get<bool>());
}

} // namespace wl::viz::test
