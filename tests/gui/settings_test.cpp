// Saved settings and layout: remembered between sessions; a damaged file is kept aside and
// reported in the status line, the defaults are used, and nothing crashes.

#include "gui_test_support.h"
#include "panels/panels.h"
#include "registry.h"
#include "workflows/settings.h"

#include <grp.h>

#include <unistd.h>

namespace wl::viz::test {
namespace {

TEST(GuiSettings, RoundTripThroughTheConfigFolder) {
  const std::filesystem::path dir = scratch_dir();
  {
    App app = make_app("transpose/naive", "a100");
    app.choices.theme = Theme::light;
    app.choices.live = true;
    app.open(Panel::timings) = false;
    app.choices.set_block({16, 16, 1});
    HeadlessGui gui(app, 800, 600, dir);
    gui.render();
  } // saves on the way out
  EXPECT_TRUE(std::filesystem::exists(dir / "settings.json"));
  App app = make_app("", "h100");
  EXPECT_EQ(load_settings(app, dir), "");
  EXPECT_EQ(app.choices.kernel_id, "transpose/naive");
  EXPECT_EQ(app.arch().id, "a100");
  EXPECT_EQ(app.choices.theme, Theme::light);
  EXPECT_TRUE(app.choices.live);
  EXPECT_FALSE(app.open(Panel::timings));
  EXPECT_EQ(app.block(), (BlockShape{16, 16, 1}));
}

// The defect: `warplens --kernel bank_conflicts/padded` opened on the saved matmul/tiled.
TEST(GuiSettings, TheCommandLinesLaunchAndArchWinOverTheSavedOnes) {
  const std::filesystem::path dir = scratch_dir();
  write_file(
      dir / "settings.json",
      R"({"kernel": "matmul/tiled", "params": {"tile": 32}, "block": [32, 32, 1], "arch": "a100",
          "theme": "light"})");
  App app = make_app("bank_conflicts/padded", "t4");
  app.choices.launch_from_command_line = app.choices.arch_from_command_line = true;
  EXPECT_EQ(load_settings(app, dir), "");
  EXPECT_EQ(app.choices.kernel_id, "bank_conflicts/padded");
  EXPECT_EQ(app.arch().id, "t4");
  EXPECT_EQ(app.choices.theme, Theme::light) << "the rest of the settings still apply";
  App plain = make_app("", "h100");
  EXPECT_EQ(load_settings(plain, dir), "");
  EXPECT_EQ(plain.choices.kernel_id, "matmul/tiled");
  EXPECT_EQ(plain.block(), (BlockShape{32, 32, 1}));
  EXPECT_EQ(plain.arch().id, "a100");
}

TEST(GuiSettings, CorruptSettingsFileMeansDefaultsAndAMessage) { // and the file kept aside, below
  const std::filesystem::path dir = scratch_dir();
  write_file(dir / "settings.json", "{\"kernel\": \"matmul/tiled\", \"theme\": ");
  App app = make_app("vec_add/scalar", "h100");
  HeadlessGui gui(app, 800, 600, dir);
  EXPECT_NE(app.messages.status.find("not valid JSON"), std::string::npos) << app.messages.status;
  EXPECT_EQ(app.choices.kernel_id, "vec_add/scalar");
  EXPECT_EQ(app.choices.theme, Theme::dark);
  EXPECT_GT(grey_variance(gui.render()), 100);
}

TEST(GuiSettings, ValuesThatCannotBeUsedAreNamedAndTheFileKeptAside) {
  const std::filesystem::path dir = scratch_dir();
  write_file(
      dir / "settings.json",
      R"({"kernel": "no/such", "arch": 42, "block": [0, "x"], "params": {"n": "big"}, "panels": [],
          "theme": "light", "ui_scale": 1000})");
  App app = make_app("vec_add/scalar", "h100");
  const std::string problem = load_settings(app, dir);
  EXPECT_NE(problem.find("kernel \"no/such\": allowed a bundled kernel's id"), std::string::npos)
      << problem;
  EXPECT_NE(problem.find("; also params.n, block, arch, ui_scale"), std::string::npos) << problem;
  EXPECT_NE(problem.find("kept as"), std::string::npos) << problem;
  EXPECT_EQ(app.choices.kernel_id, "vec_add/scalar");
  EXPECT_EQ(app.arch().id, "h100");
  EXPECT_EQ(app.choices.block_sides[1], 1);
  EXPECT_EQ(app.choices.ui_scale, 1.0f) << "1000 refused, not clamped";
  EXPECT_EQ(app.choices.theme, Theme::light) << "the usable values are applied";
  EXPECT_FALSE(std::filesystem::exists(dir / "settings.json"));
}

// The defect: a block of 2048 threads saved for matmul/tiled (which takes 16x16 or 32x32) was
// neither named nor kept aside, and was saved back unchanged. It is refused as a parameter the
// kernel refuses is: named, the file kept aside, the kernel's default block used.
TEST(GuiSettings, ABlockTheKernelRefusesIsNamedAndTheDefaultBlockUsed) {
  const std::filesystem::path dir = scratch_dir();
  write_file(dir / "settings.json",
             R"({"kernel": "matmul/tiled", "block": [32, 32, 2], "theme": "light"})");
  App app = make_app("vec_add/scalar", "h100");
  const std::string problem = load_settings(app, dir);
  EXPECT_NE(problem.find("settings partly applied"), std::string::npos) << problem;
  EXPECT_NE(problem.find("block [32,32,2]: matmul/tiled allows tile x tile: 16x16 with tile=16"),
            std::string::npos)
      << problem;
  EXPECT_NE(problem.find("kept as settings.json.bad-"), std::string::npos) << problem;
  EXPECT_EQ(app.choices.kernel_id, "matmul/tiled");
  EXPECT_EQ(app.block(), find_kernel("matmul/tiled")->default_block);
  EXPECT_EQ(app.choices.theme, Theme::light) << "the usable values are applied";
  EXPECT_EQ(save_settings(app, dir), "");
  EXPECT_EQ(read_json(dir / "settings.json")["block"], nlohmann::json::array({16, 16, 1}));
}

// The defect: "ui_scale": 1e999 made the whole file read as "not valid JSON". The number, its line
// and column are named, with that no setting can take it and where the file went.
TEST(GuiSettings, ANumberNoDoubleHoldsIsNamedWithItsPlace) {
  const std::filesystem::path dir = scratch_dir();
  write_file(dir / "settings.json", "{\n  \"theme\": \"light\",\n  \"ui_scale\": 1e999\n}\n");
  App app = make_app("vec_add/scalar", "h100");
  const std::string problem = load_settings(app, dir);
  EXPECT_NE(problem.find("settings.json holds the number 1e999 at line 3, column 15, too large "
                         "for any setting; kept as settings.json.bad-"),
            std::string::npos)
      << problem;
  EXPECT_EQ(problem.find("not valid JSON"), std::string::npos) << problem;
}

TEST(GuiSettings, ADamagedSettingsFileIsKeptAsideBeforeTheDefaultsAreSaved) {
  const std::filesystem::path dir = scratch_dir();
  const std::string damaged = "{\"kernel\": \"matmul/tiled\", \"theme\": ";
  write_file(dir / "settings.json", damaged);
  {
    App app = make_app("vec_add/scalar", "h100");
    HeadlessGui gui(app, 800, 600, dir);
    EXPECT_NE(app.messages.status.find("kept as"), std::string::npos) << app.messages.status;
    gui.render();
  } // saves the defaults on the way out
  int aside = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().filename().string().starts_with("settings.json.bad-")) {
      ++aside;
      std::ifstream in(entry.path());
      EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}),
                damaged); // the user's file, whole
    }
  EXPECT_EQ(aside, 1);
  EXPECT_TRUE(read_json(dir / "settings.json").is_object());
}

TEST(GuiSettings, AFolderWhereTheSettingsFileShouldBeIsLeftAlone) {
  const std::filesystem::path dir = scratch_dir();
  std::filesystem::create_directories(dir / "settings.json" / "inside");
  {
    App app = make_app("vec_add/scalar", "h100");
    HeadlessGui gui(app, 800, 600, dir);
    EXPECT_NE(app.messages.status.find("not a regular file"), std::string::npos)
        << app.messages.status;
    gui.render();
  }
  EXPECT_TRUE(std::filesystem::is_directory(dir / "settings.json" / "inside"));
}

TEST(GuiSettings, TheLayoutAndScaleAreRemembered) {
  const std::filesystem::path dir = scratch_dir();
  {
    App app = make_app("vec_add/scalar", "h100");
    app.choices.layout.left_width = 0.4f;
    app.choices.layout.tile[static_cast<int>(Panel::sweep)] = Tile::top_left;
    app.choices.ui_scale = 1.5f;
    HeadlessGui gui(app, 1024, 768, dir);
    gui.render();
  }
  App app = make_app("", "h100");
  EXPECT_EQ(load_settings(app, dir), "");
  EXPECT_FLOAT_EQ(app.choices.layout.left_width, 0.4f);
  EXPECT_EQ(app.choices.layout.tile[static_cast<int>(Panel::sweep)], Tile::top_left);
  EXPECT_FLOAT_EQ(app.choices.ui_scale, 1.5f);
}

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The defect: "kernal" (a typo) was dropped without a word and gone from the file at the next
// save. It is named, with the keys WarpLens knows, and kept.
TEST(GuiSettings, UnknownKeysAreNamedAndKeptWhenSaving) {
  const std::filesystem::path dir = scratch_dir();
  write_file(dir / "settings.json",
             R"({"kernal": "matmul/tiled", "theme": "light", "from_a_newer_version": {"x": [1]}})");
  {
    App app = make_app("vec_add/scalar", "h100");
    HeadlessGui gui(app, 800, 600, dir);
    EXPECT_NE(
        app.messages.status.find("settings.json: unknown keys 'from_a_newer_version', 'kernal' "
                                 "(kept; known: kernel, params, block"),
        std::string::npos)
        << app.messages.status;
    EXPECT_EQ(app.choices.theme, Theme::light) << "the known keys still apply";
    app.choices.live = !app.choices.live; // a change, so the settings are saved
    gui.render();
  }
  const nlohmann::json saved = read_json(dir / "settings.json");
  EXPECT_EQ(saved["kernal"], "matmul/tiled");
  EXPECT_EQ(saved["from_a_newer_version"], nlohmann::json::parse(R"({"x": [1]})"));
  EXPECT_EQ(saved["theme"], "light");
}

// The defect: an unknown key inside "panels" was dropped at the next save without a word, while
// one at the top was named and kept. Inside every object WarpLens reads, alike.
TEST(GuiSettings, UnknownKeysInsideObjectsAreNamedAndKeptWhenSaving) {
  const std::filesystem::path dir = scratch_dir();
  write_file(dir / "settings.json",
             R"({"panels": {"timings": false, "bogus": true},
                 "layout": {"left_width": 0.3, "tiles": {"newer_panel": "left"}, "gap": 2}})");
  {
    App app = make_app("vec_add/scalar", "h100");
    HeadlessGui gui(app, 800, 600, dir);
    EXPECT_NE(app.messages.status.find(
                  "settings.json: unknown keys 'layout.gap', 'layout.tiles.newer_panel', "
                  "'panels.bogus' (kept; known in layout: left_width, top_height"),
              std::string::npos)
        << app.messages.status;
    EXPECT_FALSE(app.open(Panel::timings)) << "the known keys still apply";
    EXPECT_FLOAT_EQ(app.choices.layout.left_width, 0.3f);
    app.choices.live = !app.choices.live; // a change, so the settings are saved
    gui.render();
  }
  const nlohmann::json saved = read_json(dir / "settings.json");
  EXPECT_EQ(saved["panels"]["bogus"], true);
  EXPECT_EQ(saved["panels"]["timings"], false);
  EXPECT_EQ(saved["layout"]["gap"], 2);
  EXPECT_EQ(saved["layout"]["tiles"]["newer_panel"], "left");
}

// The defect: for a settings.json linked to a file in a folder that does not exist, saving said
// "cannot write '.../settings.json': No such file or directory", of a file that is a link.
TEST(GuiSettings, ALinkToAMissingFolderIsNamedWithWhereItLeads) {
  const std::filesystem::path dir = scratch_dir();
  const std::filesystem::path target = dir / "missing" / "warplens.json";
  std::filesystem::create_symlink(target, dir / "settings.json");
  App app = make_app("vec_add/scalar", "h100");
  EXPECT_EQ(load_settings(app, dir), "");
  const std::string problem = save_settings(app, dir);
  EXPECT_NE(problem.find("settings.json' (a symbolic link to '" + target.string() +
                         "'): the folder '" + (dir / "missing").string() + "' does not exist"),
            std::string::npos)
      << problem;
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "settings.json"));
  EXPECT_FALSE(std::filesystem::exists(dir / "missing"));
}

// settings.json -> loop.json -> settings.json: said at once with the system's reason, and the
// links are left as they are (nothing is saved through them).
TEST(GuiSettings, ALinkLoopIsSaidAtStartAndLeftAlone) {
  const std::filesystem::path dir = scratch_dir();
  std::filesystem::create_symlink("loop.json", dir / "settings.json");
  std::filesystem::create_symlink("settings.json", dir / "loop.json");
  App app = make_app("vec_add/scalar", "h100");
  const std::string problem = load_settings(app, dir);
  // The reason first: the status line has room for the start of a message, and paths are long.
  EXPECT_TRUE(problem.starts_with("settings not loaded (Too many levels of symbolic links), "
                                  "defaults used, nothing saved: " +
                                  (dir / "settings.json").string()))
      << problem;
  EXPECT_FALSE(app.choices.settings_writable);
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "settings.json"));
  EXPECT_EQ(std::filesystem::read_symlink(dir / "settings.json"), "loop.json");
  const SystemCheck check = check_settings(dir);
  EXPECT_FALSE(check.ok()) << check.found;
  EXPECT_NE(check.found.find("Too many levels"), std::string::npos) << check.found;
}

// As a user who may not read the file (root reads any): exits 0 when load_settings gave the
// system's reason, left the file where it was and saves nothing over it. It ends with _Exit: the
// forked child shares the parent's EGL and GPU state, which static destructors run by exit() would
// tear down under the parent's later tests.
[[noreturn]] void load_unreadable_settings(const std::filesystem::path& dir) {
  if (::geteuid() == 0 &&
      (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0))
    std::_Exit(3);
  App app = make_app("vec_add/scalar", "h100");
  const std::string problem = load_settings(app, dir);
  const bool said = problem.find("settings not loaded (Permission denied)") != std::string::npos &&
                    problem.find("not valid JSON") == std::string::npos;
  std::_Exit(!said ? 1 : app.choices.settings_writable ? 2 : 0);
}

// The defect: a settings file without read permission was reported as "not valid JSON ...
// unexpected end of input" and moved aside, as if it were damaged.
TEST(GuiSettings, AnUnreadableFileIsNamedWithTheSystemsReasonAndLeftAlone) {
  const std::filesystem::path dir = scratch_dir();
  std::filesystem::permissions(dir, std::filesystem::perms::all); // its user may move files
  write_file(dir / "settings.json", R"({"theme": "light"})");
  std::filesystem::permissions(dir / "settings.json", std::filesystem::perms::none);
  EXPECT_EXIT(load_unreadable_settings(dir), testing::ExitedWithCode(0), "");
  std::filesystem::permissions(dir / "settings.json", std::filesystem::perms::owner_read);
  EXPECT_EQ(read_text(dir / "settings.json"), R"({"theme": "light"})") << "left where it was";
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                          std::filesystem::directory_iterator()),
            1)
      << "nothing moved aside";
}

// The defect: a settings.json linked from a dotfiles folder was replaced by a plain file, so the
// dotfiles' copy no longer followed the settings.
TEST(GuiSettings, ALinkedSettingsFileIsWrittenWhereItPoints) {
  const std::filesystem::path dir = scratch_dir();
  std::filesystem::create_directories(dir / "dotfiles");
  write_file(dir / "dotfiles" / "warplens.json", R"({"theme": "light"})");
  std::filesystem::create_directories(dir / "config");
  std::filesystem::create_symlink("../dotfiles/warplens.json", dir / "config" / "settings.json");
  {
    App app = make_app("vec_add/scalar", "h100");
    HeadlessGui gui(app, 800, 600, dir / "config");
    EXPECT_EQ(app.choices.theme, Theme::light);
    app.choices.ui_scale = 1.5f;
    gui.render();
  }
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "config" / "settings.json"));
  EXPECT_FLOAT_EQ(read_json(dir / "dotfiles" / "warplens.json")["ui_scale"].get<float>(), 1.5f);
}

// The defect: settings were written to a fixed settings.json.tmp, following a link planted under
// that name (into any file the user may write) and clobbering a file of that name.
TEST(GuiSettings, ATemporaryNameIsNeverFollowedNorClobbered) {
  const std::filesystem::path dir = scratch_dir();
  write_file(dir / "victim.txt", "the user's file");
  std::filesystem::create_symlink(dir / "victim.txt", dir / "settings.json.tmp");
  App app = make_app("vec_add/scalar", "h100");
  EXPECT_EQ(save_settings(app, dir), "");
  EXPECT_EQ(read_text(dir / "victim.txt"), "the user's file");
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "settings.json.tmp"));
  EXPECT_TRUE(read_json(dir / "settings.json").is_object());
}

// The defect: HOME=/nonexistent/home made that folder to save the settings in. It is never made;
// the status line says the settings are not saved and why, and the session goes on.
TEST(GuiSettings, AMissingHomeIsNeverMadeAndTheStatusSaysWhy) {
  const std::filesystem::path home = scratch_dir() / "nonexistent" / "home";
  const char* saved_home = std::getenv("HOME");
  const char* saved_config = std::getenv("XDG_CONFIG_HOME");
  const std::string old_home = saved_home ? saved_home : "",
                    old_config = saved_config ? saved_config : "";
  ::setenv("HOME", home.c_str(), 1);
  ::unsetenv("XDG_CONFIG_HOME");
  std::string status;
  {
    App app = make_app("vec_add/scalar", "h100");
    HeadlessGui gui(app, 800, 600, default_config_dir());
    status = app.messages.status;
    app.choices.live = !app.choices.live;
    EXPECT_GT(grey_variance(gui.render()), 100);
  } // saving on the way out makes nothing either
  saved_home ? ::setenv("HOME", old_home.c_str(), 1) : ::unsetenv("HOME");
  if (saved_config)
    ::setenv("XDG_CONFIG_HOME", old_config.c_str(), 1);
  EXPECT_NE(
      status.find("settings not saved this session: HOME '" + home.string() + "' does not exist"),
      std::string::npos)
      << status;
  EXPECT_FALSE(std::filesystem::exists(home.parent_path()));
}

} // namespace
} // namespace wl::viz::test
