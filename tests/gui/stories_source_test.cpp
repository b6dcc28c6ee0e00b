// Stories of the Source panel: the kernel's code with each access site's figures beside its line.
// In model mode the predictions stand alone with the reason; the measured figures come from a
// stand-in for a GPU worker (a shell script answering with a per-site measurement made here), so
// the story runs on any machine. Every check reads the words a screenshot's sidecar says were on
// screen.

#include "model/kernel_source.h"
#include "protocol/protocol.h"
#include "registry.h"
#include "story_support.h"

#include <map>
#include <tuple>

#include <unistd.h>

namespace wl::viz::test {
namespace {

using nlohmann::json;

// The memory instructions a GPU would run for `result`'s sites: one per line and kind of access,
// counting what the sites written there predict (sites sharing a line are measured together),
// except vec_add's load b, compiled as two 2-byte loads costing half as many sectors again, so it
// is flagged with the reason.
std::vector<MeasuredInstruction> instructions_for(const RunResult& result, const SiteLines& lines) {
  std::map<std::tuple<int, MemorySpace, AccessOp>, MeasuredInstruction> by_place;
  int split_line = 0; // vec_add's load b
  for (std::size_t s = 0; s < result.prediction.sites.size(); ++s) {
    const SitePrediction& site = result.prediction.sites[s];
    if (result.kernel_id == "vec_add/scalar" && site.name == "load b")
      split_line = lines.lines[s];
    MeasuredInstruction& i = by_place[{lines.lines[s], site.space, site.op}];
    i.file = lines.file;
    i.line = lines.lines[s];
    i.space = site.space;
    i.op = site.op;
    i.width = site.width;
    i.executed += static_cast<double>(site.requests);
    i.issued = i.executed;
    i.lanes += static_cast<double>(site.requests) * kWarpSize;
    i.sectors += static_cast<double>(site.sectors);
    i.wavefronts += static_cast<double>(site.wavefronts);
  }
  std::vector<MeasuredInstruction> instructions;
  for (const auto& [place, instruction] : by_place) {
    const bool split = instruction.line == split_line;
    for (int part = 0; part < (split ? 2 : 1); ++part) {
      MeasuredInstruction i = instruction;
      i.pc = static_cast<std::uint32_t>(0x80 + 0x10 * instructions.size());
      if (split)
        i.width = 2, i.sectors *= 0.75;
      instructions.push_back(i);
    }
  }
  return instructions;
}

// Where a vector add's warps would wait: its store line on its loads (long_scoreboard), its load
// lines issuing, and one instruction the line table places on no line.
StallSamples stalls_for(const RunResult& result, const SiteLines& lines) {
  StallSamples s;
  s.available = true;
  s.function = "_Z14vec_add_scalarPKfS0_Pfi";
  s.file = lines.file;
  s.period = 6;
  s.total_samples = 10'000;
  for (std::size_t site = 0; site < result.prediction.sites.size(); ++site) {
    const bool store = result.prediction.sites[site].op == AccessOp::store;
    s.instructions.push_back(StalledInstruction{
        .pc = static_cast<std::uint32_t>(0x80 + 0x10 * site),
        .file = lines.file,
        .line = lines.lines[site],
        .reasons =
            store ? std::vector<StallCount>{{"long_scoreboard", 6'000, 5'000}, {"selected", 200, 0}}
                  : std::vector<StallCount>{{"lg_throttle", 1'000, 900}, {"selected", 400, 0}}});
  }
  s.instructions.push_back(StalledInstruction{
      .pc = 0x200, .file = lines.file, .line = 0, .reasons = {{"no_instruction", 100, 100}}});
  summarise_stalls(s);
  return s;
}

// A kernel's default launch as a GPU worker measures it (on its device 0, verified, with counters
// it could not collect), per site or with stall samples when asked: the client refuses an answer
// without a part the request asked for.
RunResult measured(const std::string& kernel_id, bool per_site, bool stalls = false) {
  const App app = make_app(kernel_id, "h100");
  RunResult result = canned_result(kernel_id, "", app.arch());
  result.arch.id = "device:0";
  result.timing = TimingStats{10, 0.0729, 0.0714, 0.075, 0.073, 0.01, true, true, 0.5};
  result.verification = Verification{};
  result.verification->passed = true;
  result.verification->checked = 4096;
  result.counters = CounterResult{};
  result.counters->reason = "this stand-in collects no counters";
  if (per_site)
    result.site_counts =
        attribute_sites(*app.kernel(), result.params, result.prediction,
                        instructions_for(result, site_lines(*app.kernel(), result.params)));
  if (stalls)
    result.stalls = stalls_for(result, site_lines(*app.kernel(), result.params));
  return result;
}

std::string line_of(const WorkerResponse& response) {
  return protocol_line(response_to_json(response));
}

// The options of a story whose worker is a stand-in: a shell script that greets as this build's
// worker and answers each run with `kernel_id`'s measured launch, per site when the request asks
// for the per-site pass, with stall samples when it asks for those. Its files go in `dir`.
std::string stand_in_worker(const std::string& kernel_id, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  for (const bool per_site : {false, true})
    write_file(dir / (per_site ? "per-site.jsonl" : "plain.jsonl"),
               line_of({.id = 0,
                        .type = ResponseType::result,
                        .result = std::make_shared<RunResult>(measured(kernel_id, per_site))}));
  write_file(dir / "stalls.jsonl",
             line_of({.id = 0,
                      .type = ResponseType::result,
                      .result = std::make_shared<RunResult>(measured(kernel_id, false, true))}));
  write_file(dir / "hello.jsonl", line_of({.id = 0,
                                           .type = ResponseType::hello,
                                           .protocol = kProtocolVersion,
                                           .catalog = catalog_version()}));
  std::string script = R"(cat DIR/hello.jsonl
while IFS= read -r line; do
  case "$line" in *'"type":"run"'*) ;; *) continue ;; esac
  id=$(printf '%s\n' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
  case "$line" in
    *'"per_site":true'*) answer=per-site ;;
    *'"stalls":true'*) answer=stalls ;;
    *) answer=plain ;;
  esac
  sed "s/\"id\":0,/\"id\":$id,/" DIR/$answer.jsonl
done
)";
  for (std::size_t at; (at = script.find("DIR")) != std::string::npos;)
    script.replace(at, 3, "'" + dir.string() + "'");
  write_file(dir / "worker.sh", script);
  return "--kernel " + kernel_id + " --worker \"sh " + dir.string() + "/worker.sh\"";
}

bool reads(const json& sidecar, const std::string& words) {
  return flat_text(sidecar, "source").find(words) != std::string::npos;
}

std::filesystem::path stand_in_dir() {
  return std::filesystem::temp_directory_path() /
         ("warplens-stand-in-" + std::to_string(getpid()) + "-" +
          ::testing::UnitTest::GetInstance()->current_test_info()->name());
}

TEST(StorySource, ItShowsTheKernelsLinesWithEachSitesPrediction) {
  const Story story = play("window 1920x1200\nclick \"vec_add/scalar\"\nwait\n"
                           "screenshot vec_add.png source\nclick \"matmul/tiled\"\nwait\n"
                           "screenshot matmul.png source\n",
                           "--model");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json vec_add = story.sidecar("vec_add"), matmul = story.sidecar("matmul");
  const std::string a = flat_text(vec_add, "source"), b = flat_text(matmul, "source");
  EXPECT_TRUE(
      reads(vec_add, "vec_add.cu: vec_add_scalar (lines 21-28), 3 access sites on lines 24-26"))
      << a;
  EXPECT_TRUE(reads(vec_add, "24 const float x = a[i];")) << a;
  EXPECT_TRUE(
      reads(vec_add, "load a predicted 4.00 sectors/request (ideal 4.00), 524,288 requests"))
      << a;
  EXPECT_TRUE(reads(vec_add, "store c predicted 4.00 sectors/request")) << a;
  EXPECT_EQ(a.find("// site:"), std::string::npos) << "the figures stand where the marker was";
  // The panel's picture ends with vec_add's last line, not in an empty code box the window's
  // height (1200 here).
  EXPECT_LT(vec_add["screenshot"]["height"].get<int>(), 800) << vec_add["screenshot"];
  // The tiled matmul's sites are in its helper, shown from the helper's signature.
  EXPECT_TRUE(reads(matmul, "matmul.cu: matmul_tiled")) << b;
  EXPECT_TRUE(reads(matmul, "__device__ void matmul_through_tiles(")) << b;
  EXPECT_TRUE(reads(matmul, "load A tile predicted 1.00 wavefronts/request (ideal 1.00)")) << b;
  EXPECT_TRUE(reads(matmul, "store C predicted 4.00 sectors/request (ideal 4.00)")) << b;
  EXPECT_EQ(b.find("vec_add"), std::string::npos) << "the tree's switch replaced the code";
  for (const json* sidecar : {&vec_add, &matmul})
    EXPECT_EQ((*sidecar)["shown"]["cut_off"], json::array());
}

// Model mode measures nothing; F5 brings the bundled recording's per-site figures of the launch
// on screen, labelled as recorded, and a launch the recording lacks says why there are none.
TEST(StorySource, InModelModeTheRecordingsPerSiteFiguresStandBesideTheModels) {
  const Story story = play("window 1920x1200\nclick \"matmul/tiled\"\nwait\nclick \"Source\"\n"
                           "key F5\nwait\nscreenshot recorded.png source\n"
                           "screenshot recorded_counters.png counters\n"
                           "set \"m\" 512 in \"Launch\"\nkey F5\nwait\n"
                           "screenshot unrecorded.png source\n",
                           "--model");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json recorded = story.sidecar("recorded"), unrecorded = story.sidecar("unrecorded"),
             recorded_counters = story.sidecar("recorded_counters");
  const std::string r = flat_text(recorded, "source");
  EXPECT_FALSE(shown(recorded, "Measure per site", "Source")) << "a box that would do nothing";
  EXPECT_TRUE(reads(recorded, "Per site recorded on NVIDIA H100")) << r;
  EXPECT_TRUE(reads(recorded,
                    "load B predicted 4.00 sectors/request (ideal 4.00), 134,217,728 "
                    "requests recorded 4.00 sectors/request, 134,217,728 requests (as predicted)"))
      << r;
  EXPECT_TRUE(reads(recorded,
                    "recorded 2.00 wavefronts/request, 536,870,912 requests (1,073,741,824 "
                    "wavefronts in all: -50.0 %)"))
      << r;
  // The per-site pass's sums stand beside the launch counters, in the Counters panel.
  const std::string counters = flat_text(recorded_counters, "counters");
  EXPECT_NE(counters.find("Shared wavefronts summed over the per-site pass: 3,489,660,928; the "
                          "launch counters hold 17,554,902 more (+0.5 %)"),
            std::string::npos)
      << counters;
  EXPECT_TRUE(reads(recorded, "differs from the model: the compiler merged 4 neighbouring 4-byte "
                              "loads into one LDS.128"))
      << r;
  EXPECT_TRUE(reads(unrecorded, "No measured figures per site: model mode: nothing runs on a GPU "
                                "here, and the recording has no run of this launch"))
      << flat_text(unrecorded, "source");
  EXPECT_FALSE(reads(unrecorded, "recorded 4.00")) << flat_text(unrecorded, "source");
}

TEST(StorySource, ClickingASiteOpensItInTheWarpMapOrTheBankGrid) {
  const Story story = play("window 1920x1200\nclick \"matmul/tiled\"\nwait\nclick \"Source\"\n"
                           "click \"load B tile\" in \"Source\"\nwait\nscreenshot shared.png\n"
                           "click \"Source\"\nclick \"load B\" in \"Source\"\nwait\n"
                           "screenshot global.png\n",
                           "--model");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json shared = story.sidecar("shared"), global = story.sidecar("global");
  EXPECT_EQ(shared["shown"]["shared_map"]["site"], "load B tile");
  EXPECT_TRUE(shared["shown"]["text"].contains("shared")) << "the bank grid's tab in front";
  EXPECT_EQ(global["shown"]["global_map"]["site"], "load B");
  EXPECT_TRUE(global["shown"]["text"].contains("global")) << "the warp map's tab in front";
}

// The defect: a clicked site opened its map, but its line in the Source panel looked as before,
// so after the click nothing said which line the map now shows. The line is outlined in the
// links' blue (ImGui's dark check-mark colour, 66,150,250).
TEST(StorySource, AClickedSitesLineStaysOutlined) {
  const Story story = play("window 1920x1200\nclick \"coalescing/stride\"\nwait\n"
                           "click \"Source\"\nwait\nscreenshot before.png source\n"
                           "click \"load in (strided)\" in \"Source\"\nwait\n"
                           "screenshot after.png source\n",
                           "--model");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  EXPECT_EQ(story.sidecar("after")["shown"]["global_map"]["site"], "load in (strided)");
  const int before = pixels_of(load_png(story.dir / "before.png").image, 66, 150, 250),
            after = pixels_of(load_png(story.dir / "after.png").image, 66, 150, 250);
  EXPECT_GT(after, before + 1000) << "an outline of the line's rows: " << before << " -> " << after;
}

// A Run with Measure per site ticked brings each site's measured figures beside its prediction; a
// site that differs says why on screen; hovering lists its instructions; a pinned baseline's
// measured figure stands beside the current one; another launch greys them with the reason.
TEST(StorySource, MeasuredPerSiteFiguresStandBesideThePredictions) {
  const std::filesystem::path dir = stand_in_dir();
  const Story story = play(
      "window 1920x1200\nwait\nclick \"Source\"\nscreenshot plain.png source\n"
      "click \"Measure per site\" in \"Source\"\nkey F5\nwait\nscreenshot measured.png source\n"
      "hover \"load b\" in \"Source\"\nscreenshot hover.png source\n"
      "key B\nkey F5\nwait\nscreenshot baseline.png source\n"
      "key L\nset \"block\" 128 in \"Launch\"\nwait\nscreenshot stale.png source\n",
      stand_in_worker("vec_add/scalar", dir));
  std::filesystem::remove_all(dir);
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json plain = story.sidecar("plain"), measured = story.sidecar("measured"),
             hover = story.sidecar("hover"), baseline = story.sidecar("baseline"),
             stale = story.sidecar("stale");
  EXPECT_TRUE(reads(plain, "the last run made no per-site pass. Tick Measure per site"))
      << flat_text(plain, "source");
  // When the first measured figures were drawn, from the process's start: noted once.
  ASSERT_TRUE(plain["configuration"].contains("first_measured_figures_seconds"));
  const double first = plain["configuration"]["first_measured_figures_seconds"];
  EXPECT_GT(first, 0);
  EXPECT_LT(first, 60);
  EXPECT_EQ(stale["configuration"]["first_measured_figures_seconds"].get<double>(), first);
  const std::string m = flat_text(measured, "source");
  EXPECT_TRUE(reads(measured, "Measured per site on")) << m;
  EXPECT_TRUE(reads(measured,
                    "load a predicted 4.00 sectors/request (ideal 4.00), 524,288 "
                    "requests measured 4.00 sectors/request, 524,288 requests (as predicted)"))
      << m;
  EXPECT_TRUE(reads(measured,
                    "store c predicted 4.00 sectors/request (ideal 4.00), 524,288 "
                    "requests measured 4.00 sectors/request, 524,288 requests (as predicted)"))
      << m;
  // load b's two half-width instructions: twice the executions, half as many sectors again.
  EXPECT_TRUE(reads(measured, "measured 3.00 sectors/request, 1,048,576 requests (3,145,728 "
                              "sectors in all: +50.0 %)"))
      << m;
  EXPECT_TRUE(reads(measured,
                    "differs from the model: the compiler split each 4-byte load into 2 2-byte "
                    "instructions"))
      << m;
  ASSERT_TRUE(hover["shown"]["tooltip"].is_object()) << hover["shown"];
  const std::string tip = hover["shown"]["tooltip"]["text"];
  EXPECT_NE(tip.find("global load, 2 B/lane, pc 0x90:\n    524,288 executions, 16,777,216 lanes, "
                     "1,572,864 sectors"),
            std::string::npos)
      << tip;
  EXPECT_TRUE(reads(baseline,
                    "measured 4.00 sectors/request, 524,288 requests (as predicted) baseline "
                    "measured 4.00 "
                    "(no change)"))
      << flat_text(baseline, "source");
  const std::string s = flat_text(stale, "source");
  EXPECT_TRUE(reads(stale, "Measured figures from vec_add/scalar, block 256")) << s;
  EXPECT_TRUE(reads(stale, "press F5")) << s;
  EXPECT_TRUE(reads(stale, "measured 4.00 sectors/request,")) << "greyed, still there: " << s;
}

// Sample stalls, then Run: each line with samples gets its bar, the header names the top reason in
// words, the Counters panel lists the launch's reasons with their meaning, and a reason's cause
// button opens the panel that shows it.
TEST(StorySource, SampledStallsShowPerLineAndTheirReasonsInWords) {
  const std::filesystem::path dir = stand_in_dir();
  const Story story =
      play("window 1920x1200\nwait\nclick \"Source\"\nscreenshot plain.png source\n"
           "click \"Sample stalls\" in \"Source\"\nkey F5\nwait\nscreenshot sampled.png source\n"
           "click \"Counters\"\nscreenshot counters.png counters\n"
           "click \"Global memory\" in \"Counters\"\nscreenshot opened.png\n",
           stand_in_worker("vec_add/scalar", dir));
  std::filesystem::remove_all(dir);
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json plain = story.sidecar("plain"), sampled = story.sidecar("sampled"),
             counters = story.sidecar("counters"), opened = story.sidecar("opened");
  EXPECT_TRUE(shown(plain, "Sample stalls", "Source"));
  EXPECT_FALSE(reads(plain, "Stalls sampled")) << flat_text(plain, "source");
  EXPECT_EQ(sampled["configuration"]["measure_stalls"], true);
  EXPECT_TRUE(reads(sampled, "Stalls sampled: 9,100 samples; most on long_scoreboard (65.9 %, "
                             "waiting for a global or local memory load (L1TEX) to return its "
                             "data)"))
      << flat_text(sampled, "source");
  const std::string c = flat_text(counters, "counters");
  EXPECT_NE(c.find("Where the warps waited (PC sampling on"), std::string::npos) << c;
  EXPECT_NE(c.find("9,100 samples, an SM's warp every 64 cycles; 0 dropped."), std::string::npos)
      << c;
  EXPECT_NE(
      c.find("| long_scoreboard | 65.9 % | waiting for a global or local memory load (L1TEX) to "
             "return its data | [ Global memory ] |"),
      std::string::npos)
      << c;
  EXPECT_NE(c.find("| lg_throttle | 22.0 % |"), std::string::npos) << c;
  EXPECT_NE(c.find("| no_instruction | 1.1 % |"), std::string::npos) << c;
  EXPECT_EQ(opened["configuration"]["panels_open"]["global"], true);
}

// Sites written on one line (an inlined helper reached twice) are measured together, and say so.
TEST(StorySource, SitesMeasuredTogetherSaySo) {
  const std::filesystem::path dir = stand_in_dir();
  const Story story = play("window 1920x1200\nclick \"Measure per site\" in \"Source\"\n"
                           "key F5\nwait\nscreenshot a.png source\n",
                           stand_in_worker("softmax/block_tree", dir));
  std::filesystem::remove_all(dir);
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a");
  EXPECT_TRUE(reads(a, "store thread max predicted 1.00 wavefronts/request (ideal 1.00), 65,536 "
                       "requests measured 1.00 wavefronts/request, 131,072 requests (as predicted) "
                       "measured together "
                       "with store thread sum: one line, so these are the line's figures"))
      << flat_text(a, "source");
}

// The defect this guards against: a new panel crowding the others at the smallest usual window.
TEST(StorySource, ItSharesTheTiledLayoutAt1280x720WithoutOverlapOrCutText) {
  const Story story = play("window 1280x720\nclick \"matmul/tiled\"\nwait\nclick \"Source\"\n"
                           "wait\nscreenshot a.png\n",
                           "--model");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a");
  EXPECT_EQ(a["shown"]["cut_off"], json::array());
  EXPECT_TRUE(reads(a, "load A")) << text_of(a, "source");
  // Its controls lie right of the Launch column's and left of the next tile's tabs.
  float source_left = 1e9f, source_right = 0, launch_right = 0, counters_left = 1e9f;
  for (const json& c : a["shown"]["controls"]) {
    const float x = c["x"];
    if (c["panel"] == "Source")
      source_left = std::min(source_left, x), source_right = std::max(source_right, x);
    else if (c["panel"] == "Launch")
      launch_right = std::max(launch_right, x);
    else if (c["label"] == "Counters" && c["panel"] == "")
      counters_left = std::min(counters_left, x);
  }
  EXPECT_TRUE(shown(a, "Whole file", "Source"));
  EXPECT_LT(launch_right, source_left);
  EXPECT_LT(source_right, counters_left);
}

} // namespace
} // namespace wl::viz::test
