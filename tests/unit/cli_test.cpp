// The warplens binary as a user runs it: reports, JSON keys, and one-line errors with exit 2.

#include "test_support.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace wl {
namespace {

using test::expect_one_line_error;
using test::run_warplens;

TEST(Cli, OccupancyTextReportMarksTheLimiter) {
  const auto r =
      run_warplens("occupancy --arch h100 --block 256 --regs 64 --smem 32768 --grid 1000");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("> registers"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<- limiter"), std::string::npos);
  EXPECT_NE(r.out.find("occupancy 50.0 %: 4 blocks per SM, 32 of 64 warps"), std::string::npos);
  EXPECT_NE(r.out.find("at 48 registers per thread 5 blocks would fit"), std::string::npos);
  EXPECT_NE(r.out.find("grid 1000 blocks: 528 per wave"), std::string::npos);
}

TEST(Cli, OccupancyJsonHasTheDocumentedKeys) {
  const auto r = run_warplens("occupancy --arch sm_90 --block 16x16 --regs 64 --smem 32768 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["blocks_per_sm"], 4);
  EXPECT_EQ(j["warps_per_sm"], 32);
  EXPECT_DOUBLE_EQ(j["occupancy"].get<double>(), 0.5);
  EXPECT_EQ(j["limiters"], nlohmann::json::array({"registers"}));
  EXPECT_EQ(j["limits"]["registers"], 4);
  EXPECT_EQ(j["limits"]["shared_memory"], 6);
  EXPECT_EQ(j["limits"]["warps"], 8);
  EXPECT_EQ(j["limits"]["blocks"], 32);
  EXPECT_EQ(j["limits"]["barriers"], 64);
  EXPECT_EQ(j["block"], nlohmann::json::array({16, 16, 1}));
  EXPECT_TRUE(j.contains("explanation"));
  EXPECT_FALSE(j.contains("impact_curves"));
}

TEST(Cli, CurvesOnRequest) {
  const auto json = run_warplens("occupancy --arch a100 --block 128 --json --curves");
  ASSERT_EQ(json.exit_code, 0) << json.out;
  EXPECT_EQ(nlohmann::json::parse(json.out)["impact_curves"]["registers"].size(), 255u);
  const auto text = run_warplens("occupancy --arch a100 --block 128 --regs 64 --curves");
  ASSERT_EQ(text.exit_code, 0) << text.out;
  EXPECT_NE(text.out.find("impact of registers per thread:  1-"), std::string::npos) << text.out;
}

TEST(Cli, ArchesListsEveryPresetAndTheGpuState) {
  const auto r = run_warplens("arches");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  for (const char* id :
       {"t4", "a100", "rtx3090", "rtx4090", "l40s", "h100", "h200", "b200", "rtx5090"})
    EXPECT_NE(r.out.find(std::string("\n") + id + " "), std::string::npos) << id;
  EXPECT_NE(r.out.find("GPU on this machine: "), std::string::npos);
  const auto j = nlohmann::json::parse(run_warplens("arches --json").out);
  EXPECT_EQ(j["presets"].size(), 9u);
}

TEST(Cli, BadInputIsOneLineAndExitTwo) {
  expect_one_line_error("occupancy --block 2048", {"2048 threads", "1 to 1024"});
  expect_one_line_error("occupancy --block 64x32", {"2048 threads"});
  expect_one_line_error("occupancy --block 0", {"'0'", "not positive"});
  expect_one_line_error("occupancy --block 32x0x2", {"not positive"});
  expect_one_line_error("occupancy --block=-4", {"'-4'"});
  expect_one_line_error("occupancy --block 1x1x128", {"z is 128", "1 to 64"});
  expect_one_line_error("occupancy --block 256 --regs 300", {"300", "0 to 255"});
  expect_one_line_error("occupancy --block 256 --regs abc", {"--regs"});
  expect_one_line_error("occupancy --block 256 --dyn-smem 300000", {"300000", "0 to 232448"});
  expect_one_line_error("occupancy --block 256 --smem 65536", {"65536", "0 to 49152"});
  expect_one_line_error("occupancy --block 256 --arch h300", {"'h300'", "h100", "sm_90"});
  expect_one_line_error("occupancy --block 256 --carveout 101",
                        {"--carveout", "'101'", "-1 to 100"});
  expect_one_line_error("occupancy --arch h100", {"--block"});
  expect_one_line_error("occupancy --block 256 --bogus", {"--bogus"});
  expect_one_line_error("--headless --kernel no/such",
                        {"unknown kernel 'no/such'"}); // no subcommand: the GUI
}

// A flag given a value, two outputs at once, an option with nothing after it, and one file for a
// sweep's two outputs: each refused in words before anything runs.
TEST(Cli, MisusedFlagsAndOptionsAreOneLineAndExitTwo) {
  expect_one_line_error("run vec_add/scalar --per-site=banana",
                        {"--per-site is a flag and takes no value"});
  expect_one_line_error("model vec_add/scalar --json=false", {"--json is a flag"});
  expect_one_line_error("run vec_add/scalar --json --csv", {"--json", "--csv", "not both"});
  expect_one_line_error("sweep vec_add/scalar --block 32:64:32 --json",
                        {"--json needs a value after it"});
  const std::string file = (std::filesystem::temp_directory_path() / "warplens_same.out").string();
  expect_one_line_error("sweep vec_add/scalar --block 32:64:32 --csv " + file + " --json " + file,
                        {"--csv and --json name one file", "give each its own file"});
}

TEST(Cli, MalformedPresetFileIsOneLineAndExitTwo) {
  const auto file = std::filesystem::temp_directory_path() / "warplens_cli_bad.json";
  std::ofstream(file) << R"({"id": "bad", "name": "x"})";
  expect_one_line_error("occupancy --block 256 --arch " + file.string(),
                        {file.string(), "aliases: missing"});
  std::ofstream(file) << "not json";
  expect_one_line_error("occupancy --block 256 --arch " + file.string(), {"not valid JSON"});
  std::filesystem::remove(file);
  const std::string missing = (std::filesystem::temp_directory_path() /
                               ("wl_cli_never_made_" + std::to_string(getpid())) / "x.json")
                                  .string();
  expect_one_line_error("occupancy --block 256 --arch " + missing, {missing});
}

TEST(Cli, PresetFileFromAnywhere) {
  const auto r = run_warplens(std::string("occupancy --block 256 --arch ") +
                              WARPLENS_SOURCE_ASSETS + "/arch/t4.json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("t4: NVIDIA Tesla T4"), std::string::npos) << r.out;
}

// Each entry of the binary's run path is absolute or from $ORIGIN: an empty or relative one makes
// the loader search the current folder, where a planted libstb.so.0 ran as WarpLens.
TEST(Cli, TheRunPathHasNoEmptyOrRelativeEntry) {
  FILE* pipe = popen(("readelf -d '" + std::string(WARPLENS_BINARY) + "' 2>&1").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string dynamic;
  for (char buffer[4096]; std::fgets(buffer, sizeof buffer, pipe);)
    dynamic += buffer;
  pclose(pipe);
  for (const std::string tag : {"(RPATH)", "(RUNPATH)"}) {
    const std::size_t at = dynamic.find(tag);
    if (at == std::string::npos)
      continue;
    const std::size_t open = dynamic.find('[', at), close = dynamic.find(']', at);
    const std::string path = dynamic.substr(open + 1, close - open - 1);
    std::size_t start = 0;
    for (std::size_t end; start <= path.size(); start = end + 1) {
      end = std::min(path.find(':', start), path.size());
      const std::string entry = path.substr(start, end - start);
      EXPECT_TRUE(entry.starts_with("/") || entry.starts_with("$ORIGIN"))
          << tag << " entry '" << entry << "' in '" << path << "'";
    }
  }
}

} // namespace
} // namespace wl
