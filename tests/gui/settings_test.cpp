// Saved layout and settings: remembered between sessions; a damaged file is reported in the
// status line, the defaults are used, and nothing crashes.

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
  EXPECT_TRUE(std::filesystem::exists(dir / "layout.ini"));
  App app = make_app("", "h100");
  EXPECT_EQ(load_settings(app, dir), "");
  EXPECT_EQ(app.kernel_id, "transpose/naive");
  EXPECT_EQ(app.arch().id, "a100");
  EXPECT_EQ(app.theme, Theme::light);
  EXPECT_TRUE(app.live);
  EXPECT_FALSE(app.open(Panel::timings));
  EXPECT_EQ(app.block(), (BlockShape{16, 16, 1}));
}

TEST(GuiSettings, CorruptSettingsFileMeansDefaultsAndAMessage) {
  const std::filesystem::path dir = scratch_dir();
  write_file(dir / "settings.json", "{\"kernel\": \"matmul/tiled\", \"theme\": ");
  App app = make_app("vec_add/scalar", "h100");
  HeadlessGui gui(app, 800, 600, dir);
  EXPECT_NE(app.status.find("not valid JSON"), std::string::npos) << app.status;
  EXPECT_EQ(app.kernel_id, "vec_add/scalar");
  EXPECT_EQ(app.theme, Theme::dark);
  EXPECT_GT(grey_variance(gui.render()), 100);
}

TEST(GuiSettings, WrongTypesAndUnknownNamesAreIgnored) {
  const std::filesystem::path dir = scratch_dir();
  write_file(dir / "settings.json",
             R"({"kernel": "no/such", "arch": 42, "block": [0, "x"], "params": {"n": "big"}, "panels": []})");
  App app = make_app("vec_add/scalar", "h100");
  load_settings(app, dir);
  EXPECT_EQ(app.kernel_id, "vec_add/scalar");
  EXPECT_EQ(app.arch().id, "h100");
  EXPECT_EQ(app.block_sides[1], 1);
}

TEST(GuiSettings, CorruptLayoutFileMeansDefaultLayoutAndAMessage) {
  const std::filesystem::path dir = scratch_dir();
  write_file(dir / "layout.ini", std::string("[Window][Launch]\nPos=10,10\n\x01\x02\xff garbage\0\0", 40));
  App app = make_app("vec_add/scalar", "h100");
  HeadlessGui gui(app, 1024, 768, dir);
  EXPECT_NE(app.status.find("layout file"), std::string::npos) << app.status;
  gui.render();
  // The default placement, not the damaged file's.
  const PanelPlacement launch = default_placement(Panel::launch, 1024, 768);
  EXPECT_FLOAT_EQ(app.rect(Panel::launch).x, launch.x);
  EXPECT_FLOAT_EQ(app.rect(Panel::launch).y, launch.y);
}

TEST(GuiSettings, ALayoutFromAnEarlierSessionIsUsed) {
  const std::filesystem::path dir = scratch_dir();
  write_file(dir / "layout.ini", "[Window][Launch]\nPos=40,60\nSize=300,400\nCollapsed=0\n");
  App app = make_app("vec_add/scalar", "h100");
  HeadlessGui gui(app, 1024, 768, dir);
  gui.render();
  EXPECT_EQ(app.status, "");
  EXPECT_FLOAT_EQ(app.rect(Panel::launch).x, 40);
  EXPECT_FLOAT_EQ(app.rect(Panel::launch).width, 300);
}

} // namespace
} // namespace wl::viz::test
