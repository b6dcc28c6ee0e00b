// A build without the CUDA toolkit (CI builds one through scripts/without-cuda.sh): it models
// every bundled kernel as the toolkit build does, with the registers of the recorded ptxas report,
// and every command that would measure says in one line that this build cannot and what can.

#include "test_support.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace wl {
namespace {

using test::contains;
using test::run_warplens;

#define WL_SKIP_WITH_ENGINE()                                                                      \
  if (test::kBuildHasEngine)                                                                       \
  GTEST_SKIP() << "this build has the CUDA toolkit; CI's no-toolkit job runs these"

TEST(NoToolkit, TheVersionSaysWhatTheBuildLacks) {
  WL_SKIP_WITH_ENGINE();
  const test::CommandResult r = run_warplens("--version");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(r.out.starts_with("WarpLens ")) << r.out;
  EXPECT_TRUE(contains(r.out, "\nbuilt without the CUDA toolkit: no CUDA runtime, CUPTI or engine"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "\nNVRTC none (built without the CUDA toolkit)")) << r.out;
}

TEST(NoToolkit, EveryCommandThatMeasuresSaysSoInOneLine) {
  WL_SKIP_WITH_ENGINE();
  for (const char* args :
       {"run vec_add/scalar", "run vec_add/scalar --metrics all", "worker",
        "sweep vec_add/scalar --block 64,128", "occupancy --block 256 --arch device",
        "model vec_add/scalar --arch device:0"})
    test::expect_one_line_error(args, {"built without the CUDA toolkit"});
  test::expect_one_line_error("run vec_add/scalar", {"--worker \"ssh HOST warplens worker\""});
}

TEST(NoToolkit, AKernelFileIsRefusedNamingTheFileAndWhatCompilesIt) {
  WL_SKIP_WITH_ENGINE();
  test::expect_one_line_error(
      "model " +
          (std::filesystem::path(WARPLENS_SOURCE_ASSETS).parent_path() / "examples" / "saxpy.cu")
              .string(),
      {"saxpy.cu", "no NVRTC", "a worker on a machine with CUDA"});
}

TEST(NoToolkit, TheModelUsesTheRecordedRegistersAndSaysSo) {
  WL_SKIP_WITH_ENGINE();
  const test::CommandResult r = run_warplens("model flash_attention/d128 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["attributes"]["source"], "ptxas, sm_90, recorded with nvcc 13.0") << r.out;
  EXPECT_EQ(j["attributes"]["registers"], 255) << r.out;
  EXPECT_GT(j["attributes"]["local_bytes_per_thread"].get<int>(), 0) << r.out;
  // Each preset's own architecture, not the nearest one built.
  const test::CommandResult t4 = run_warplens("model vec_add/scalar --arch t4 --json");
  ASSERT_EQ(t4.exit_code, 0) << t4.out;
  EXPECT_EQ(nlohmann::json::parse(t4.out)["attributes"]["source"],
            "ptxas, sm_75, recorded with nvcc 13.0");
}

TEST(NoToolkit, TheGuiWithoutAWorkerModelsAndSaysWhy) {
  WL_SKIP_WITH_ENGINE();
  const std::string png = (std::filesystem::temp_directory_path() /
                           ("warplens_no_toolkit_" + std::to_string(getpid()) + ".png"))
                              .string();
  const test::CommandResult r =
      run_warplens("--headless --kernel vec_add/scalar --screenshot " + png);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::ifstream sidecar(png.substr(0, png.size() - 4) + ".json");
  ASSERT_TRUE(sidecar) << "no sidecar beside " << png;
  const nlohmann::json j = nlohmann::json::parse(sidecar);
  EXPECT_TRUE(contains(j.dump(), "this WarpLens was built without the CUDA toolkit")) << j.dump();
}

} // namespace
} // namespace wl
