#include "base/error.h"
#include "model/arch.h"
#include "shape.h"
#include "test_support.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace wl {
namespace {

const std::filesystem::path kPresetFolder = std::filesystem::path(WARPLENS_SOURCE_ASSETS) / "arch";

TEST(ArchPresets, AllNineLoadWithTheirAliases) {
  const std::vector<Arch> all = load_arch_presets(kPresetFolder);
  std::vector<std::string> ids;
  for (const Arch& arch : all)
    ids.push_back(arch.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"a100", "b200", "h100", "h200", "l40s", "rtx3090",
                                           "rtx4090", "rtx5090", "t4"}));
  const std::pair<const char*, const char*> aliases[] = {
      {"sm_75", "t4"},   {"sm_80", "a100"},  {"sm_86", "rtx3090"}, {"sm_89", "rtx4090"},
      {"sm_90", "h100"}, {"sm_100", "b200"}, {"sm_120", "rtx5090"}};
  for (const auto& [alias, id] : aliases)
    EXPECT_EQ(find_arch(all, alias).id, id) << alias;
}

TEST(ArchPresets, EveryPresetHasItsOwnComputeCapability) {
  for (const Arch& arch : load_arch_presets(kPresetFolder)) {
    EXPECT_FALSE(arch.source.empty()) << arch.id;
    EXPECT_GT(arch.dram_bandwidth_gbps, 100) << arch.id;
    if (!arch.aliases.empty()) {
      EXPECT_EQ(arch.aliases.front(), arch.sm_name()) << arch.id;
    }
  }
}

TEST(ArchPresets, H100MatchesTheDeviceFigures) {
  const Arch h100 = test::preset("h100");
  EXPECT_EQ(h100.sm_count, 132);
  EXPECT_EQ(h100.max_threads_per_sm, 2048);
  EXPECT_EQ(h100.shared_memory_per_sm, 233472);
  EXPECT_EQ(h100.shared_memory_per_block_optin, 232448);
  EXPECT_EQ(h100.reserved_shared_memory_per_block, 1024);
  EXPECT_EQ(h100.l2_cache_bytes, 52428800);
  EXPECT_EQ(h100.max_blocks_per_sm, 32);
}

// The FP32 peak each preset gives (the compute speed of light's denominator) is the datasheet's,
// at the preset's clock: NVIDIA's published FP32 TFLOPS (T4 and A100 datasheets, the GA102, Ada
// and RTX Blackwell whitepapers, the H100 and HGX B200 pages, the L40S table). The RTX 5090
// preset's clock is its deviceQuery's 2,550 MHz (a factory-overclocked board), so its datasheet
// figure is scaled from the reference 2,407 MHz.
TEST(ArchPresets, TheFp32PeakIsTheDatasheetsAtThePresetsClock) {
  const std::pair<const char*, double> datasheet_tflops[] = {{"t4", 8.1},
                                                             {"a100", 19.5},
                                                             {"rtx3090", 35.6},
                                                             {"rtx4090", 82.6},
                                                             {"l40s", 91.6},
                                                             {"h100", 66.9},
                                                             {"h200", 66.9},
                                                             {"b200", 75.0 * 1965 / 1980},
                                                             {"rtx5090", 104.8 * 2550 / 2407}};
  for (const auto& [id, tflops] : datasheet_tflops) {
    const Arch arch = test::preset(id);
    EXPECT_NEAR(arch.fp32_peak_gflops() / 1e3, tflops, 0.01 * tflops) << id;
  }
  EXPECT_EQ(test::preset("t4").fp32_per_clock_per_sm(), 64);
  EXPECT_EQ(test::preset("a100").fp32_per_clock_per_sm(), 64);
  EXPECT_EQ(test::preset("rtx3090").fp32_per_clock_per_sm(), 128);
  Arch unknown = test::preset("h100");
  unknown.cc_major = 11; // no documented figure WarpLens knows: no peak, rather than a guess
  EXPECT_EQ(unknown.fp32_peak_gflops(), 0);
}

TEST(ArchPresets, UnknownIdListsTheKnownOnes) {
  try {
    find_arch(load_arch_presets(kPresetFolder), "h300");
    FAIL();
  } catch (const UsageError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("'h300'"), std::string::npos);
    EXPECT_NE(message.find("h100"), std::string::npos);
    EXPECT_NE(message.find("sm_90"), std::string::npos);
  }
}

// A preset with one key changed, run through the validator.
std::string validation_error(const std::string& key, const nlohmann::json& value) {
  std::ifstream in(kPresetFolder / "h100.json");
  nlohmann::json preset = nlohmann::json::parse(in);
  if (value.is_null())
    preset.erase(key);
  else
    preset[key] = value;
  try {
    arch_from_json(preset, "broken.json");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(ArchPresets, ValidationNamesTheFileAndTheKey) {
  EXPECT_NE(validation_error("sm_count", nullptr).find("broken.json: sm_count: missing"),
            std::string::npos);
  EXPECT_NE(validation_error("sm_count", -3)
                .find("sm_count: -3 is out of range; allowed a whole number from 1"),
            std::string::npos);
  EXPECT_NE(validation_error("sm_count", "many").find("sm_count: 'many' is not a whole number"),
            std::string::npos);
  EXPECT_NE(validation_error("compute_capability", "nine").find("MAJOR.MINOR"), std::string::npos);
  EXPECT_NE(validation_error("compute_capability", "6.1").find("7.0 to 12.9"), std::string::npos);
  EXPECT_NE(validation_error("max_block_dims", nlohmann::json::array({1024, 1024}))
                .find("max_block_dims"),
            std::string::npos);
  EXPECT_NE(validation_error("shared_memory_per_block_optin", 1000)
                .find("shared_memory_per_block: exceeds"),
            std::string::npos);
  EXPECT_NE(validation_error("aliases", "sm_90").find("aliases: 'sm_90' is not a list"),
            std::string::npos);
}

// What L2 serves the SMs: optional (0, unknown), never below DRAM's, which crosses it.
TEST(ArchPresets, AnL2BandwidthBelowDramsIsRefused) {
  EXPECT_NE(validation_error("l2_bandwidth_gbps", 1000)
                .find("l2_bandwidth_gbps: is below dram_bandwidth_gbps"),
            std::string::npos)
      << validation_error("l2_bandwidth_gbps", 1000);
  EXPECT_NE(validation_error("l2_bandwidth_gbps", -1).find("l2_bandwidth_gbps"), std::string::npos);
  EXPECT_EQ(validation_error("l2_bandwidth_gbps", 0), "");
  EXPECT_EQ(validation_error("l2_bandwidth_gbps", nullptr), "");
}

// A GPU read from a device takes the L2 bandwidth of the preset of its kind: one named like it
// first, else any with its compute capability and SM count.
TEST(ArchPresets, AGpuFindsThePresetOfItsKind) {
  const std::vector<Arch> all = load_arch_presets(kPresetFolder);
  Arch gpu = find_arch(all, "h200");
  gpu.name = "NVIDIA H200";
  ASSERT_NE(preset_of_kind(all, gpu), nullptr);
  EXPECT_EQ(preset_of_kind(all, gpu)->id, "h200");
  gpu.name = "NVIDIA GH100 engineering sample";
  ASSERT_NE(preset_of_kind(all, gpu), nullptr);
  EXPECT_EQ(preset_of_kind(all, gpu)->cc_major, 9);
  gpu.sm_count = 114; // an H100 PCIe: no preset of its kind
  EXPECT_EQ(preset_of_kind(all, gpu), nullptr);
}

TEST(ArchPresets, MalformedJsonFileIsAnErrorNamingIt) {
  const auto file = std::filesystem::temp_directory_path() / "warplens_malformed.json";
  std::ofstream(file) << "{ \"id\": \"x\", ";
  try {
    load_arch_file(file);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(file.string() + ": not valid JSON"), std::string::npos)
        << e.what();
  }
  std::filesystem::remove(file);
}

TEST(ArchPresets, BlockLimitsNameTheSideAndTheRange) {
  const Arch h100 = test::preset("h100");
  EXPECT_NO_THROW(check_block_fits(h100, BlockShape{1024, 1, 1}));
  EXPECT_NO_THROW(check_block_fits(h100, BlockShape{16, 8, 8}));
  try {
    check_block_fits(h100, BlockShape{64, 32, 1});
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("2048 threads"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("1 to 1024"), std::string::npos);
  }
  try {
    check_block_fits(h100, BlockShape{1, 1, 128});
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("z is 128"), std::string::npos);
  }
}

} // namespace
} // namespace wl
