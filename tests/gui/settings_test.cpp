// Saved settings and layout: remembered between sessions; a damaged file is kept aside and
// reported in the status line, the defaults are used, and nothing crashes.

#include "gui_test_support.h"
#include "panels.h"
#include "settings.h"

namespace wl::viz::test {
namespace {

TEST(GuiSettings, RoundTripThroughTheConfigFolder) {
  const std::filesystem::path dir = scratch_dir();
  {
    App app = make_app("transpose/naive", "a100");
    app.theme = Theme::light;
    app.live = true;
    app.open(Panel::timings) = false;
    app.set_block({16, 16, 1});
    HeadlessGui gui(app, 800, 600, dir);
    gui.render();
  } // saves on the way out
  EXPECT_TRUE(std::filesystem::exists(dir / "settings.json"));
  App app = make_app("", "h100");
  EXPECT_EQ(load_settings(app, dir), "");
  EXPECT_EQ(app.kernel_id, "transpose/naive");
  EXPECT_EQ(app.arch().id, "a100");
  EXPECT_EQ(app.theme, Theme::light);
  EXPECT_TRUE(app.live);
  EXPECT_FALSE(app.open(Panel::timings));
  EXPECT_EQ(app.block(), (BlockShape{16, 16, 1}));
}

// The defect: `warplens --kernel bank_conflicts/padded` opened on the saved matmul/tiled.
TEST(GuiSettings, TheCommandLinesLaunchAndArchWinOverTheSavedOnes) {
  const std::filesystem::path dir = scratch_dir();
  write_file(dir / "settings.json",
             R"({"kernel": "matmul/tiled", "block": [32, 32, 1], "arch": "a100", "theme": "light"})");
  App app = make_app("bank_conflicts/padded", "t4");
  app.launch_from_command_line = app.arch_from_command_line = true;
  EXPECT_EQ(load_settings(app, dir), "");
  EXPECT_EQ(app.kernel_id, "bank_conflicts/padded");
  EXPECT_EQ(app.arch().id, "t4");
  EXPECT_EQ(app.theme, Theme::light) << "the rest of the settings still apply";
  App plain = make_app("", "h100");
  EXPECT_EQ(load_settings(plain, dir), "");
  EXPECT_EQ(plain.kernel_id, "matmul/tiled");
  EXPECT_EQ(plain.block(), (BlockShape{32, 32, 1}));
  EXPECT_EQ(plain.arch().id, "a100");
}

TEST(GuiSettings, CorruptSettingsFileMeansDefaultsAndAMessage) { // and the file kept aside, below
  const std::filesystem::path dir = scratch_dir();
  write_file(dir / "settings.json", "{\"kernel\": \"matmul/tiled\", \"theme\": ");
  App app = make_app("vec_add/scalar", "h100");
  HeadlessGui gui(app, 800, 600, dir);
  EXPECT_NE(app.status.find("not valid JSON"), std::string::npos) << app.status;
  EXPECT_EQ(app.kernel_id, "vec_add/scalar");
  EXPECT_EQ(app.theme, Theme::dark);
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
  EXPECT_EQ(app.kernel_id, "vec_add/scalar");
  EXPECT_EQ(app.arch().id, "h100");
  EXPECT_EQ(app.block_sides[1], 1);
  EXPECT_EQ(app.ui_scale, 1.0f) << "1000 refused, not clamped";
  EXPECT_EQ(app.theme, Theme::light) << "the usable values are applied";
  EXPECT_FALSE(std::filesystem::exists(dir / "settings.json"));
}

TEST(GuiSettings, ADamagedSettingsFileIsKeptAsideBeforeTheDefaultsAreSaved) {
  const std::filesystem::path dir = scratch_dir();
  const std::string damaged = "{\"kernel\": \"matmul/tiled\", \"theme\": ";
  write_file(dir / "settings.json", damaged);
  {
    App app = make_app("vec_add/scalar", "h100");
    HeadlessGui gui(app, 800, 600, dir);
    EXPECT_NE(app.status.find("kept as"), std::string::npos) << app.status;
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
    EXPECT_NE(app.status.find("not a regular file"), std::string::npos) << app.status;
    gui.render();
  }
  EXPECT_TRUE(std::filesystem::is_directory(dir / "settings.json" / "inside"));
}

TEST(GuiSettings, TheLayoutAndScaleAreRemembered) {
  const std::filesystem::path dir = scratch_dir();
  {
    App app = make_app("vec_add/scalar", "h100");
    app.layout.left_width = 0.4f;
    app.layout.tile[static_cast<int>(Panel::sweep)] = Tile::top_left;
    app.ui_scale = 1.5f;
    HeadlessGui gui(app, 1024, 768, dir);
    gui.render();
  }
  App app = make_app("", "h100");
  EXPECT_EQ(load_settings(app, dir), "");
  EXPECT_FLOAT_EQ(app.layout.left_width, 0.4f);
  EXPECT_EQ(app.layout.tile[static_cast<int>(Panel::sweep)], Tile::top_left);
  EXPECT_FLOAT_EQ(app.ui_scale, 1.5f);
}

} // namespace
} // namespace wl::viz::test
