// A person's own kernel file in the GUI: opened from the command line or File > Open, shown in the
// tree and the Source panel, and followed save by save: a save that does not compile is shown on
// its line with the last good figures kept and marked stale; the fix replaces them.

#include "../unit/test_support.h"
#include "gui_test_support.h"
#include "kernel_file/file_kernel.h"
#include "story_support.h"
#include "workflows/settings.h"

#include <chrono>
#include <thread>

namespace wl::viz::test {
namespace {

using nlohmann::json;

const std::filesystem::path kExamples =
    std::filesystem::path(WARPLENS_SOURCE_TESTS).parent_path() / "examples";

std::string example(const std::string& name) {
  std::ifstream in(kExamples / name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A folder for a story's kernel files beside its scratch folder, which play() makes anew.
std::filesystem::path files_dir() {
  const std::filesystem::path dir = scratch_dir().string() + "-files";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(StoryKernelFile, OpenedFromTheCommandLineItIsInTheTreeAndTheSourcePanel) {
  WL_SKIP_WITHOUT_ENGINE(); // a real worker
  const std::filesystem::path file = files_dir() / "saxpy.cu";
  write_file(file, example("saxpy.cu"));
  const Story story = play("window 1280x720\nwait\nscreenshot whole.png\nclick \"Source\"\n"
                           "screenshot source.png source\n",
                           "--model " + file.string());
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json whole = story.sidecar("whole"), source = story.sidecar("source");
  EXPECT_EQ(whole["configuration"]["kernel"], "saxpy/saxpy");
  EXPECT_EQ(whole["configuration"]["kernel_file"]["path"], file.string());
  EXPECT_TRUE(
      whole["configuration"]["kernel_file"]["hash"].get<std::string>().starts_with("fnv1a64:"));
  EXPECT_TRUE(says(whole, "launch", "saxpy.cu (yours)")) << text_of(whole, "launch");
  EXPECT_TRUE(says(whole, "occupancy", "registers per thread | 10 (NVRTC"))
      << text_of(whole, "occupancy");
  EXPECT_TRUE(says(source, "source", "// @warplens kernel saxpy")) << text_of(source, "source");
  EXPECT_TRUE(says(source, "source", "Predicted per line from the kernel's compiled code"))
      << text_of(source, "source");
  EXPECT_TRUE(says(source, "source", "y[i] = a * x[i] + y[i]")) << text_of(source, "source");
}

// The defect: a saved block line the kernel cannot use was taken without a word (the block on
// screen stayed, as it should); `warplens model FILE` refuses the same file.
TEST(StoryKernelFile, ASavedBlockLineTheKernelCannotUseIsSaidAndTheBlockOnScreenKept) {
  WL_SKIP_WITHOUT_ENGINE(); // NVRTC compiles the saves
  const std::filesystem::path file = files_dir() / "saxpy.cu";
  write_file(file, example("saxpy.cu"));
  const Story story = play("wait\nedit " + file.string() +
                               " \"@warplens block 256\" \"@warplens block 2048\"\nwait\n"
                               "screenshot a.png\n",
                           "--model " + file.string());
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json a = story.sidecar("a");
  const std::string status = a["configuration"]["status"];
  EXPECT_TRUE(wl::test::contains(status, "saved: compiled in")) << status;
  EXPECT_TRUE(wl::test::contains(status, "its block line: saxpy/saxpy cannot use block 2048"))
      << status;
  EXPECT_EQ(a["configuration"]["block"], "256") << a["configuration"];
}

// The defect: a script's `wait` after a save that does not compile settled without a word in the
// script's output; it now says the file does not compile, with the compiler's line, once.
TEST(StoryKernelFile, AWaitAfterASaveThatDoesNotCompileSaysSo) {
  WL_SKIP_WITHOUT_ENGINE(); // NVRTC compiles the saves
  const std::filesystem::path file = files_dir() / "saxpy.cu";
  write_file(file, example("saxpy.cu"));
  const Story story =
      play("wait\nedit " + file.string() +
               " \"const int i = blockIdx.x\" \"const int i = oops + blockIdx.x\"\nwait\nwait\n",
           "--model " + file.string());
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const std::string said = "story.txt:3: wait: settled; saxpy.cu does not compile: ";
  EXPECT_TRUE(wl::test::contains(story.output, said)) << story.output;
  EXPECT_TRUE(wl::test::contains(story.output, "identifier \"oops\" is undefined")) << story.output;
  EXPECT_FALSE(wl::test::contains(story.output, "story.txt:4: wait")) << story.output;
}

TEST(StoryKernelFile, FileOpenRefusesAFolderAndOpensATypedPath) {
  WL_SKIP_WITHOUT_ENGINE(); // a real worker
  const std::filesystem::path dir = files_dir();
  write_file(dir / "stencil.cu", example("stencil_2d.cu"));
  std::filesystem::create_directories(dir / "folder.cu");
  const std::string script = "window 1280x720\nclick \"File\"\nset \"path\" " +
                             (dir / "folder.cu").string() + "\nscreenshot refused.png\n" +
                             "set \"path\" " + (dir / "stencil.cu").string() +
                             "\nwait\nscreenshot opened.png\n";
  const Story story = play(script, "--model");
  ASSERT_EQ(story.exit_code, 0) << story.output;
  const json refused = story.sidecar("refused"), opened = story.sidecar("opened");
  EXPECT_NE(
      refused["configuration"]["status"].get<std::string>().find("is a folder; give a .cu file"),
      std::string::npos)
      << refused["configuration"]["status"];
  EXPECT_EQ(opened["configuration"]["kernel"], "stencil/stencil_2d");
  EXPECT_EQ(opened["configuration"]["block"], "32x8");
}

// The transpose example with its tile unpadded: the tile's columns fall on one bank, so the
// transposed read (line 34) is a 32-way conflict.
std::string unpadded_transpose() {
  std::string text = example("transpose.cu");
  text.replace(text.find("tile[Tile][Tile + Pad]"), 22, "tile[Tile][Tile]");
  return text;
}

// The bank grid's figures for the shared read of `file`'s line 34, before and after the person
// pads the tile in the file (an editor's save, which the GUI follows), chosen in the Source panel;
// with a worker that measures, each version also runs per site (F5).
struct PaddedStory {
  Story story;
  json before, after;
};
PaddedStory pad_the_tile_story(const std::string& options, bool per_site) {
  const std::filesystem::path file = files_dir() / "mine.cu";
  write_file(file, unpadded_transpose());
  const std::string choose_line =
      std::string("click \"Source\"\nclick \"line 34: shared load, 4 B\" in \"Source\"\nwait\n") +
      (per_site ? "key F5\nwait\n" : "");
  PaddedStory s;
  s.story = play(std::string("window 1280x720\nwait\nclick \"Source\"\n") +
                     (per_site ? "click \"Measure per line\" in \"Source\"\n" : "") + choose_line +
                     "screenshot before.png\nscreenshot before-source.png source\nedit " +
                     file.string() + " \"tile[Tile][Tile]\" \"tile[Tile][Tile + 1]\"\nwait\n" +
                     choose_line + "screenshot after.png\nscreenshot after-source.png source\n",
                 options + " " + file.string());
  s.before = s.story.sidecar("before");
  s.after = s.story.sidecar("after");
  return s;
}

// Whether the GUI's worker measures on a GPU here (its status line says "GPU mode"), or answers
// in model mode where there is none.
bool worker_measures() {
  const Story probe = play("window 1280x720\nwait\nscreenshot mode.png\n");
  return probe.sidecar("mode")["configuration"]["mode"].get<std::string>().starts_with("GPU mode");
}

// A person opens a kernel of their own, chooses the tile's read in the Source panel, reads its
// lanes on the bank grid (32-way), pads the tile in the file and sees the conflict go (1-way):
// in model mode, from the compiled code alone.
TEST(StoryKernelFile, ALineChosenShowsItsBanksAndPaddingTheTileEndsItsConflict) {
  WL_SKIP_WITHOUT_ENGINE(); // NVRTC compiles the file
  const PaddedStory s = pad_the_tile_story("--model", false);
  ASSERT_EQ(s.story.exit_code, 0) << s.story.output;
  const json before = s.before["shown"]["shared_map"], after = s.after["shown"]["shared_map"];
  EXPECT_EQ(before["site"], "line 34: shared load, 4 B") << before;
  EXPECT_EQ(before["conflict_degree"], 32) << before;
  EXPECT_EQ(before["wavefronts"], 32) << before;
  EXPECT_EQ(after["site"], "line 34: shared load, 4 B") << after;
  EXPECT_EQ(after["conflict_degree"], 1) << after;
  EXPECT_TRUE(says(s.before, "shared", "32-way bank conflict")) << text_of(s.before, "shared");
  EXPECT_TRUE(says(s.after, "shared", "no bank conflict")) << text_of(s.after, "shared");
  EXPECT_NE(s.before["configuration"]["kernel_file"]["hash"],
            s.after["configuration"]["kernel_file"]["hash"])
      << "the padded version is the one on screen";
}

// The same story with the worker a person gets: on a GPU each version is also measured per site,
// and the measured wavefronts stand beside the predicted ones (32, then 1); without a GPU the
// worker says so and the predictions stand alone, as above.
TEST(StoryKernelFile, WithAWorkerThePaddedTileIsMeasuredBesideItsPrediction) {
  WL_SKIP_WITHOUT_ENGINE(); // a real worker
  const bool measures = worker_measures();
  const PaddedStory s = pad_the_tile_story("", measures);
  ASSERT_EQ(s.story.exit_code, 0) << s.story.output;
  EXPECT_EQ(s.before["shown"]["shared_map"]["conflict_degree"], 32) << s.before["shown"];
  EXPECT_EQ(s.after["shown"]["shared_map"]["conflict_degree"], 1) << s.after["shown"];
  if (!measures)
    GTEST_SKIP() << "no GPU here: the worker answered in model mode";
  const json before = s.story.sidecar("before-source"), after = s.story.sidecar("after-source");
  const std::string measured_before = flat_text(before, "source"),
                    measured_after = flat_text(after, "source");
  EXPECT_NE(measured_before.find("shared 524,288 requests, 32.00 wavefronts/request"),
            std::string::npos)
      << measured_before;
  EXPECT_NE(measured_after.find("shared 524,288 requests, 1.00 wavefronts/request"),
            std::string::npos)
      << measured_after;
}

// In the process: the person's saves are real writes to the file; frames are drawn until the
// watch has seen each one.
struct LiveFile {
  std::filesystem::path file = scratch_dir() / "mine.cu";
  App app = make_app("vec_add/scalar", "h100");
  HeadlessGui gui{app, 1280, 800};

  explicit LiveFile(const std::string& text) {
    write_file(file, text);
    EXPECT_TRUE(app.open_kernel_file(file.string())) << app.file.open_problem;
  }
  // Writes the text as an editor saves it and draws frames until the status line follows.
  void save(const std::string& text) {
    const std::string before = app.messages.status;
    write_file(file, text);
    for (int frame = 0; frame < 500 && app.messages.status == before; ++frame) {
      gui.next_frame();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
};

TEST(KernelFileLive, ASaveThatDoesNotCompileKeepsTheLastVersionAndNamesItsLine) {
  WL_SKIP_WITHOUT_ENGINE();
  const std::string good = example("saxpy.cu");
  LiveFile live(good);
  const std::string hash = live.app.file.hash;
  const KernelDesc* before = live.app.kernel();
  std::string broken = good;
  broken.replace(broken.find("y[i] = a * x[i] + y[i];"), 23, "y[i] = a * x[i] + oops;");
  live.save(broken);
  EXPECT_NE(live.app.file.problem.find("mine.cu:18: error: identifier \"oops\" is undefined"),
            std::string::npos)
      << live.app.file.problem;
  EXPECT_EQ(live.app.file.problem_line, 18);
  EXPECT_EQ(live.app.kernel(), before) << "the last version stays";
  EXPECT_EQ(live.app.file.hash, hash);
  EXPECT_TRUE(live.app.kernel_file_broken());
  EXPECT_NE(live.app.file.lines[17].find("oops"), std::string::npos) << "the saved text is shown";

  std::string changed = good;
  changed.replace(changed.find("@warplens block 256"), 19, "@warplens block 128");
  live.save(changed);
  EXPECT_EQ(live.app.file.problem, "");
  EXPECT_NE(live.app.kernel(), before) << "the new version's kernel";
  EXPECT_NE(live.app.file.hash, hash);
  EXPECT_EQ(live.app.kernel()->default_block, (BlockShape{128, 1, 1}));
  EXPECT_NE(live.app.messages.status.find("mine.cu saved: compiled in"), std::string::npos)
      << live.app.messages.status;
}

TEST(KernelFileLive, AFileDeletedThenWrittenAgainIsFollowed) {
  WL_SKIP_WITHOUT_ENGINE();
  const std::string good = example("saxpy.cu");
  LiveFile live(good);
  const std::string before = live.app.messages.status;
  std::filesystem::remove(live.file);
  for (int frame = 0; frame < 500 && live.app.messages.status == before; ++frame) {
    live.gui.next_frame();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_NE(live.app.file.problem.find("No such file or directory"), std::string::npos)
      << live.app.file.problem;
  EXPECT_EQ(live.app.kernel()->id, "mine/saxpy") << "the last version stays on screen";
  live.save(good);
  EXPECT_EQ(live.app.file.problem, "");
}

TEST(KernelFileLive, TenSavesASecondEndOnTheLastOne) {
  WL_SKIP_WITHOUT_ENGINE();
  const std::string good = example("saxpy.cu");
  LiveFile live(good);
  for (int i = 1; i <= 20; ++i) {
    std::string text = good;
    text.replace(text.find("@warplens block 256"), 19, "@warplens block " + std::to_string(32 * i));
    write_file(live.file, text);
    live.gui.next_frame();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (int frame = 0; frame < 50; ++frame) {
    live.gui.next_frame();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(live.app.kernel()->default_block, (BlockShape{640, 1, 1}));
  EXPECT_EQ(live.app.file.problem, "");
}

TEST(KernelFileLive, TheSettingsRememberTheFileAndTheNextSessionReopensIt) {
  const std::filesystem::path dir = scratch_dir();
  write_file(dir / "stencil.cu", example("stencil_2d.cu"));
  App first = make_app("vec_add/scalar", "h100");
  ASSERT_TRUE(first.open_kernel_file((dir / "stencil.cu").string()));
  ASSERT_EQ(save_settings(first, dir / "config"), "");
  const json settings = read_json(dir / "config" / "settings.json");
  EXPECT_EQ(settings["kernel_file"], (dir / "stencil.cu").string()) << settings.dump(1);
  EXPECT_EQ(settings["recent_files"][0], (dir / "stencil.cu").string());
  App next = make_app("", "h100");
  EXPECT_EQ(load_settings(next, dir / "config"), "");
  EXPECT_EQ(next.choices.kernel_id, "stencil/stencil_2d");
  EXPECT_EQ(next.file.recent, first.file.recent);
  // The file gone by the next session: said.
  std::filesystem::remove(dir / "stencil.cu");
  App after = make_app("", "h100");
  EXPECT_NE(load_settings(after, dir / "config").find("kernel_file: kernel file '"),
            std::string::npos);
}

TEST(KernelFileLive, FilesThatCannotBeOpenedSayWhyAndLeaveTheScreenAsItWas) {
  App app = make_app("vec_add/scalar", "h100");
  const std::filesystem::path dir = scratch_dir();
  write_file(dir / "binary.cu", std::string("\x7f"
                                            "ELF\0\0",
                                            6));
  write_file(dir / "plain.cu", "__global__ void k() {}\n");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {(dir / "missing.cu").string(), "No such file or directory"},
      {dir.string() + "/", "is a folder"},
      {(dir / "binary.cu").string(), "is not text (it holds a NUL byte)"},
      {(dir / "plain.cu").string(), "no '// @warplens kernel NAME' line"},
      {(dir / "plain.cu").string() + ":other", "no '// @warplens kernel NAME' line"},
  };
  for (const auto& [path, says] : cases) {
    EXPECT_FALSE(app.open_kernel_file(path)) << path;
    EXPECT_NE(app.file.open_problem.find(says), std::string::npos) << app.file.open_problem;
    EXPECT_EQ(app.file.open_problem.find('\n'), std::string::npos);
    EXPECT_EQ(app.choices.kernel_id, "vec_add/scalar");
    EXPECT_FALSE(app.file.open());
  }
}

} // namespace
} // namespace wl::viz::test
