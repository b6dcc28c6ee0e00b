// Hostile data files: arch presets given with --arch, assets folders given with
// WARPLENS_ASSETS, and metric catalogs. Each is refused in one line naming the file and the key.

#include "hostile_support.h"
#include "metric_catalog.h"

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

const std::vector<FileCase> kPresets = {
    preset_case("BandwidthOverflow", {"/dram_bandwidth_gbps", {}, "1e999"},
                {"not valid JSON", "1e999"}),
    preset_case("BandwidthNegativeOverflow", {"/dram_bandwidth_gbps", {}, "-1e999"},
                {"not valid JSON"}),
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
    preset_case("SmCountExponent", {"/sm_count", {}, "1e2"},
                {"sm_count: 100 is not a whole number"}),
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
    preset_case("SharedMemoryFloat", {"/shared_memory_per_sm", 233472.0},
                {"shared_memory_per_sm: 233472"}),
    preset_case("L2TooLarge", {"/l2_cache_bytes", 1LL << 41}, {"l2_cache_bytes: 2199023255552"}),
    preset_case("ReservedNegative", {"/reserved_shared_memory_per_block", -1},
                {"reserved_shared_memory_per_block"}),
    preset_case("DeepExtraKey", {"/extra", {}, test::nested(65)}, {"nested too deep", "64"}),
    preset_case("LongNameBadCount", {"/sm_count", std::string(100000, 'x')}, {"sm_count: 'xxxx"}),
    {"TopLevelList", "[1, 2, 3]", {"a list of 3 items is not a JSON object"}},
    {"TopLevelNumber", "5", {"5 is not a JSON object"}},
    {"EmptyFile", "", {"not valid JSON"}},
    {"Nested70000", test::nested(70000), {"nested too deep"}},
    {"Truncated", "{\"id\": \"x\", ", {"not valid JSON"}},
    {"BadUtf8", "{\"id\": \"\xff\xfe\"}", {"not valid JSON"}},
    {"NulByte", std::string("{\"id\"\0: 1}", 10), {"not valid JSON"}},
    {"EmptyObject", "{}", {"id: missing"}},
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
    {"OneBadPreset",
     {{"arch/h100.json", preset_text("h100")}, {"arch/bad.json", "{\"id\": 1e999}"}},
     "occupancy --block 256",
     {"bad.json", "not valid JSON"}},
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
     {"metrics.json", "not valid JSON"}},
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

} // namespace
} // namespace wl
