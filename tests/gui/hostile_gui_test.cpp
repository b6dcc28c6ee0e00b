// Hostile input on the GUI's side: scripts (`--script`), the settings file, and screenshot paths
// (`--screenshot`). Every case ends in one clear line (or a clean save), the right exit code, no
// signal, no hang, and no file of the user's lost or overwritten.

#include "../unit/hostile_support.h"
#include "front_end/screenshot.h"
#include "front_end/script.h"
#include "gui_test_support.h"
#include "registry.h"
#include "workflows/settings.h"

#include <filesystem>

namespace wl::viz::test {
namespace {

namespace fs = std::filesystem;
using wl::test::case_name;
using wl::test::expect_good_message;
using wl::test::expect_usage_error;
using wl::test::InputCase;
using wl::test::nested;

std::string repeated(const std::string& text, int times) {
  std::string all;
  for (int i = 0; i < times; ++i)
    all += text;
  return all;
}

// ---- Scripts: every line the reader cannot carry out is refused naming FILE:LINE. ----

const std::vector<InputCase> kScripts = {
    {"WindowWithoutSize", "window", {"hostile.txt:1", "WIDTHxHEIGHT"}},
    {"WindowOneNumber", "window 1280", {"hostile.txt:1", "320x200 to 8192x8192"}},
    {"WindowZero", "window 0x0", {"hostile.txt:1", "'0x0'"}},
    {"WindowHuge", "window 1e999x720", {"hostile.txt:1", "1e999x720"}},
    {"WindowNegative", "window -1280x720", {"hostile.txt:1", "-1280x720"}},
    {"WindowTooLarge", "window 100000x100000", {"hostile.txt:1", "8192x8192"}},
    {"WindowThreeSides", "window 1280x720x3", {"hostile.txt:1", "1280x720x3"}},
    {"WindowNoWidth", "window x720", {"hostile.txt:1", "x720"}},
    {"WindowNoHeight", "window 1280x", {"hostile.txt:1", "1280x"}},
    {"WindowTwoWords", "window 1280 720", {"hostile.txt:1", "one size"}},
    {"WindowOverflow", "window 99999999999999999999x720", {"hostile.txt:1", "not a size"}},
    {"WindowUppercaseVerb", "WINDOW 0x0", {"hostile.txt:1", "'0x0'"}},
    {"ScaleMissing", "scale", {"hostile.txt:1", "0.5 to 4"}},
    {"ScaleZero", "scale 0", {"hostile.txt:1", "'0'"}},
    {"ScaleNegative", "scale -1", {"hostile.txt:1", "'-1'"}},
    {"ScaleNaN", "scale nan", {"hostile.txt:1", "'nan'"}},
    {"ScaleInfinite", "scale inf", {"hostile.txt:1", "'inf'"}},
    {"ScaleHuge", "scale 1e999", {"hostile.txt:1", "'1e999'"}},
    {"ScaleTooLarge", "scale 100", {"hostile.txt:1", "'100'"}},
    {"ScaleTrailingText", "scale 1.5abc", {"hostile.txt:1", "'1.5abc'"}},
    {"ScaleHex", "scale 0x2", {"hostile.txt:1", "'0x2'"}},
    {"ScaleTwoFactors", "scale 1 2", {"hostile.txt:1", "one factor"}},
    {"ActionTypo", "clik \"Run\"", {"hostile.txt:1", "did you mean 'click'"}},
    {"PanelTypo", "click \"Run\" in \"Lanuch\"", {"hostile.txt:1", "did you mean 'Launch'"}},
    {"ScreenshotPanelTypo",
     "screenshot a.png timigns",
     {"hostile.txt:1", "did you mean 'timings'"}},
    {"ClickNothing", "click", {"hostile.txt:1", "\"LABEL\""}},
    {"ClickTwoLabels", "click \"a\" \"b\"", {"hostile.txt:1", "in quotes"}},
    {"ClickUnclosedQuote", "click \"Run", {"hostile.txt:1", "not closed"}},
    {"ClickEscapedLastQuote", "click \"Run\\\"", {"hostile.txt:1", "not closed"}},
    {"ClickEmptyLabel", "click \"\"", {"hostile.txt:1", "empty label"}},
    {"ClickUnknownPanel", "click \"Run\" in \"Nowhere\"", {"hostile.txt:1", "'Nowhere'"}},
    {"ClickInWithoutPanel", "click \"Run\" in", {"hostile.txt:1", "click takes"}},
    // `in ""` named no panel and was read as no `in` at all: refused as an empty label is.
    {"ClickInAnEmptyPanel", "click \"Run\" in \"\"", {"hostile.txt:1", "an empty panel name"}},
    {"HoverInAnEmptyPanel", "hover \"Run\" in \"\"", {"hostile.txt:1", "an empty panel name"}},
    {"SetInAnEmptyPanel", "set \"stride\" 2 in \"\"", {"hostile.txt:1", "an empty panel name"}},
    {"SetNothing", "set", {"hostile.txt:1", "VALUE"}},
    {"SetNoValue", "set \"Block\"", {"hostile.txt:1", "VALUE"}},
    {"SetTwoValues", "set \"Block\" 1 2", {"hostile.txt:1", "VALUE"}},
    {"SetEmptyLabel", "set \"\" 5", {"hostile.txt:1", "empty label"}},
    {"KeyNothing", "key", {"hostile.txt:1", "one key"}},
    {"KeyF13", "key F13", {"hostile.txt:1", "'F13'"}},
    {"KeyF0", "key F0", {"hostile.txt:1", "'F0'"}},
    {"KeyCtrlAlone", "key ctrl+", {"hostile.txt:1", "'ctrl+'"}},
    {"KeyCtrlTwice", "key ctrl+ctrl+a", {"hostile.txt:1", "'ctrl+ctrl+a'"}},
    {"KeyShift", "key shift+a", {"hostile.txt:1", "'shift+a'"}},
    {"KeyTwoKeys", "key F5 F6", {"hostile.txt:1", "one key"}},
    {"KeyNotAscii", "key \xc3\x84", {"hostile.txt:1", "unknown key"}},
    {"WaitZero", "wait 0", {"hostile.txt:1", "up to 3600"}},
    {"WaitNegative", "wait -1", {"hostile.txt:1", "'-1'"}},
    {"WaitNaN", "wait nan", {"hostile.txt:1", "'nan'"}},
    {"WaitHuge", "wait 1e999", {"hostile.txt:1", "'1e999'"}},
    {"WaitOverAnHour", "wait 3601", {"hostile.txt:1", "'3601'"}},
    {"WaitWords", "wait forever", {"hostile.txt:1", "'forever'"}},
    {"WaitTwoNumbers", "wait 1 2", {"hostile.txt:1", "seconds"}},
    {"ScreenshotNothing", "screenshot", {"hostile.txt:1", "FILE [PANEL]"}},
    {"ScreenshotEmptyName", "screenshot \"\"", {"hostile.txt:1", "empty file name"}},
    {"ScreenshotUnknownPanel", "screenshot a.png nopanel", {"hostile.txt:1", "'nopanel'"}},
    {"ScreenshotThreeWords", "screenshot a b c", {"hostile.txt:1", "FILE [PANEL]"}},
    {"UnknownAction", "dance", {"hostile.txt:1", "'dance'"}},
    {"BinaryGarbage", "\x01\x02\xff\xfe", {"hostile.txt:1", "unknown action"}},
    {"NulInTheVerb",
     std::string("cl\0ick \"Run\"", 12),
     {"hostile.txt:1: a NUL byte at column 3; a script is text"}},
    {"NulAfterAnAction", std::string("wait\0junk", 9), {"hostile.txt:1", "column 5"}},
    // An editor's byte-order mark is no part of the action: the one named is the one written.
    {"ByteOrderMarkThenAnUnknownAction",
     "\xEF\xBB\xBF"
     "bogus",
     {"unknown action 'bogus'"}},
    {"NestedBrackets", nested(100000), {"hostile.txt:1", "..."}},
    {"ManyQuotes", std::string(100000, '"'), {"hostile.txt:1"}},
    {"LongLine", std::string(900000, 'a'), {"hostile.txt:1", "..."}},
    {"OverOneMiB", std::string(1100000, '#'), {"over 1 MiB"}},
    {"ErrorOnLineTwo", "window 1280x720\nbogus", {"hostile.txt:2", "'bogus'"}},
    {"ErrorAfterManyComments",
     repeated("# a comment\n", 10000) + "bogus",
     {"hostile.txt:10001", "'bogus'"}},
    {"CarriageReturns", "wait\r\nbogus\r\n", {"hostile.txt:2", "'bogus'"}},
    {"TabsOnly", "\t\t\nscale\t0", {"hostile.txt:2", "'0'"}},
};

class HostileScript : public testing::TestWithParam<InputCase> {};

TEST_P(HostileScript, RefusedNamingTheLine) {
  expect_usage_error([] { parse_script(GetParam().input, "hostile.txt"); }, GetParam().fragments);
}
INSTANTIATE_TEST_SUITE_P(Lines, HostileScript, testing::ValuesIn(kScripts), case_name<InputCase>);

TEST(HostileScript, AByteOrderMarkIsNotPartOfTheFirstAction) {
  const Script script = parse_script("\xEF\xBB\xBFwindow 1280x720\nwait\n", "bom.txt");
  ASSERT_EQ(script.steps.size(), 2u);
  EXPECT_EQ(script.steps[0].verb, "window");
}

// Through the binary: exit 2, one line, for a bad line and for what is not a script file.
TEST(HostileScriptFile, TheBinaryRefusesInOneLineWithExitTwo) {
  const fs::path dir = scratch_dir();
  fs::create_directories(dir / "folder.txt");
  write_file(dir / "bad.txt", "window 1280x720\nkey F99\n");
  write_file(dir / "nul.txt", std::string("wait\0\0\0", 7));
  for (const auto& [script, fragment] :
       std::vector<std::pair<std::string, std::string>>{{"bad.txt", "bad.txt:2"},
                                                        {"folder.txt", "folder.txt"},
                                                        {"missing.txt", "missing.txt"},
                                                        {"nul.txt", "nul.txt:1"}}) {
    const wl::test::Outcome o = wl::test::run_limited(
        "--headless --model --script " + (dir / script).string(), "env -u DISPLAY");
    wl::test::expect_refusal(o, 2, {fragment});
  }
}

// ---- Settings: a file that cannot be used is kept aside whole, the usable rest applied. ----

const std::vector<InputCase> kSettings = {
    {"Empty", "", {"not valid JSON"}},
    {"Cut", "{\"kernel\": \"matmul/tiled\", \"theme\": ", {"not valid JSON"}},
    {"Null", "null", {"not a JSON object"}},
    {"List", "[]", {"not a JSON object"}},
    {"Number", "42", {"not a JSON object"}},
    {"Text", "\"settings\"", {"not a JSON object"}},
    {"NestedLists", nested(100000), {"nested too deep"}},
    {"NestedObjects",
     repeated("{\"a\":", 50000) + "1" + std::string(50000, '}'),
     {"nested too deep"}},
    // No double holds it, and the reader stops there: the number and its place are named.
    {"HugeNumber",
     R"({"ui_scale": 1e999})",
     {"holds the number 1e999 at line 1, column 14, too large for any setting"}},
    {"NotUtf8", "{\"kernel\": \"\xff\xfe\"}", {"not valid JSON"}},
    {"Nul", std::string("{\"kernel\": \"a\0b\"}", 17), {"not valid JSON"}},
    {"NulAndJunkAfter",
     std::string("{\"theme\": \"light\"}\0junk", 23),
     {"not valid JSON", "a NUL byte at", "after the document"}},
    {"PanelsList", R"({"panels": [1]})", {"panels [1]: allowed an object"}},
    {"PanelNotABoolean", R"({"panels": {"timings": "yes"}})", {"panels.timings \"yes\""}},
    {"LayoutNumber", R"({"layout": 3})", {"layout 3: allowed an object"}},
    {"LayoutTilesList", R"({"layout": {"tiles": []}})", {"layout.tiles []"}},
    {"OverOneMiB",
     "{\"screenshot_dir\": \"" + std::string(1100000, 'a') + "\"}",
     {"allowed at most"}},
    {"ScaleNegative", R"({"ui_scale": -1})", {"ui_scale -1: allowed 0.5 to 4"}},
    {"ScaleZero", R"({"ui_scale": 0})", {"ui_scale 0"}},
    {"ScaleTooLarge", R"({"ui_scale": 4.01})", {"ui_scale 4.01"}},
    {"ScaleText", R"({"ui_scale": "2"})", {"ui_scale \"2\""}},
    {"ScaleNull", R"({"ui_scale": null})", {"ui_scale null"}},
    {"KernelNumber", R"({"kernel": 42})", {"kernel 42"}},
    {"KernelUnknown", R"({"kernel": "no/such"})", {"kernel \"no/such\""}},
    {"KernelEmpty", R"({"kernel": ""})", {"kernel \"\""}},
    {"KernelLong", "{\"kernel\": \"" + std::string(100000, 'k') + "\"}", {"kernel \"kkk", "..."}},
    {"ParamZero", R"({"kernel": "vec_add/scalar", "params": {"n": 0}})", {"params.n 0"}},
    {"ParamNegative", R"({"kernel": "vec_add/scalar", "params": {"n": -5}})", {"params.n -5"}},
    {"ParamFloat", R"({"kernel": "vec_add/scalar", "params": {"n": 1.5}})", {"params.n 1.5"}},
    {"ParamHuge",
     R"({"kernel": "vec_add/scalar", "params": {"n": 9223372036854775807}})",
     {"params.n 9223372036854775807"}},
    {"ParamTooLargeFloat", R"({"kernel": "vec_add/scalar", "params": {"n": 1e20}})", {"params.n"}},
    // In the range, not among the choices (16, 32): refused alike, and the file kept aside.
    {"ParamNotAChoice",
     R"({"kernel": "matmul/tiled", "params": {"tile": 17}})",
     {"params.tile 17: allowed 16, 32"}},
    // Each allowed alone, not together: a float4 kernel takes whole float4s.
    {"ParamsNotTogether",
     R"({"kernel": "vec_add/vec4", "params": {"n": 1023}})",
     {"params: vec_add/vec4: n must be a multiple of 4"}},
    {"ParamUnknown",
     R"({"kernel": "vec_add/scalar", "params": {"nope": 1}})",
     {"params.nope: vec_add/scalar has no such parameter"}},
    {"ParamsList", R"({"params": [1, 2]})", {"params [1,2]"}},
    {"BlockZero", R"({"block": [0, 1, 1]})", {"block [0,1,1]"}},
    {"BlockTooLarge", R"({"block": [2048, 1, 1]})", {"block [2048,1,1]"}},
    {"BlockTwoSides", R"({"block": [1, 1]})", {"block [1,1]"}},
    {"BlockText", R"({"block": "256"})", {"block \"256\""}},
    {"BlockFloat", R"({"block": [1.5, 1, 1]})", {"block [1.5,1,1]"}},
    {"BlockNegative", R"({"block": [-1, 1, 1]})", {"block [-1,1,1]"}},
    {"BlockWraps", R"({"block": [4294967297, 1, 1]})", {"block [4294967297,1,1]"}},
    // Each side in range, the block not one the kernel takes: refused as its parameters are.
    {"BlockTheKernelRefuses",
     R"({"kernel": "matmul/tiled", "block": [32, 32, 2]})",
     {"block [32,32,2]: matmul/tiled allows tile x tile"}},
    {"BlockOverTheThreadLimit",
     R"({"kernel": "vec_add_3d/blocks3d", "block": [1024, 2, 1]})",
     {"block [1024,2,1]: vec_add_3d/blocks3d allows any 3D block of at most 1024 threads"}},
    {"ArchUnknown", R"({"arch": "nope"})", {"arch \"nope\""}},
    {"ArchNumber", R"({"arch": 7})", {"arch 7"}},
    {"LiveText", R"({"live": "yes"})", {"live \"yes\": allowed true or false"}},
    {"ThemeUnknown", R"({"theme": "blue"})", {"theme \"blue\""}},
    {"ThemeNumber", R"({"theme": 1})", {"theme 1"}},
    {"LayoutFractionLarge", R"({"layout": {"left_width": 2}})", {"layout.left_width 2"}},
    {"LayoutFractionNegative", R"({"layout": {"top_height": -1}})", {"layout.top_height -1"}},
    {"LayoutFractionText", R"({"layout": {"top_split": "x"}})", {"layout.top_split \"x\""}},
    {"LayoutTileUnknown",
     R"({"layout": {"tiles": {"sweep": "middle"}}})",
     {"layout.tiles.sweep \"middle\""}},
    {"ScreenshotDirNumber", R"({"screenshot_dir": 5})", {"screenshot_dir 5"}},
    {"ManyBadValues",
     R"({"ui_scale": 9, "theme": 2, "live": 3, "arch": 4})",
     {"arch 4", "; also live, theme, ui_scale"}},
};

class HostileSettings : public testing::TestWithParam<InputCase> {};

TEST_P(HostileSettings, KeptAsideWholeAndNamed) {
  const fs::path dir = scratch_dir();
  write_file(dir / "settings.json", GetParam().input);
  App app = make_app("vec_add/scalar", "h100");
  const std::string problem = load_settings(app, dir);
  expect_good_message(problem, GetParam().fragments);
  EXPECT_NE(problem.find("kept as"), std::string::npos) << problem;
  int kept = 0;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename().string().starts_with("settings.json.bad-")) {
      ++kept;
      EXPECT_EQ(wl::test::read_text(entry.path()), GetParam().input) << "the user's file, whole";
    }
  EXPECT_EQ(kept, 1);
  // What was applied is usable: nothing out of range slipped through.
  EXPECT_GE(app.choices.ui_scale, 0.5f);
  EXPECT_LE(app.choices.ui_scale, 4.0f);
  EXPECT_NE(find_kernel(app.choices.kernel_id), nullptr);
  EXPECT_TRUE(app.choices.settings_writable);
  EXPECT_EQ(save_settings(app, dir), "");
}
INSTANTIATE_TEST_SUITE_P(Files, HostileSettings, testing::ValuesIn(kSettings),
                         case_name<InputCase>);

// ---- Screenshot paths: saved under a free name, or refused in one line; nothing overwritten. ----

struct PathCase {
  std::string name;
  std::string path;     // relative to the case's folder unless absolute
  int exit_code;        // 0: saved; 2: refused
  std::string fragment; // in the refusal, or in the saved path
  friend void PrintTo(const PathCase& c, std::ostream* os) { *os << c.name; }
};

const std::vector<PathCase> kPaths = {
    {"Existing", "existing.png", 0, "existing-"},
    {"ExistingSidecar", "existing.json", 0, "existing.json"},
    {"AFolder", "folder", 0, "folder/"},
    {"AFolderWithSlash", "folder/", 0, "folder/"},
    {"CurrentFolder", ".", 0, "warplens-"},
    {"OtherExtension", "shot.jpg", 0, "shot.jpg.png"},
    {"UpperCaseExtension", "shot.PNG", 0, "shot.PNG"},
    {"NewFolder", "new/x.png", 2, "no folder new"}, // a typo makes no folders
    {"FileAsFolder", "existing.png/x.png", 2, "existing.png"},
    {"LongName", std::string(300, 'n') + ".png", 2, "nnnn"},
    {"LongPath", std::string(40, 'd').append("/").append(std::string(5000, 'p')), 2, "ddd"},
    {"UnderADevice", "/dev/null/x.png", 2, "/dev/null/x.png"},
    {"ProcFile", "/proc/self/shot.png", 2, "/proc/self"},
    {"SymlinkLoop", "loop/x.png", 2, "loop"},
    {"DanglingLink", "dangling.png", 0, "dangling-"},
    {"Newline", "two\nlines.png", 0, "lines.png"},
    {"Dash", "-", 0, "-.png"},
};

class HostileScreenshotPath : public testing::TestWithParam<PathCase> {};

TEST_P(HostileScreenshotPath, SavedUnderAFreeNameOrRefused) {
  const fs::path dir = scratch_dir();
  fs::create_directories(dir / "folder");
  write_file(dir / "existing.png", "the user's picture");
  write_file(dir / "existing.json", "the user's notes");
  std::error_code ignored;
  fs::create_symlink("loop", dir / "loop", ignored);
  fs::create_symlink("nowhere.png", dir / "dangling.png", ignored);
  const PathCase& c = GetParam();
  const std::string quoted = "'" + c.path + "'";
  // A picture that cannot be written where asked is kept in TMPDIR: here, a short folder of the
  // case's own, as /tmp is (the line names the copy, and must stay short).
  const fs::path kept = "/tmp/wl-kept-" + std::to_string(getpid());
  fs::remove_all(kept);
  fs::create_directories(kept);
  const wl::test::Outcome o = wl::test::run_limited(
      "--headless --model --kernel vec_add/scalar --screenshot " + quoted,
      "cd '" + dir.string() + "' && env -u DISPLAY TMPDIR='" + kept.string() + "'");
  fs::remove_all(kept);
  EXPECT_LT(o.seconds, 10.0);
  if (c.exit_code == 2) {
    wl::test::expect_refusal(o, 2, {c.fragment});
  } else {
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_NE(o.out.find(c.fragment), std::string::npos) << o.out;
    if (c.name == "UpperCaseExtension") { // a PNG by its name already, not "shot.PNG.png"
      EXPECT_EQ(o.out.find("shot.PNG.png"), std::string::npos) << o.out;
    }
    if (c.name == "Existing" || c.name == "DanglingLink") { // why the name differs, said
      EXPECT_NE(o.out.find(c.path + "' (or its sidecar"), std::string::npos) << o.out;
    }
  }
  EXPECT_EQ(wl::test::read_text(dir / "existing.png"), "the user's picture");
  EXPECT_EQ(wl::test::read_text(dir / "existing.json"), "the user's notes");
  EXPECT_TRUE(fs::is_symlink(dir / "dangling.png"));
  EXPECT_FALSE(fs::exists(dir / "nowhere.png")) << "a link is not followed to write";
}
INSTANTIATE_TEST_SUITE_P(Paths, HostileScreenshotPath, testing::ValuesIn(kPaths),
                         case_name<PathCase>);

// The defect: a screenshot_dir with a typo in the settings was made, as root at /nonexistent/dir.
TEST(HostileScreenshotPath, ASettingsFolderThatIsMissingIsNamedNotMade) {
  App app = make_app("vec_add/scalar", "h100");
  app.choices.screenshot_dir = scratch_dir() / "typo" / "dir";
  try {
    folder_for_saving(app);
    ADD_FAILURE() << "a missing screenshot_dir was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("screenshot_dir"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(app.choices.screenshot_dir.parent_path()));
}

// ---- Files the GUI writes: never through a planted name, and never lost when a write fails. ----

// The defect: the sidecar was written to a fixed NAME.json.tmp, following a link planted there.
TEST(HostileGuiFiles, ASidecarNeverFollowsALinkUnderItsTemporaryName) {
  const fs::path dir = scratch_dir();
  write_file(dir / "victim.txt", "the user's file");
  fs::create_symlink(dir / "victim.txt", dir / "shot.json.tmp");
  App app = app_showing("vec_add/scalar", "256");
  HeadlessGui gui(app, 640, 480);
  app.frame.screenshot = ScreenshotRequest{std::nullopt, (dir / "shot.png").string()};
  gui.render(2);
  EXPECT_EQ(app.messages.last_screenshot_path, (dir / "shot.png").string()) << app.messages.status;
  EXPECT_EQ(wl::test::read_text(dir / "victim.txt"), "the user's file");
  EXPECT_FALSE(fs::is_symlink(dir / "shot.json"));
  EXPECT_TRUE(read_json(dir / "shot.json").is_object());
}

// The defect: a picture that could not be written was lost, the message without where it is.
TEST(HostileGuiFiles, AScreenshotThatCannotBeWrittenIsKeptAndTheStatusSaysWhere) {
  const wl::test::KeptCopies kept(scratch_dir() / "tmp");
  App app = app_showing("vec_add/scalar", "256");
  HeadlessGui gui(app, 640, 480);
  app.frame.screenshot = ScreenshotRequest{std::nullopt, "/sys/warplens-shot.png"}; // takes no file
  gui.render(2);
  expect_good_message(app.messages.status,
                      {"screenshot not saved: cannot write '/sys/warplens-shot.png': ", "kept in '",
                       "its figures beside it"});
  ASSERT_EQ(kept.files().size(), 2u) << app.messages.status; // the picture and its sidecar
  const fs::path png = kept.files()[0].string().find(".png") != std::string::npos ? kept.files()[0]
                                                                                  : kept.files()[1];
  EXPECT_NE(app.messages.status.find(png.string()), std::string::npos) << app.messages.status;
  EXPECT_EQ(load_png(png).width, 640);
}

// The defect: Export CSV into a folder that takes no file lost the sweep and gave no reason.
TEST(HostileGuiFiles, AnExportThatCannotBeWrittenIsKeptAndTheStatusSaysWhereAndWhy) {
  const wl::test::KeptCopies kept(scratch_dir() / "tmp");
  App app = app_showing("vec_add/scalar", "256");
  app.model_sweep_now();
  ASSERT_TRUE(app.sweep.data) << app.sweep.problem;
  app.show_panel(Panel::sweep);
  app.choices.screenshot_dir = "/sys";
  HeadlessGui gui(app, 1280, 800);
  ScriptPlayer player(parse_script("click \"Export CSV\"\n", "export.txt"));
  EXPECT_EQ(gui.play(player).exit_code, 0);
  expect_good_message(app.messages.status,
                      {"cannot write '/sys/warplens-", "-sweep.csv': ", "kept in '"});
  ASSERT_EQ(kept.files().size(), 1u) << app.messages.status;
  EXPECT_NE(wl::test::read_text(kept.files()[0]).find("block"), std::string::npos);
}

// The defect: every frame of a headless script was drawn in software, a tenth of a second each,
// so 10,000 lines of `key L` took twenty minutes. Frames are drawn only for their pictures: a
// thousand lines and one screenshot draw one frame (counted, not timed).
TEST(HostileScriptSize, AThousandLinesDrawOnlyTheFrameOfTheirPicture) {
  const fs::path dir = scratch_dir();
  App app = app_showing("vec_add/scalar", "256");
  const bool live_before = app.choices.live;
  HeadlessGui gui(app, 640, 480);
  std::string text;
  for (int line = 0; line < 1000; ++line)
    text += "key L\n";
  text += "screenshot \"" + (dir / "thousand.png").string() + "\"\n";
  ScriptPlayer player(parse_script(text, "thousand.txt"));
  EXPECT_EQ(gui.play(player).exit_code, 0);
  EXPECT_TRUE(fs::exists(dir / "thousand.png"));
  EXPECT_LE(gui.frames_drawn(), 2) << "frames drawn for 1,000 lines and one picture";
  EXPECT_EQ(app.choices.live, live_before) << "an even number of toggles leaves Live as it was";
}

// A script's `screenshot` refuses the same paths with the same exit code as --screenshot.
TEST(HostileScreenshotPath, AScriptRefusesWhatTheCommandLineRefusesWithTheSameCode) {
  const fs::path dir = scratch_dir();
  write_file(dir / "existing.png", "the user's picture");
  for (const char* path : {"new/x.png", "existing.png/x.png", "/dev/null/x.png"}) {
    write_file(dir / "s.txt", std::string("screenshot \"") + path + "\"\n");
    const wl::test::Outcome o =
        wl::test::run_limited("--headless --model --kernel vec_add/scalar --script s.txt",
                              "cd '" + dir.string() + "' && env -u DISPLAY");
    wl::test::expect_refusal(o, 2, {"s.txt:1"});
  }
  EXPECT_EQ(wl::test::read_text(dir / "existing.png"), "the user's picture");
}

} // namespace
} // namespace wl::viz::test
