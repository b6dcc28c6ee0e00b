// Model mode's recorded timings and counters: the bundled recordings and one a person chose fill a
// model result for a launch they hold, labelled as recorded (and by whom, and of which source,
// where those differ), and nothing else.

#include "../unit/test_support.h"
#include "base/error.h"
#include "gui_test_support.h"
#include "io/assets.h"
#include "kernel_file/file_kernel.h"
#include "registry.h"

#include <algorithm>
#include <string>
#include <vector>

namespace wl::viz {
namespace {

TEST(Recording, TheBundledRecordingFillsAModelResultForALaunchItHolds) {
  const App app = make_app("vec_add/scalar", "h100");
  ASSERT_TRUE(app.recording()) << app.messages.status;
  RunResult result = test::canned_result("vec_add/scalar", "", app.arch());
  ASSERT_TRUE(app.recording()->fill(result));
  ASSERT_TRUE(result.timing);
  EXPECT_GT(result.timing->median_time, 0);
  ASSERT_TRUE(result.verification);
  EXPECT_TRUE(result.verification->passed);
  ASSERT_TRUE(result.counters && result.counters->available);
  EXPECT_EQ(result.counters->find("global_load_sectors")->value, 2 * 16777216 * 4 / 32);
  // The H100's recording (2026-11-26) names the vec_add.cu it ran, which has changed since: its
  // figures stay, and the label says so.
  EXPECT_EQ(result.recorded_on, "recorded on " + app.recording()->device + ", " +
                                    app.recording()->date + "; vec_add.cu has changed since");
}

// Kernels added after the H100 recording (2026-11-26): the GPU machine lent since is an H200,
// which cannot stand for the H100 preset's figures. Model mode says so for each (below) until an
// H100 records them.
const std::vector<std::string> kNewerThanTheRecording = {
    "matmul/blocktile_1d",  "matmul/blocktile_2d",        "matmul/vectorized",
    "matmul/warptile",      "matmul/double_buffered",     "softmax/warp_registers",
    "softmax/block_shared", "softmax/block_online",       "reduce_sum/vectorized",
    "transpose/in_flight",  "flash_attention/tensor_d64", "flash_attention/tensor_d128",
    "transpose/wide_tile",  "matmul/async_copy"};

bool newer_than_the_recording(const std::string& id) {
  return std::find(kNewerThanTheRecording.begin(), kNewerThanTheRecording.end(), id) !=
         kNewerThanTheRecording.end();
}

TEST(Recording, EveryKernelIsRecordedAtItsDefaultBlock) {
  const App app = make_app("vec_add/scalar", "h100");
  ASSERT_TRUE(app.recording()) << app.messages.status;
  for (const KernelDesc& kernel : all_kernels()) {
    RunResult result = test::canned_result(kernel.id, "", app.arch());
    EXPECT_EQ(app.recording()->fill(result), !newer_than_the_recording(kernel.id)) << kernel.id;
  }
}

TEST(Recording, AKernelNewerThanTheRecordingSaysSo) {
  App app = make_app("matmul/double_buffered", "h100");
  ASSERT_TRUE(app.recording());
  EXPECT_EQ(app.untimed_reason(),
            "nothing runs on a GPU here, and the recording (" + app.recording()->label() +
                ") has no run of matmul/double_buffered: the kernel is newer than the recording.");
}

TEST(Recording, OtherArchitecturesShapesAndParametersGetNothing) {
  App app = make_app("vec_add/scalar", "h100");
  ASSERT_TRUE(app.recording());
  RunResult unrecorded_block = test::canned_result("vec_add/scalar", "96", app.arch());
  EXPECT_FALSE(app.recording()->fill(unrecorded_block));
  EXPECT_FALSE(unrecorded_block.timing);
  ASSERT_TRUE(app.choices.select_arch("rtx4090"));
  RunResult other_arch = test::canned_result("vec_add/scalar", "", app.arch());
  EXPECT_FALSE(app.recording()->fill(other_arch))
      << "an H100 timing must not pass for another GPU's";
  RunResult other_size = model_kernel(resolve_kernel_request("vec_add/scalar", {"n=4096"}, "", ""),
                                      app.choices.arches[0]);
  other_size.arch.id = app.recording()->arch;
  EXPECT_FALSE(app.recording()->fill(other_size));
  EXPECT_TRUE(other_size.recorded_on.empty());
}

// The H200's recording (2026-12-04) holds every bundled kernel at its default block, with the
// memory chart's counters, its energy and, but for the two named, its stall samples.
TEST(Recording, TheH200RecordingHoldsEveryKernelWithItsEnergyAndStalls) {
  App app = make_app("vec_add/scalar", "h200");
  ASSERT_TRUE(app.recording()) << app.recording().problem();
  EXPECT_EQ(app.recording()->arch, "h200");
  // matmul/cublas runs cuBLAS's kernels, not one of ours; vec_add_3d/blocks3d's pass in the
  // recording's long process saw another kernel's instructions (the recording says why).
  const std::vector<std::string> without_stalls = {"matmul/cublas", "vec_add_3d/blocks3d"};
  for (const KernelDesc& kernel : all_kernels()) {
    RunResult result = test::canned_result(kernel.id, "", app.arch());
    ASSERT_TRUE(app.recording()->fill(result)) << kernel.id << " is newer than the recording";
    ASSERT_TRUE(result.energy) << kernel.id;
    EXPECT_TRUE(result.energy->available) << kernel.id << ": " << result.energy->reason;
    ASSERT_TRUE(result.counters) << kernel.id;
    EXPECT_TRUE(result.counters->find("l2_hit_rate")) << kernel.id << ": the memory set";
    const bool sampled = result.stalls && result.stalls->available;
    const bool excused =
        std::find(without_stalls.begin(), without_stalls.end(), kernel.id) != without_stalls.end();
    EXPECT_EQ(sampled, !excused) << kernel.id;
  }
  RunResult naive = test::canned_result("transpose/naive", "", app.arch());
  ASSERT_TRUE(app.recording()->fill(naive));
  ASSERT_TRUE(naive.stalls && !naive.stalls->launch.empty());
  EXPECT_EQ(naive.stalls->launch.front().reason, "drain")
      << "a naive transpose's scattered stores drain at the warps' exit";
}

// A recording names the WarpLens that made it and each kernel's source: one of another version
// says which, one whose kernel file has another text is not shown for it, one that names no
// sources says so.
TEST(Recording, AnotherVersionOrSourceIsMarkedByName) {
  const App app = make_app("vec_add/scalar", "h200");
  ASSERT_TRUE(app.recording()) << app.recording().problem();
  Recording this_build = *app.recording().get(); // as if recorded from this build's vec_add.cu
  this_build.sources["vec_add/scalar"] = kernel_source_hash(*find_kernel("vec_add/scalar"));
  RunResult same = test::canned_result("vec_add/scalar", "", app.arch());
  ASSERT_TRUE(this_build.fill(same));
  EXPECT_EQ(same.recorded_on, this_build.label()) << "this build's vec_add.cu: no mark";
  EXPECT_EQ(this_build.label(), "recorded on NVIDIA H200, " + this_build.date);

  Recording other = *app.recording().get();
  other.warplens = "0.0.9";
  other.sources["vec_add/scalar"] = "fnv1a64:0000000000000000";
  RunResult marked = test::canned_result("vec_add/scalar", "", app.arch());
  ASSERT_TRUE(other.fill(marked)) << "a bundled kernel's figures stay, marked";
  EXPECT_EQ(marked.recorded_on, "recorded on NVIDIA H200, " + other.date +
                                    " by WarpLens 0.0.9; vec_add.cu has changed since");
  other.warplens.clear();
  other.sources.clear();
  RunResult unnamed = test::canned_result("vec_add/scalar", "", app.arch());
  ASSERT_TRUE(other.fill(unnamed));
  EXPECT_EQ(unnamed.recorded_on, "recorded on NVIDIA H200, " + other.date +
                                     " by a WarpLens that did not name its version; which "
                                     "source it ran is not recorded");
}

TEST(Recording, AKernelFileIsShownOnlyWhileItsTextIsTheOneRecorded) {
  const std::filesystem::path file = test::scratch_dir() / "mine.cu";
  std::ifstream in(std::filesystem::path(WARPLENS_SOURCE_TESTS).parent_path() / "examples" /
                   "saxpy.cu");
  const std::string text{std::istreambuf_iterator<char>(in), {}};
  const std::string id = use_kernel_file(kernel_file_from_text(file, text)).front();
  // The launch as a model result names it: no compile is needed to match one.
  RunResult run;
  run.kernel_id = id;
  run.arch = wl::test::preset("h200");
  run.params = resolve_kernel_request(id, {}, "", "").params;
  run.launch.block = resolve_kernel_request(id, {}, "", "").block;
  Recording recording{.arch = "h200",
                      .device = "NVIDIA H200",
                      .date = "2026-12-04",
                      .warplens = WARPLENS_VERSION,
                      .chosen_file = "",
                      .sources = {{id, kernel_file_of(id)->hash}},
                      .runs = {run},
                      .later_runs = {}};
  recording.runs[0].timing = TimingStats{};
  recording.runs[0].timing->median_time = 0.125;
  RunResult shown = run;
  ASSERT_TRUE(recording.fill(shown)) << "the text recorded";
  EXPECT_EQ(shown.timing->median_time, 0.125);
  EXPECT_EQ(recording.other_text_of(id), "");

  use_kernel_file(kernel_file_from_text(file, text + "\n// a save that changes the text\n"));
  RunResult edited = run;
  EXPECT_FALSE(recording.fill(edited)) << "another text's figures must not pass for this one's";
  EXPECT_FALSE(edited.timing);
  EXPECT_EQ(recording.other_text_of(id),
            "the recording (" + recording.label() +
                ") measured another text of mine.cu: its figures are shown only while the file "
                "is the one recorded");
}

// --recording and File > Open a recording: the recording chosen answers for its preset, which
// goes on screen; one that cannot be read is one line naming it, and what was in use stays.
TEST(Recording, AChosenRecordingAnswersForItsPreset) {
  const std::filesystem::path dir = test::scratch_dir();
  nlohmann::json lab = test::lab_recording_of_vec_add();
  lab["date"] = "2026-12-05";
  std::ofstream(dir / "lab.json") << lab.dump();

  App app = make_app("vec_add/scalar", "h100");
  ASSERT_TRUE(app.open_recording((dir / "lab.json").string())) << app.file.recording_problem;
  EXPECT_EQ(app.arch().id, "h200") << "the recording's preset goes on screen";
  ASSERT_TRUE(app.recording());
  EXPECT_EQ(app.recording()->date, "2026-12-05") << "the chosen one, not the bundled one";
  RunResult result = test::canned_result("vec_add/scalar", "", app.arch());
  ASSERT_TRUE(app.recording()->fill(result));
  EXPECT_TRUE(result.recorded_on.starts_with("recorded on NVIDIA H200, 2026-12-05"))
      << result.recorded_on;
  EXPECT_NE(result.recorded_on.find("(lab.json)"), std::string::npos)
      << "a copy of a bundled recording reads as the file it is: " << result.recorded_on;
  RunResult other = test::canned_result("transpose/naive", "", app.arch());
  EXPECT_FALSE(app.recording()->fill(other)) << "the lab's file holds vec_add/scalar alone";
  ASSERT_TRUE(app.select_kernel("transpose/naive"));
  EXPECT_TRUE(app.untimed_reason().ends_with("has no run of transpose/naive: it was not recorded."))
      << app.untimed_reason() << " (never \"newer than the recording\": the person chose it)";

  std::ofstream(dir / "cut.json") << lab.dump().substr(0, 4000);
  EXPECT_FALSE(app.open_recording((dir / "cut.json").string()));
  EXPECT_NE(app.file.recording_problem.find("cut.json"), std::string::npos)
      << app.file.recording_problem;
  EXPECT_EQ(app.file.recording_problem.find('\n'), std::string::npos);
  EXPECT_EQ(app.recording()->date, "2026-12-05") << "the recording in use stays";
  EXPECT_FALSE(app.open_recording(dir.string())) << "a folder";
  // A lesson's steps run on the chosen recording's preset, and on their own again once the
  // bundled recordings are back.
  EXPECT_EQ(app.lesson_preset(), "h200");
  ASSERT_TRUE(app.open_lesson("vector-add")) << app.lessons.problem;
  EXPECT_EQ(app.arch().id, "h200");
  app.use_bundled_recordings();
  EXPECT_EQ(app.recording()->date, "2026-12-04");
  EXPECT_EQ(app.lesson_preset(), "");
  app.go_to_step(1);
  EXPECT_EQ(app.arch().id, "h100") << "the lesson's own preset";
}

// What a recording file may hold beside its runs: hashes of sources, a version.
TEST(Recording, ForgedSourcesAndVersionsAreOneLineErrors) {
  const std::filesystem::path dir = test::scratch_dir();
  nlohmann::json lab = test::lab_recording_of_vec_add();
  const auto refusal = [&](const nlohmann::json& forged) {
    std::ofstream(dir / "forged.json") << forged.dump();
    try {
      load_recording(dir / "forged.json");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  nlohmann::json bad_hash = lab;
  bad_hash["sources"]["vec_add/scalar"] = "fnv1a64:zz";
  EXPECT_NE(refusal(bad_hash).find("is not a source's hash"), std::string::npos)
      << refusal(bad_hash);
  nlohmann::json unnamed = lab;
  unnamed["sources"].erase("vec_add/scalar");
  EXPECT_NE(refusal(unnamed).find("vec_add/scalar has no hash"), std::string::npos)
      << refusal(unnamed);
  nlohmann::json foreign = lab;
  foreign.erase("sources");
  foreign["runs"][0]["kernel"] = "mine/copy";
  EXPECT_NE(refusal(foreign).find("mine/copy is no bundled kernel"), std::string::npos)
      << refusal(foreign);
  nlohmann::json alias = lab; // model mode finds a recording by its preset's id alone
  alias["arch"] = "sm_90";
  EXPECT_NE(refusal(alias).find("arch: 'sm_90' is not a preset's id"), std::string::npos)
      << refusal(alias);
  nlohmann::json version = lab;
  version["warplens"] = "1e999";
  EXPECT_NE(refusal(version).find("warplens: '1e999' is not a version"), std::string::npos)
      << refusal(version);
  // Figures no GPU could count: 33 sectors a request of a 32-lane warp at a site (the sites'
  // figures are read as they are, beside their instructions'), and a median, mean and slowest
  // sample of 1,000 s in a timing that took 5 ms (a forged time the other checks let pass).
  nlohmann::json sectors = lab;
  nlohmann::json& site = sectors["runs"][0]["site_counts"]["sites"][0];
  site["sectors"] = 33 * site["executed"].get<double>();
  EXPECT_NE(refusal(sectors).find("site_counts.sites[0].sectors"), std::string::npos)
      << refusal(sectors);
  nlohmann::json slow = lab;
  for (const char* key : {"median_time", "mean_time", "max_time"})
    slow["runs"][0]["timing"][key] = 1e6;
  EXPECT_NE(refusal(slow).find("timing.samples"), std::string::npos) << refusal(slow);
  for (const nlohmann::json& forged : {bad_hash, unnamed, foreign, alias, version, sectors, slow})
    EXPECT_EQ(refusal(forged).find('\n'), std::string::npos);
}

// Two kernel files of one name make one kernel id: their runs could not be told apart.
TEST(Recording, TwoFilesOfOneKernelIdAreNotRecordedTogether) {
  const std::filesystem::path dir = test::scratch_dir();
  for (const char* folder : {"a", "b"}) {
    std::filesystem::create_directories(dir / folder);
    std::filesystem::copy_file(std::filesystem::path(WARPLENS_SOURCE_TESTS).parent_path() /
                                   "examples" / "saxpy.cu",
                               dir / folder / "saxpy.cu");
  }
  wl::test::expect_one_line_error("record " + (dir / "a" / "saxpy.cu").string() + " " +
                                      (dir / "b" / "saxpy.cu").string() + " --out " +
                                      (dir / "r.json").string(),
                                  {"both make kernel saxpy/saxpy"});
  EXPECT_FALSE(std::filesystem::exists(dir / "r.json"));
}

// A teacher's lesson named to record is checked before any GPU is asked for: its first problem,
// with its line, and no recording; one with nothing to record and --out on the lesson refused.
TEST(Recording, ALessonThatCannotBeRecordedIsRefusedInOneLine) {
  const std::filesystem::path dir = test::scratch_dir();
  std::ofstream(dir / "mine.lesson")
      << "lesson Mine\nstep One\nkernel vec_add/scalar\nblock 7777\n";
  wl::test::expect_one_line_error("record " + (dir / "mine.lesson").string() + " --out " +
                                      (dir / "r.json").string(),
                                  {"mine.lesson:4", "7777", "lesson check"});
  wl::test::expect_one_line_error("record " + (dir / "none.lesson").string() + " --out " +
                                      (dir / "r.json").string(),
                                  {"none.lesson"});
  // A lesson alone is its launches, never every bundled kernel: one of kernel files has none.
  std::filesystem::copy_file(std::filesystem::path(WARPLENS_SOURCE_TESTS).parent_path() /
                                 "examples" / "saxpy.cu",
                             dir / "saxpy.cu");
  std::ofstream(dir / "files.lesson") << "lesson Files\nstep One\nkernel saxpy.cu\nshow global\n";
  wl::test::expect_one_line_error("record " + (dir / "files.lesson").string() + " --out " +
                                      (dir / "r.json").string(),
                                  {"make no launch of a bundled kernel", "name the kernel files"});
  EXPECT_FALSE(std::filesystem::exists(dir / "r.json"));
  // --force replaces a recording, never the lesson being recorded.
  std::ofstream(dir / "good.lesson") << "lesson Good\nstep One\nkernel vec_add/scalar\nblock 128\n"
                                        "show global\n";
  wl::test::expect_one_line_error("record " + (dir / "good.lesson").string() + " --force --out " +
                                      (dir / "good.lesson").string(),
                                  {"is the lesson", "give the recording a file of its own"});
  EXPECT_EQ(std::filesystem::file_size(dir / "good.lesson"), 65u);
}

TEST(Recording, APresetWithoutARecordingIsAnsweredWithTheH100sWhichSaysWhose) {
  App app = make_app("vec_add/scalar", "rtx4090");
  ASSERT_TRUE(app.recording());
  EXPECT_EQ(app.recording()->arch, "h100");
  EXPECT_EQ(app.untimed_reason(),
            "nothing runs on a GPU here, and the recording is of h100, not rtx4090.");
}

TEST(Recording, ACorruptRecordingIsAOneLineError) {
  const std::filesystem::path file = test::scratch_dir() / "h100.json";
  std::ofstream(file) << R"({"arch":"h100","device":"x","runs":[{"kernel":)";
  try {
    load_recording(file);
    FAIL() << "a corrupt recording was accepted";
  } catch (const UsageError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(file.string()), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

} // namespace
} // namespace wl::viz
