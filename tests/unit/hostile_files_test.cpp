// Hostile data files: arch presets given with --arch, assets folders given with
// WARPLENS_ASSETS, and metric catalogs. Each is refused in one line naming the file and the key.

#include "base/file_output.h"
#include "hostile_support.h"
#include "io/metric_catalog.h"

#include <sys/resource.h>
#include <sys/stat.h>

namespace wl {
namespace {

using nlohmann::json;
using test::Change;
using test::changed;
using test::expect_refusal;
using test::expect_usage_error;
using test::run_limited;
using test::write_file;

using FileCase = test::InputCase;

const json& h100() {
  static const json preset = test::source_json("arch/h100.json");
  return preset;
}

FileCase preset_case(const std::string& name, const Change& change,
                     std::vector<std::string> fragments) {
  return {name, changed(h100(), change), std::move(fragments)};
}

// The H100's preset under another id: a preset of the user's own.
json renamed(const std::string& id) {
  json preset = h100();
  preset["id"] = id;
  return preset;
}

const std::vector<FileCase> kPresets = {
    // No double holds it, and the parser stops there: the number and its place are named.
    preset_case("BandwidthOverflow", {"/dram_bandwidth_gbps", {}, "1e999"},
                {"the number 1e999 at line 1, column ", "too large for any value"}),
    preset_case("BandwidthNegativeOverflow", {"/dram_bandwidth_gbps", {}, "-1e999"},
                {"the number -1e999 at line 1, column "}),
    preset_case("BandwidthZero", {"/dram_bandwidth_gbps", 0},
                {"dram_bandwidth_gbps: 0 is out of range"}),
    preset_case("BandwidthText", {"/dram_bandwidth_gbps", "fast"},
                {"dram_bandwidth_gbps: 'fast' is not a number"}),
    preset_case("BandwidthNull", {"/dram_bandwidth_gbps", nullptr}, {"dram_bandwidth_gbps: null"}),
    preset_case("BlockDimsWrap", {"/max_block_dims/0", 4294968320LL},
                {"max_block_dims[0]: 4294968320"}),
    preset_case("BlockDimsTwo", {"/max_block_dims", json::array({1024, 1024})},
                {"max_block_dims", "wrong length"}),
    preset_case("BlockDimsFraction", {"/max_block_dims/0", 1024.5}, {"max_block_dims[0]: 1024.5"}),
    preset_case("BlockDimsText", {"/max_block_dims", "1024"},
                {"max_block_dims: '1024' is not a list"}),
    preset_case("BlockDimsZero", {"/max_block_dims/2", 0}, {"max_block_dims[2]: 0"}),
    preset_case("SmCountFraction", {"/sm_count", 132.5}, {"sm_count: 132.5 is not a whole number"}),
    preset_case("SmCountExponentOverRange", {"/sm_count", {}, "1e5"},
                {"sm_count: 100000 is out of range", "1 to 4096"}),
    preset_case("SmCountUint64Max", {"/sm_count", 18446744073709551615ULL},
                {"sm_count: 18446744073709551615"}),
    preset_case("SmCountNegative", {"/sm_count", -1}, {"sm_count: -1 is out of range"}),
    preset_case("SmCountBool", {"/sm_count", true}, {"sm_count: true"}),
    preset_case("SmCountMissing", {"/sm_count", {}, "", true}, {"sm_count: missing"}),
    preset_case("WarpSizeZero", {"/warp_size", 0}, {"warp_size: 0"}),
    preset_case("WarpSize64", {"/warp_size", 64}, {"warp_size: 64", "32 to 32"}),
    preset_case("CcNoDot", {"/compute_capability", "9"}, {"compute_capability: '9'"}),
    preset_case("CcHuge", {"/compute_capability", "99999999999.0"}, {"compute_capability"}),
    preset_case("CcLetters", {"/compute_capability", "9.x"}, {"compute_capability: '9.x'"}),
    preset_case("CcNumber", {"/compute_capability", 9.0},
                {"compute_capability: 9 is not a string"}),
    preset_case("IdEmpty", {"/id", ""}, {"id: '' is not a non-empty string"}),
    preset_case("AliasesNumbers", {"/aliases", json::array({1, 2})}, {"aliases: holds 1"}),
    preset_case("NameObject", {"/name", json::object()}, {"name: an object"}),
    preset_case("SourceMissing", {"/source", {}, "", true}, {"source: missing"}),
    preset_case("RegistersPerBlockOverSm", {"/registers_per_block", 131072},
                {"registers_per_block: exceeds"}),
    preset_case("SharedMemoryFraction", {"/shared_memory_per_sm", 233472.5},
                {"shared_memory_per_sm: 233472.5 is not a whole number"}),
    preset_case("L2TooLarge", {"/l2_cache_bytes", 1LL << 41}, {"l2_cache_bytes: 2199023255552"}),
    preset_case("ReservedNegative", {"/reserved_shared_memory_per_block", -1},
                {"reserved_shared_memory_per_block"}),
    preset_case("DeepExtraKey", {"/extra", {}, test::nested(65)}, {"nested too deep", "64"}),
    preset_case("LongNameBadCount", {"/sm_count", std::string(100000, 'x')}, {"sm_count: 'xxxx"}),
    {"TopLevelList", "[1, 2, 3]", {"a list of 3 items is not a JSON object"}},
    {"TopLevelNumber", "5", {"5 is not a JSON object"}},
    {"EmptyFile", "", {"the file is empty", "a preset file is a JSON file"}},
    {"Nested70000", test::nested(70000), {"nested too deep"}},
    {"Truncated", "{\"id\": \"x\", ", {"not valid JSON"}},
    {"BadUtf8", "{\"id\": \"\xff\xfe\"}", {"not valid JSON"}},
    {"NulByte", std::string("{\"id\"\0: 1}", 10), {"not valid JSON"}},
    {"EmptyObject", "{}", {"id: missing"}},
    // A key the reader does not know would read as absent and quietly take the default.
    preset_case("UnknownKey", {"/bogus", 1}, {"bogus: not a key of a preset", "allowed id, name"}),
    {"OptionalKeyMisspelt",
     [] {
       json preset = h100();
       preset.erase("sm_clock_mhz");
       preset["sm_clock_mhs"] = 1980;
       return preset.dump();
     }(),
     {"sm_clock_mhs: not a key of a preset", "did you mean 'sm_clock_mhz'?"}},
    // The JSON reader stops at a NUL as at the end of a C string: nothing after it was seen.
    {"NulAndGarbageAfterTheDocument",
     h100().dump() + std::string("\0garbage", 8),
     {"not valid JSON", "a NUL byte at", "after the document"}},
    {"BinaryGarbage",
     std::string("\0\x01\x02garbage\xff\xfe\n", 13),
     {"not valid JSON", "binary data: a NUL byte at column 1"}},
    // Printed as it is (`warplens occupancy` names the GPU): an escape code would reach the
    // terminal.
    preset_case("EscapeCodesInTheName", {"/name", "evil\x1b[31mRED\x07"},
                {"name: 'evil?[31mRED?' holds control characters", "printable"}),
    preset_case("LineBreakInAnAlias", {"/aliases/0", "sm\n90"},
                {"aliases: 'sm?90' holds control characters"}),
    preset_case("C1ControlInTheSource",
                {"/source", "datasheet \xc2\x9b"
                            "31m"},
                {"source: 'datasheet ?31m' holds control characters"}),
    // Unicode's bidirectional controls reorder what a terminal shows ("Trojan source"): a name
    // holding one reads as other text than it is, as one holding an escape code does.
    preset_case("RightToLeftOverrideInTheName", {"/name", "NVIDIA \u202eH100"},
                {"name: 'NVIDIA ?H100' holds control characters"}),
    preset_case("IsolateInAnAlias", {"/aliases/0", "sm\u2066_90"},
                {"aliases: 'sm?_90' holds control characters"}),
    preset_case("RightToLeftMarkInTheSource", {"/source", "datasheet\u200f"},
                {"source: 'datasheet?' holds control characters"}),
    // Figures no GPU can have: the ISA addresses 255 registers, a block is a warp at least, and
    // the SM's threads are whole warps.
    preset_case("RegistersPerThreadOverTheIsa", {"/max_registers_per_thread", 256},
                {"max_registers_per_thread: 256 is out of range", "from 1 to 255"}),
    preset_case("BlocksPerSmOverOneWarpEach", {"/max_blocks_per_sm", 65},
                {"max_blocks_per_sm: 65 blocks of at least one warp need 2080 threads",
                 "allowed at most 64 (max_threads_per_sm / 32)"}),
    preset_case(
        "ThreadsPerSmNotWholeWarps", {"/max_threads_per_sm", 2047},
        {"max_threads_per_sm: 2047 is not a whole number of warps", "allowed a multiple of 32"}),
    preset_case(
        "ThreadsPerBlockNotWholeWarps", {"/max_threads_per_block", 1000},
        {"max_threads_per_block: 1000 is not a whole number of warps", "allowed a multiple of 32"}),
    // Names: an alias names the preset once, and names no other.
    preset_case("AliasEmpty", {"/aliases/0", ""}, {"aliases: '' is empty", "allowed"}),
    preset_case("AliasTwice", {"/aliases", json::array({"sm_90", "sm_90"})},
                {"aliases: 'sm_90' is given twice", "allowed each name once"}),
    preset_case("AliasIsItsOwnId", {"/aliases", json::array({"h100"})},
                {"aliases: 'h100' is the preset's own id"}),
    {"AliasOfAnotherPreset",
     changed(renamed("mygpu"), {"/aliases", json::array({"sm_80"})}),
     {"aliases: 'sm_80' is already a name of the preset a100",
      "allowed names no other preset uses"}},
    {"AliasIsAnotherPresetsId",
     changed(renamed("mygpu"), {"/aliases", json::array({"t4"})}),
     {"aliases: 't4' is already a name of the preset t4"}},
    {"IdIsAnotherPresetsAlias",
     changed(renamed("sm_80"), {"/aliases", json::array()}),
     {"id: 'sm_80' is already a name of the preset a100"}},
    // `--arch device` names this machine's GPU: a preset of that name would print as if it were.
    preset_case("IdDevice", {"/id", "device"},
                {"id: 'device' is reserved",
                 "allowed a name that does not begin with 'device' (--arch device[:N] is this "
                 "machine's GPU)"}),
    preset_case("IdDeviceNumbered", {"/id", "device:0"}, {"id: 'device:0' is reserved"}),
    preset_case("AliasDevice", {"/aliases", json::array({"device"})},
                {"aliases: 'device' is reserved"}),
};

class HostilePreset : public testing::TestWithParam<FileCase> {};

TEST_P(HostilePreset, RefusedNamingTheFile) {
  const std::string file = write_file(GetParam().name + ".json", GetParam().input);
  std::vector<std::string> fragments = GetParam().fragments;
  fragments.push_back(GetParam().name + ".json");
  expect_refusal(run_limited("occupancy --block 256 --arch " + file), 2, fragments);
}

INSTANTIATE_TEST_SUITE_P(Files, HostilePreset, testing::ValuesIn(kPresets),
                         test::case_name<FileCase>);

// JSON has one kind of number: 1e2 and 233472.0 are the whole numbers 100 and 233472, and a
// preset that writes them so is read as if it wrote 100 and 233472.
TEST(HostilePresetNumbers, AWholeNumberWithAnExponentOrAZeroFractionIsThatNumber) {
  const std::string plain = h100().dump();
  std::string written_so = plain;
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"\"sm_count\":132", "\"sm_count\":1.32e2"},
           {"\"shared_memory_per_sm\":233472", "\"shared_memory_per_sm\":233472.0"}}) {
    ASSERT_NE(written_so.find(from), std::string::npos) << from;
    written_so.replace(written_so.find(from), from.size(), to);
  }
  const std::string args = "occupancy --block 256 --arch " + test::scratch().string() + "/p.json";
  write_file("p.json", plain);
  const test::Outcome expected = run_limited(args);
  write_file("p.json", written_so);
  const test::Outcome got = run_limited(args);
  ASSERT_EQ(expected.exit_code, 0) << expected.err;
  EXPECT_EQ(got.exit_code, 0) << got.err;
  EXPECT_EQ(got.out, expected.out);
}

// The defect: a preset without read permission was refused with a guess ("no permission?").
TEST(HostilePresetFile, AnUnreadablePresetIsRefusedWithTheReason) {
  const std::string file =
      write_file("unreadable.json", test::source_json("arch/h100.json").dump());
  std::filesystem::permissions(file, std::filesystem::perms::none);
  expect_refusal(run_limited("occupancy --block 256 --arch " + file, test::as_unprivileged()), 2,
                 {file, "cannot read the", "Permission denied"});
}

// The defect: a link loop was reported as "no such file".
TEST(HostilePresetFile, ALinkLoopIsRefusedWithTheSystemsReason) {
  const auto loop = test::scratch() / "loop1.json";
  std::filesystem::create_symlink("loop2.json", loop);
  std::filesystem::create_symlink("loop1.json", test::scratch() / "loop2.json");
  expect_refusal(run_limited("occupancy --block 256 --arch " + loop.string()), 2,
                 {"loop1.json: cannot read the preset file: Too many levels of symbolic links"});
}

TEST(HostilePresetSize, AFileOver64MiBIsRefusedUnread) {
  const auto file = test::scratch() / "huge.json";
  std::ofstream(file) << "{";
  std::filesystem::resize_file(file, (std::uintmax_t{64} << 20) + 1); // sparse: no 64 MiB written
  expect_refusal(run_limited("occupancy --block 256 --arch " + file.string()), 2,
                 {"huge.json", "at most 64 MiB"});
}

// An assets folder: a name, then what to put in it (path -> text; a trailing / makes a folder).
struct AssetsCase {
  std::string name;
  std::vector<std::pair<std::string, std::string>> entries;
  std::string args;
  std::vector<std::string> fragments;
  friend void PrintTo(const AssetsCase& c, std::ostream* os) {
    *os << c.name;
  } // names in test logs
};

std::string preset_text(const std::string& id) {
  return test::read_text(std::string(WARPLENS_SOURCE_ASSETS) + "/arch/" + id + ".json");
}

const std::string kMetrics = "run vec_add/scalar --metrics default";

const std::vector<AssetsCase> kAssets = {
    {"EmptyFolder", {}, "arches", {"WARPLENS_ASSETS", "no arch/ folder"}},
    {"ArchIsAFile", {{"arch", "x"}}, "arches", {"no arch/ folder"}},
    {"ArchEmpty", {{"arch/", ""}}, "arches", {"no architecture presets"}},
    {"PresetIsAFolder",
     {{"arch/h100.json/", ""}},
     "arches",
     {"h100.json", "a folder, not a preset file"}},
    {"PresetIdDiffers", {{"arch/t5.json", preset_text("t4")}}, "arches", {"t5.json", "id: 't4'"}},
    {"AliasTwice",
     {{"arch/h100.json", preset_text("h100")},
      {"arch/h200x.json", changed(test::source_json("arch/h100.json"), {"/id", "h200x"})}},
     "arches",
     {"h200x.json", "aliases"}},
    {"DevicePreset",
     {{"arch/h100.json", preset_text("h100")},
      {"arch/device.json", changed(test::source_json("arch/h100.json"), {"/id", "device"})}},
     "arches",
     {"device.json", "id: 'device' is reserved"}},
    {"AliasIsAnotherPresetsId",
     {{"arch/h100.json", preset_text("h100")},
      {"arch/h200x.json",
       changed(json::parse(changed(test::source_json("arch/h100.json"), {"/id", "h200x"})),
               {"/aliases", json::array({"h100"})})}},
     "arches",
     {"h200x.json", "aliases: 'h100' is already a name of the preset h100"}},
    {"OneBadPreset",
     {{"arch/h100.json", preset_text("h100")}, {"arch/bad.json", "{\"id\": 1e999}"}},
     "occupancy --block 256",
     {"bad.json", "the number 1e999 at line 1, column 8 is too large"}},
    {"MetricsIsAFolder",
     {{"arch/h100.json", preset_text("h100")}, {"metrics.json/", ""}},
     kMetrics,
     {"metrics.json", "a folder"}},
    {"MetricsMissing",
     {{"arch/h100.json", preset_text("h100")}},
     kMetrics,
     {"metrics.json", "no such file"}},
    {"MetricsOverflow",
     {{"arch/h100.json", preset_text("h100")}, {"metrics.json", "{\"metrics\": [1e999]}"}},
     kMetrics,
     {"metrics.json", "the number 1e999 at line 1, column 14"}},
    {"MetricsDeep",
     {{"arch/h100.json", preset_text("h100")}, {"metrics.json", test::nested(100)}},
     kMetrics,
     {"metrics.json", "nested too deep"}},
    {"MetricsList",
     {{"arch/h100.json", preset_text("h100")}, {"metrics.json", "[]"}},
     kMetrics,
     {"metrics.json", "not a JSON object"}},
};

class HostileAssets : public testing::TestWithParam<AssetsCase> {};

TEST_P(HostileAssets, RefusedNamingTheFolder) {
  if (test::measures(GetParam().args))
    WL_SKIP_WITHOUT_ENGINE();
  const auto root = test::scratch() / ("assets_" + GetParam().name);
  std::filesystem::create_directories(root);
  for (const auto& [path, text] : GetParam().entries) {
    if (path.ends_with("/"))
      std::filesystem::create_directories(root / path);
    else {
      std::filesystem::create_directories((root / path).parent_path());
      std::ofstream(root / path) << text;
    }
  }
  expect_refusal(run_limited(GetParam().args, "WARPLENS_ASSETS=" + root.string()), 2,
                 GetParam().fragments);
}

INSTANTIATE_TEST_SUITE_P(Folders, HostileAssets, testing::ValuesIn(kAssets),
                         test::case_name<AssetsCase>);

TEST(HostileAssetsPath, NoSuchFolderOrAFileOrALongPath) {
  expect_refusal(run_limited("arches", "WARPLENS_ASSETS=/nonexistent"), 2,
                 {"'/nonexistent' is not a folder"});
  expect_refusal(run_limited("arches", "WARPLENS_ASSETS=/etc/hostname"), 2,
                 {"'/etc/hostname' is not a folder"});
  expect_refusal(run_limited("arches", "WARPLENS_ASSETS=/" + std::string(3000, 'a')), 2,
                 {"WARPLENS_ASSETS: '/aaa"});
}

// ---- Output files: checked before the work, written whole or not at all, never lost. ----

namespace fs = std::filesystem;

// A folder of the test's own under the scratch folder, empty.
fs::path output_folder(const std::string& name) {
  const fs::path dir = test::scratch() / ("out_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

const OutputRules kRefuseExisting{};
const OutputRules kReplace{.replace_existing = true};

struct OutputCase {
  std::string name;
  std::string path; // relative to the case's folder unless absolute
  OutputRules rules;
  std::string fragment;
  friend void PrintTo(const OutputCase& c, std::ostream* os) { *os << c.name; }
};

const std::vector<OutputCase> kOutputs = {
    {"NoFolder", "missing/x.csv", kReplace, "the folder 'missing' does not exist"},
    {"AFolder", "folder", kReplace, "'folder' is a folder"},
    {"EndsInASlash", "x/", kReplace, "'x/' names a folder"},
    {"ADevice", "/dev/full", kReplace, "'/dev/full' is not a regular file"},
    {"APipe", "pipe", kReplace, "'pipe' is not a regular file"},
    {"UnderAFile", "existing.csv/x.csv", kReplace, "'existing.csv' is not a folder"},
    {"NameTooLong", std::string(256, 'n'), kReplace, "the name is 256 bytes long"},
    {"PathTooLong", std::string(5000, 'p'), kReplace, "a path has at most 4095"},
    {"AFolderThatTakesNoFile", "/sys/warplens.csv", kReplace, "cannot create a file in '/sys' ("},
    {"Existing", "existing.csv", kRefuseExisting, "'existing.csv' exists; give another name"},
    {"ALink", "link.csv", kReplace, "'link.csv' is a symbolic link (to 'existing.csv')"},
    {"ALinkLoop",
     "loop.csv",
     {.replace_existing = true, .write_through_links = true},
     "Too many levels of symbolic links"},
};

class HostileOutput : public testing::TestWithParam<OutputCase> {};

TEST_P(HostileOutput, RefusedBeforeTheWorkNamingTheFile) {
  const fs::path dir = output_folder(GetParam().name);
  const fs::path here = fs::current_path();
  fs::current_path(dir);
  fs::create_directories("folder");
  std::ofstream("existing.csv") << "the user's numbers\n";
  ::mkfifo("pipe", 0644);
  fs::create_symlink("existing.csv", "link.csv");
  fs::create_symlink("loop.csv", "loop.csv");
  const std::string problem = output_problem(GetParam().path, GetParam().rules);
  fs::current_path(here);
  test::expect_good_message(problem, {GetParam().fragment});
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(dir))
    left.push_back(entry.path().filename().string());
  EXPECT_EQ(left.size(), 5u) << "the check leaves nothing behind";
  EXPECT_EQ(test::read_text(dir / "existing.csv"), "the user's numbers\n");
}
INSTANTIATE_TEST_SUITE_P(Paths, HostileOutput, testing::ValuesIn(kOutputs),
                         test::case_name<OutputCase>);

TEST(HostileOutputWrite, AWritableFileIsAcceptedAndWrittenWhole) {
  const fs::path dir = output_folder("accepted");
  EXPECT_EQ(output_problem(dir / "new.csv", kRefuseExisting), "");
  EXPECT_EQ(write_file_safely(dir / "new.csv", "a,b\n1,2\n", kRefuseExisting), "");
  EXPECT_EQ(test::read_text(dir / "new.csv"), "a,b\n1,2\n");
  const mode_t mask = ::umask(0);
  ::umask(mask);
  struct stat info {};
  ASSERT_EQ(::stat((dir / "new.csv").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0644u & ~mask);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1)
      << "no temporary left";
}

TEST(HostileOutputWrite, AReplacedFileKeepsItsPermissionsAndALinkWrittenThroughStaysALink) {
  const fs::path dir = output_folder("replaced");
  std::ofstream(dir / "private.json") << "old";
  fs::permissions(dir / "private.json", fs::perms::owner_read | fs::perms::owner_write);
  fs::create_symlink("private.json", dir / "link.json");
  EXPECT_EQ(write_file_safely(dir / "link.json", "new",
                              {.replace_existing = true, .write_through_links = true}),
            "");
  EXPECT_TRUE(fs::is_symlink(dir / "link.json"));
  EXPECT_EQ(test::read_text(dir / "private.json"), "new");
  EXPECT_EQ(fs::status(dir / "private.json").permissions(),
            fs::perms::owner_read | fs::perms::owner_write);
}

// What is found only at the end (here: a folder where the file should go) still loses nothing:
// the text is kept in $TMPDIR and the message says where, and why the write failed.
TEST(HostileOutputWrite, AFailedWriteKeepsTheTextAndSaysWhereAndWhy) {
  const fs::path dir = output_folder("failed");
  const test::KeptCopies kept(dir / "tmp");
  fs::create_directories(dir / "out.csv");
  const std::string problem = write_file_safely(dir / "out.csv", "the results\n", kReplace);
  test::expect_good_message(problem, {"cannot write '", "out.csv': it is a folder", "kept in '"});
  ASSERT_EQ(kept.files().size(), 1u) << problem;
  EXPECT_NE(problem.find(kept.files()[0].string()), std::string::npos) << problem;
  EXPECT_EQ(test::read_text(kept.files()[0]), "the results\n");
  // A file that appeared after the check is not replaced without leave, and the text is kept.
  std::ofstream(dir / "appeared.csv") << "someone else's";
  const std::string appeared = write_file_safely(dir / "appeared.csv", "mine", kRefuseExisting);
  test::expect_good_message(appeared, {"appeared meanwhile", "kept in '"});
  EXPECT_EQ(test::read_text(dir / "appeared.csv"), "someone else's");
  EXPECT_EQ(kept.files().size(), 2u);
}

// Under `ulimit -f` the write fails with EFBIG, is reported with the reason, and the old file
// stays whole (in a child process: the limit would hold for the rest of the tests).
// Exits 0 when the write failed with EFBIG's reason and left the old file whole (the child's
// stderr is a file under the same limit, so the verdict is its exit code).
[[noreturn]] void write_under_a_file_size_limit(const fs::path& file) {
  report_file_size_limit_as_error();
  rlimit limit{};
  limit.rlim_cur = limit.rlim_max = 16;
  ::setrlimit(RLIMIT_FSIZE, &limit);
  const std::string problem = write_file_safely(file, std::string(1000, 'x'), kReplace);
  const bool reported = problem.starts_with("cannot write '" + file.string() + "': File too large");
  std::exit(!reported ? 1 : test::read_text(file) != "old" ? 2 : 0);
}

TEST(HostileOutputWrite, AFileSizeLimitFailsTheWriteAndKeepsTheOldFile) {
  const fs::path file = output_folder("limit") / "settings.json";
  std::ofstream(file) << "old";
  EXPECT_EXIT(write_under_a_file_size_limit(file), testing::ExitedWithCode(0), "");
}

TEST(HostileOutputWrite, TwoNamesOfOneFileAreTheSameFile) {
  const fs::path dir = output_folder("same");
  std::ofstream(dir / "a.csv") << "";
  fs::create_hard_link(dir / "a.csv", dir / "hard.json");
  fs::create_symlink("a.csv", dir / "soft.json");
  EXPECT_TRUE(same_file(dir / "a.csv", dir / "hard.json"));
  EXPECT_TRUE(same_file(dir / "a.csv", dir / "soft.json"));
  EXPECT_TRUE(same_file(dir / "new.csv", dir / "." / "new.csv")) << "neither exists yet";
  EXPECT_FALSE(same_file(dir / "a.csv", dir / "new.csv"));
  EXPECT_FALSE(same_file(dir / "new.csv", dir / "new.json"));
}

// HOME that does not exist is never made, nor anything in it; a folder elsewhere is.
TEST(HostileOutputWrite, AMissingHomeIsNeverMade) {
  const fs::path dir = output_folder("home");
  const char* saved = std::getenv("HOME");
  const std::string home = saved ? saved : "";
  ::setenv("HOME", (dir / "missing-home").c_str(), 1);
  const std::string problem = make_folders(dir / "missing-home" / ".config" / "warplens");
  const std::string elsewhere = make_folders(dir / "made" / "here");
  saved ? ::setenv("HOME", home.c_str(), 1) : ::unsetenv("HOME");
  test::expect_good_message(
      problem, {"HOME '" + (dir / "missing-home").string() + "' does not exist", "set HOME"});
  EXPECT_FALSE(fs::exists(dir / "missing-home"));
  EXPECT_EQ(elsewhere, "");
  EXPECT_TRUE(fs::is_directory(dir / "made" / "here"));
}

} // namespace
} // namespace wl
