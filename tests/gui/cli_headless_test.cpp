// `warplens --headless --screenshot`: the default view or one panel in model mode, as PNG + JSON
// sidecar, with the path printed; bad input is one line and exit code 2. `warplens` with no
// display falls back to the same headless view and says where it went.

#include "../unit/test_support.h"
#include "gui_test_support.h"
#include "story_support.h"

namespace wl::viz::test {
namespace {

using Command = wl::test::CommandResult;

// warplens run in `dir` with no display, as on a server or in CI.
Command run_in(const std::filesystem::path& dir, const std::string& args) {
  return wl::test::run_warplens(args,
                                "cd '" + dir.string() + "' && env -u DISPLAY -u WAYLAND_DISPLAY ");
}

std::string last_line(const std::string& text) {
  std::string trimmed = text.substr(0, text.find_last_not_of('\n') + 1);
  return trimmed.substr(trimmed.find_last_of('\n') + 1);
}

TEST(GuiCli, HeadlessScreenshotOfOnePanelPrintsItsPath) {
  const std::filesystem::path dir = scratch_dir();
  const Command r = run_in(
      dir, "--headless --screenshot out.png --kernel matmul/tiled --block 16x16 --panel occupancy");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(last_line(r.out), "out.png");
  const nlohmann::json sidecar = read_json(dir / "out.json");
  EXPECT_EQ(sidecar["screenshot"]["panel"], "occupancy");
  EXPECT_EQ(sidecar["configuration"]["kernel"], "matmul/tiled");
  EXPECT_EQ(sidecar["configuration"]["block"], "16x16");
  EXPECT_TRUE(sidecar["result"]["occupancy"]["occupancy"].is_number());
  // The same command again keeps the first file and names the second differently.
  const Command again =
      run_in(dir, "--headless --screenshot out.png --kernel matmul/tiled --block 16x16");
  ASSERT_EQ(again.exit_code, 0) << again.out;
  EXPECT_NE(last_line(again.out), "out.png");
  EXPECT_TRUE(std::filesystem::exists(dir / last_line(again.out)));
}

TEST(GuiCli, AHeadlessBaselineIsPinnedFirst) {
  const std::filesystem::path dir = scratch_dir();
  const Command r = run_in(
      dir, "--headless --screenshot cmp.png --kernel softmax/block_tree --baseline softmax/naive");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const nlohmann::json sidecar = read_json(dir / "cmp.json");
  EXPECT_EQ(sidecar["baseline"]["kernel"], "softmax/naive");
  EXPECT_EQ(sidecar["result"]["kernel"], "softmax/block_tree");
  const Command unknown = run_in(
      dir, "--headless --screenshot x.png --kernel softmax/block_tree --baseline softmax/nope");
  EXPECT_EQ(unknown.exit_code, 2) << unknown.out;
  EXPECT_NE(unknown.out.find("softmax/nope"), std::string::npos) << unknown.out;
}

TEST(GuiCli, BadInputIsOneLineAndExitTwo) {
  const std::filesystem::path dir = scratch_dir();
  const Command block =
      run_in(dir, "--headless --screenshot x.png --kernel matmul/tiled --block 7x7");
  EXPECT_EQ(block.exit_code, 2) << block.out;
  EXPECT_NE(block.out.find("7x7"), std::string::npos) << block.out;
  const Command panel = run_in(dir, "--headless --panel nope");
  EXPECT_EQ(panel.exit_code, 2) << panel.out;
  EXPECT_NE(panel.out.find("nope"), std::string::npos) << panel.out;
  // A near miss is named, as a script's is, and every panel key is listed from the panel table.
  const Command near = run_in(dir, "--headless --panel timing");
  EXPECT_EQ(near.exit_code, 2) << near.out;
  EXPECT_NE(near.out.find("did you mean 'timings'"), std::string::npos) << near.out;
  EXPECT_NE(near.out.find(panel_keys_listed()), std::string::npos) << near.out;
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

// A lab's recording of vec_add/scalar on the H200, dated 2026-12-05, written as dir/lab.json.
nlohmann::json write_lab_recording(const std::filesystem::path& dir) {
  nlohmann::json lab = lab_recording_of_vec_add();
  lab["date"] = "2026-12-05";
  std::ofstream(dir / "lab.json") << lab.dump();
  return lab;
}

// The sidecar of `--headless --model --screenshot NAME.png ARGS --recording lab.json`, whose
// figures are the lab's, on its preset (model mode: where a GPU is, a worker would measure them).
nlohmann::json shown_with_lab(const std::filesystem::path& dir, const std::string& name,
                              const std::string& args) {
  const Command shown = run_in(dir, "--headless --model --screenshot " + name + ".png " + args +
                                        " --recording lab.json");
  EXPECT_EQ(shown.exit_code, 0) << shown.out;
  const nlohmann::json sidecar = read_json(dir / (name + ".json"));
  EXPECT_TRUE(sidecar["figures"]["recorded_on"].get<std::string>().starts_with(
      "recorded on NVIDIA H200, 2026-12-05"))
      << sidecar["figures"]["recorded_on"];
  EXPECT_EQ(sidecar["configuration"]["arch"], "h200");
  return sidecar;
}

// --recording: model mode shows the figures of the file given, of its preset; a file that is no
// recording, or a preset --arch contradicts, is one line and exit 2, and nothing is written.
TEST(GuiCli, ARecordingGivenIsShownAndABadOneRefused) {
  const std::filesystem::path dir = scratch_dir();
  const nlohmann::json lab = write_lab_recording(dir);
  shown_with_lab(dir, "v", "--kernel vec_add/scalar");

  const std::filesystem::path quiet = dir / "refused";
  std::filesystem::create_directories(quiet);
  std::ofstream(quiet / "cut.json") << lab.dump().substr(0, 3000);
  for (const std::string& args :
       {std::string("--headless --recording cut.json"), std::string("--headless --recording ."),
        std::string("--headless --recording missing.json"),
        std::string("--headless --recording ../lab.json --arch h100")}) {
    const Command refused = run_in(quiet, args);
    EXPECT_EQ(refused.exit_code, 2) << args << ": " << refused.out;
    EXPECT_NE(refused.out.find("--recording"), std::string::npos) << refused.out;
    EXPECT_EQ(refused.out.find('\n'), refused.out.size() - 1) << refused.out;
  }
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(quiet), {}), 1) << "cut.json alone";
}

// The defect: a lab's H200 recording given with a lesson showed the H100's figures (the lesson's
// preset), and --arch with --lesson was dropped. A preset the person chose takes the lesson's
// place, and the Lessons panel says so.
TEST(GuiCli, ALessonRunsOnThePresetChosenOrTheRecordingsPreset) {
  const std::filesystem::path dir = scratch_dir();
  write_lab_recording(dir);
  const nlohmann::json r = shown_with_lab(dir, "r", "--lesson vector-add");
  EXPECT_TRUE(says(r, "lessons",
                   "On h200, the preset of the recording you opened (the lesson's own is h100)."))
      << text_of(r, "lessons");

  const Command chosen =
      run_in(dir, "--headless --screenshot a.png --lesson occupancy --arch a100");
  ASSERT_EQ(chosen.exit_code, 0) << chosen.out;
  const nlohmann::json a = read_json(dir / "a.json");
  EXPECT_EQ(a["configuration"]["arch"], "a100");
  EXPECT_TRUE(says(a, "lessons", "On a100, the preset you chose (the lesson's own is h100)."))
      << text_of(a, "lessons");
  const Command own = run_in(dir, "--headless --screenshot o.png --lesson occupancy");
  ASSERT_EQ(own.exit_code, 0) << own.out;
  const nlohmann::json o = read_json(dir / "o.json");
  EXPECT_EQ(o["configuration"]["arch"], "h100");
  EXPECT_FALSE(says(o, "lessons", "the preset you chose")) << text_of(o, "lessons");
}

TEST(GuiCli, NoDisplayWritesTheDefaultViewAndSaysWhere) {
  const std::filesystem::path dir = scratch_dir();
  const Command r = run_in(dir, "");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("no window"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(dir / last_line(r.out))) << r.out;
}

// The defect: `HOME=/nonexistent/home warplens --headless` made that folder for its pictures.
// It is never made: one line says why, and how to say where the picture goes instead.
TEST(GuiCli, AMissingHomeIsNeverMadeForThePicturesFolder) {
  const std::filesystem::path dir = scratch_dir();
  const std::filesystem::path home = dir / "nonexistent" / "home";
  const Command r = wl::test::run_warplens(
      "--headless --model --kernel vec_add/scalar",
      "cd '" + dir.string() + "' && env -u DISPLAY -u WAYLAND_DISPLAY -u XDG_PICTURES_DIR " +
          "-u XDG_CONFIG_HOME HOME='" + home.string() + "' ");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(
      last_line(r.out).find("no folder for pictures: HOME '" + home.string() + "' does not exist"),
      std::string::npos)
      << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir / "nonexistent"));
}

// `warplens --headless` with no --screenshot, `env` (the HOME asked for) and its copies kept in
// `kept`: what it printed.
Command save_with_home(const std::filesystem::path& dir, const std::string& env,
                       const std::filesystem::path& kept) {
  std::filesystem::create_directories(kept);
  return wl::test::run_warplens(
      "--headless --model --kernel vec_add/scalar",
      "cd '" + dir.string() + "' && env -u DISPLAY -u WAYLAND_DISPLAY -u XDG_PICTURES_DIR " +
          "-u XDG_CONFIG_HOME " + env + " TMPDIR='" + kept.string() + "' ");
}

// The defect: with HOME="" the picture was written into the current folder without a word. A
// HOME that is empty, not set, or not a folder is a HOME that names no folder, as a missing one:
// nothing is made, the picture is kept in $TMPDIR, and the line says where and why.
TEST(GuiCli, AnEmptyOrUnsetHomeIsNoFolderForPictures) {
  const std::filesystem::path root = scratch_dir();
  for (const auto& [env, why] : std::vector<std::pair<std::string, std::string>>{
           {"HOME=", "HOME is empty"}, {"-u HOME", "HOME is not set"}}) {
    const std::filesystem::path dir = root / why / "cwd", kept = root / why / "kept";
    std::filesystem::create_directories(dir);
    const Command r = save_with_home(dir, env, kept);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(last_line(r.out).find("no folder for pictures: " + why), std::string::npos) << r.out;
    EXPECT_NE(last_line(r.out).find("the picture kept in '" + kept.string()), std::string::npos)
        << r.out;
    EXPECT_TRUE(std::filesystem::is_empty(dir)) << "nothing in the current folder";
  }
}

// The defect: HOME naming a file was said to "not exist".
TEST(GuiCli, AHomeThatIsAFileIsSaidToBeNoFolder) {
  const std::filesystem::path dir = scratch_dir();
  write_file(dir / "home", "a file");
  const Command r = save_with_home(dir, "HOME='" + (dir / "home").string() + "'", dir / "kept");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(last_line(r.out).find("no folder for pictures: HOME '" + (dir / "home").string() +
                                  "' is not a folder"),
            std::string::npos)
      << r.out;
}

// `warplens --headless` with no --screenshot, HOME `home` and the pictures folder `pictures`.
Command save_into_the_pictures_folder(const std::filesystem::path& dir,
                                      const std::filesystem::path& home,
                                      const std::filesystem::path& pictures) {
  return wl::test::run_warplens(
      "--headless --model --kernel vec_add/scalar",
      "cd '" + dir.string() + "' && env -u DISPLAY -u WAYLAND_DISPLAY -u XDG_CONFIG_HOME HOME='" +
          home.string() + "' XDG_PICTURES_DIR='" + pictures.string() + "' ");
}

// Only WarpLens/ is made, inside the pictures folder the desktop names.
TEST(GuiCli, ThePicturesFolderGetsAWarpLensFolderInside) {
  const std::filesystem::path dir = scratch_dir();
  std::filesystem::create_directories(dir / "home" / "pics");
  const Command r = save_into_the_pictures_folder(dir, dir / "home", dir / "home" / "pics");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(last_line(r.out).rfind((dir / "home" / "pics" / "WarpLens").string(), 0), 0u) << r.out;
  EXPECT_TRUE(std::filesystem::exists(last_line(r.out))) << r.out;
  EXPECT_EQ(r.out.find("does not exist"), std::string::npos) << r.out;
}

// The picture went to the fallback, ~/Pictures/WarpLens under `dir`/home, and the output says why
// the pictures folder named (`named`) was not used: it `why`.
void expect_saved_in_the_fallback(const Command& r, const std::filesystem::path& dir,
                                  const std::filesystem::path& named, const std::string& why) {
  const std::filesystem::path fallback = dir / "home" / "Pictures" / "WarpLens";
  EXPECT_EQ(last_line(r.out).rfind(fallback.string(), 0), 0u) << r.out;
  EXPECT_TRUE(std::filesystem::exists(last_line(r.out))) << r.out;
  EXPECT_NE(r.out.find("the pictures folder '" + named.string() + "' ($XDG_PICTURES_DIR) " + why +
                       "; saving in '" + fallback.string() + "' instead"),
            std::string::npos)
      << r.out;
}

// The defect: XDG_PICTURES_DIR=/nonexistent/pics made /nonexistent/pics/WarpLens, the whole
// chain, without a word. A pictures folder that does not exist is not made: the picture goes to
// ~/Pictures/WarpLens, and the output says why.
TEST(GuiCli, AMissingPicturesFolderIsNotMadeAndTheFallbackIsSaid) {
  const std::filesystem::path dir = scratch_dir();
  std::filesystem::create_directories(dir / "home");
  const std::filesystem::path missing = dir / "nonexistent" / "pics";
  const Command r = save_into_the_pictures_folder(dir, dir / "home", missing);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir / "nonexistent"));
  expect_saved_in_the_fallback(r, dir, missing, "does not exist");
}

// The defect: XDG_PICTURES_DIR=/etc/passwd was said to "not exist". A pictures folder that is no
// folder is said to be none; the picture goes to ~/Pictures/WarpLens and the output says so.
TEST(GuiCli, APicturesFolderThatIsAFileIsSaidToBeNoFolder) {
  const std::filesystem::path dir = scratch_dir();
  std::filesystem::create_directories(dir / "home");
  write_file(dir / "pictures", "a file");
  const Command r = save_into_the_pictures_folder(dir, dir / "home", dir / "pictures");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  expect_saved_in_the_fallback(r, dir, dir / "pictures", "is not a folder");
}

// The defect: a script's Export CSV saved the table in the fallback folder and printed nothing of
// where it went. Each file a script's click or key saves is printed, as its screenshots are.
TEST(GuiCli, AScriptsExportSaysWhereItWent) {
  const std::filesystem::path dir = scratch_dir();
  std::filesystem::create_directories(dir / "home");
  write_file(dir / "pictures", "a file");
  write_file(dir / "export.txt", "click \"Sweep\"\nclick \"Model sweep\"\nwait\n"
                                 "click \"Export CSV\"\nclick \"Export PNG\"\n");
  const Command r = wl::test::run_warplens(
      "--headless --model --kernel vec_add/scalar --script export.txt",
      "cd '" + dir.string() + "' && env -u DISPLAY -u WAYLAND_DISPLAY -u XDG_CONFIG_HOME HOME='" +
          (dir / "home").string() + "' XDG_PICTURES_DIR='" + (dir / "pictures").string() + "' ");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string folder = (dir / "home" / "Pictures" / "WarpLens").string();
  for (const std::string& line : {"export.txt:4: saved '" + folder + "/warplens-",
                                  "export.txt:5: saved '" + folder + "/warplens-"})
    EXPECT_NE(r.out.find(line), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-sweep.csv' (the pictures folder '" + (dir / "pictures").string() +
                       "' ($XDG_PICTURES_DIR) is not a folder"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("-sweep.png' (the pictures folder"), std::string::npos) << r.out;
}

// The defect: `warplens --headless` showed the models and the recording even on a machine with a
// GPU. It measures through the worker as the window does; the sidecar says which it did.
TEST(GuiCli, HeadlessMeasuresThroughTheWorkerWhereThereIsAGpu) {
  const std::filesystem::path dir = scratch_dir();
  const Command arches = run_in(dir, "arches --json"); // the GPUs, as a person lists them
  ASSERT_EQ(arches.exit_code, 0) << arches.out;
  const bool gpu =
      !nlohmann::json::parse(arches.out)["devices"].get<std::string>().starts_with("none");
  const Command r = run_in(dir, "--headless --kernel vec_add/scalar --screenshot x.png");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const nlohmann::json sidecar = read_json(dir / "x.json");
  const std::string mode = sidecar["configuration"]["mode"];
  if (gpu) {
    EXPECT_TRUE(mode.starts_with("GPU mode")) << mode;
    EXPECT_TRUE(sidecar["result"]["timing"].is_object()) << sidecar["result"];
    EXPECT_EQ(sidecar["figures"]["recorded_on"], ""); // measured here, not the recording
  } else {
    EXPECT_TRUE(mode.starts_with("model mode")) << mode;
  }
}

} // namespace
} // namespace wl::viz::test
