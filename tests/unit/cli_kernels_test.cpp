// `warplens list`, `model`, `run` and `sweep --model` as a user runs them, including the acceptance
// predictions of the kernel catalog (sectors and wavefronts per request) read from `model --json`.

#include "protocol/protocol.h"
#include "test_support.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace wl {
namespace {

using nlohmann::json;
using test::expect_one_line_error;
using test::run_warplens;

json model(const std::string& args) {
  const auto r = run_warplens("model " + args + " --json");
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.out;
  return r.exit_code == 0 ? json::parse(r.out) : json::object();
}

// The first site in this space doing this op.
json site(const json& result, const std::string& space, const std::string& op) {
  for (const json& s : result["sites"])
    if (s["space"] == space && s["op"] == op)
      return s;
  ADD_FAILURE() << "no " << space << " " << op << " site";
  return json::object();
}

double global_load_sectors_per_request(const std::string& args) {
  return site(model(args), "global", "load")["sectors_per_request"].get<double>();
}

double shared_load_wavefronts_per_request(const std::string& args) {
  return site(model(args), "shared", "load")["wavefronts_per_request"].get<double>();
}

TEST(CliKernels, CoalescingPredictions) {
  EXPECT_DOUBLE_EQ(global_load_sectors_per_request("coalescing/stride --param stride=1"), 4.0);
  EXPECT_DOUBLE_EQ(global_load_sectors_per_request("coalescing/stride --param stride=2"), 8.0);
  EXPECT_DOUBLE_EQ(global_load_sectors_per_request("coalescing/stride --param stride=32"), 32.0);
  EXPECT_DOUBLE_EQ(global_load_sectors_per_request("coalescing/offset --param offset=1"), 5.0);
}

TEST(CliKernels, BankConflictPredictions) {
  EXPECT_DOUBLE_EQ(shared_load_wavefronts_per_request("bank_conflicts/stride --param stride=1"),
                   1.0);
  EXPECT_DOUBLE_EQ(shared_load_wavefronts_per_request("bank_conflicts/stride --param stride=2"),
                   2.0);
  EXPECT_DOUBLE_EQ(shared_load_wavefronts_per_request("bank_conflicts/stride --param stride=32"),
                   32.0);
  EXPECT_DOUBLE_EQ(shared_load_wavefronts_per_request("bank_conflicts/padded --param pad=1"), 1.0);
}

TEST(CliKernels, TransposeTileReads) {
  EXPECT_DOUBLE_EQ(shared_load_wavefronts_per_request("transpose/smem"), 32.0);
  EXPECT_DOUBLE_EQ(shared_load_wavefronts_per_request("transpose/smem_padded"), 1.0);
}

TEST(CliKernels, ModelJsonHasTheDocumentedSiteKeys) {
  const json result = model("vec_add/scalar --arch sm_90 --block 128");
  ASSERT_FALSE(result["sites"].empty());
  for (const char* key :
       {"name", "space", "op", "width", "requests", "sectors", "ideal_sectors",
        "sectors_per_request", "wavefronts", "ideal_wavefronts", "wavefronts_per_request"})
    EXPECT_TRUE(result["sites"][0].contains(key)) << key;
  EXPECT_EQ(result["occupancy"]["blocks_per_sm"], 16);
  EXPECT_GT(result["attributes"]["registers"].get<int>(), 0);
  // ptxas says nothing of these: no GPU gave them, so they are null, not a zero that reads real.
  for (const char* key : {"max_threads_per_block", "ptx_version", "binary_version"})
    EXPECT_TRUE(result["attributes"][key].is_null()) << key;
  EXPECT_EQ(run_result_from_json(result).attributes->binary_version, 0);
}

TEST(CliKernels, ListShowsEveryKernel) {
  const auto r = run_warplens("list --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const json list = json::parse(r.out);
  EXPECT_EQ(list.size(), 47u);
  EXPECT_EQ(list[0]["id"], "vec_add/scalar");
  const auto text = run_warplens("list");
  EXPECT_NE(text.out.find("matmul/tiled"), std::string::npos);
}

TEST(CliKernels, BadInputIsOneLineAndExitTwo) {
  expect_one_line_error("model nope/kernel", {"unknown kernel 'nope/kernel'", "vec_add/scalar"});
  expect_one_line_error("model matmul/fancy", {"unknown variant 'matmul/fancy'", "matmul/tiled"});
  expect_one_line_error("model coalescing",
                        {"'coalescing' is a family of kernels", "coalescing/stride"});
  expect_one_line_error("model coalescing/stride --param stride=2 --param stride=4",
                        {"--param stride is given twice", "'2' and '4'"});
  expect_one_line_error("model coalescing/stride --param strid=2",
                        {"no parameter 'strid'", "stride"});
  expect_one_line_error("model coalescing/stride --param width=3", {"width=3", "4, 8, 16"});
  expect_one_line_error("model coalescing/stride --param stride", {"name=value"});
  expect_one_line_error("model matmul/tiled --block 8x8", {"matmul/tiled cannot use block 8x8"});
  expect_one_line_error("model vec_add/scalar --block 32x2", {"1D"});
  expect_one_line_error("model vec_add/scalar --size 10x10", {"--size", "n"});
  expect_one_line_error("model vec_add/vec4 --param n=10", {"multiple of 4"});
  expect_one_line_error("model matmul/cublas --block 16x16", {"cuBLAS"});
}

// `sweep --model`: the models' figures per point with no GPU, the worst site's (the load's 32 at
// stride 32, not an average with the store's 4), and files a measured sweep's readers take.
TEST(CliKernels, AModelSweepNeedsNoGpu) {
  const std::filesystem::path json_file =
      std::filesystem::temp_directory_path() / ("warplens_model_sweep_" + std::to_string(getpid()));
  std::filesystem::remove(json_file);
  const auto r = run_warplens("sweep coalescing/stride --block 256 --param-range stride=1,8,32 "
                              "--model --json " +
                              json_file.string());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("the models' figures on h100; nothing measured"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("limited by"), std::string::npos) << r.out;
  for (const char* row : {"1          256", "8          256", "32         256"})
    EXPECT_NE(r.out.find(row), std::string::npos) << row << "\n" << r.out;
  EXPECT_NE(r.out.find(" 32.00 "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(" 18.00 "), std::string::npos) << r.out;
  const auto shown =
      run_warplens("--headless --model --kernel coalescing/stride --panel sweep "
                   "--sweep-json " +
                   json_file.string() + " --screenshot " + json_file.string() + ".png");
  EXPECT_EQ(shown.exit_code, 0) << shown.out;
  // Read back, the models' figures are said to be modelled, never measured on a GPU.
  std::ifstream sidecar_file(json_file.string() + ".json");
  const json sidecar = json::parse(sidecar_file);
  const std::string sweep_text = sidecar["shown"]["text"]["sweep"];
  EXPECT_NE(sweep_text.find("modelled for NVIDIA H100"), std::string::npos) << sweep_text;
  EXPECT_EQ(sweep_text.find("measured on"), std::string::npos) << sweep_text;
  for (const char* suffix : {"", ".png", ".json"})
    std::filesystem::remove(json_file.string() + suffix);
}

// A blocking given with --param runs its own block, in a sweep of other parameters as in `run`
// and the GUI's command line: async_copy's bn=128 blocking runs 128 threads, not the default 256.
TEST(CliKernels, ASweepOfParametersAloneTakesTheBlockTheFixedParametersAllow) {
  const auto r = run_warplens(
      "sweep matmul/async_copy --model --param bn=128 --param-range group=1,8 --size 256x256x256");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  for (const char* row : {"1          128", "8          128"})
    EXPECT_NE(r.out.find(row), std::string::npos) << row << "\n" << r.out;
  EXPECT_EQ(r.out.find("refused"), std::string::npos) << r.out;
  const std::filesystem::path picture =
      std::filesystem::temp_directory_path() / ("warplens_param_block_" + std::to_string(getpid()));
  const auto shown = run_warplens("--headless --model --kernel matmul/async_copy --param bn=128 "
                                  "--screenshot " +
                                  picture.string() + ".png");
  ASSERT_EQ(shown.exit_code, 0) << shown.out;
  std::ifstream sidecar_file(picture.string() + ".json");
  const json sidecar = json::parse(sidecar_file);
  EXPECT_EQ(sidecar["configuration"]["block"], "128") << sidecar["configuration"].dump();
  for (const char* suffix : {".png", ".json"})
    std::filesystem::remove(picture.string() + suffix);
}

TEST(CliKernels, AModelSweepOfTwoVariantsGivesRatiosAndNoVerdicts) {
  const auto r = run_warplens("sweep transpose/smem --against transpose/smem_padded --block-x 32 "
                              "--block-y 8,32 --model");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("no verdicts (the models have no noise)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("FASTER"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("SAME"), std::string::npos) << r.out;
}

TEST(CliKernels, WhatOnlyAMeasurementUsesIsRefusedBesideModel) {
  for (const char* measured : {"--workers 2", "--worker cat", "--per-site", "--metrics all",
                               "--device 1", "--seed 3", "--max-time 0.5"})
    expect_one_line_error(std::string("sweep vec_add/scalar --block 64 --model ") + measured,
                          {"excludes --model"});
  expect_one_line_error("sweep vec_add/scalar --block 64 --arch a100", {"--arch requires --model"});
  expect_one_line_error("sweep vec_add/scalar --block 64 --model --arch h999", {"h999"});
}

// A sweep that measured nothing fails (exit 2), after writing its file, which says why per point.
TEST(CliKernels, ASweepWhosePointsAreAllRefusedFailsAfterWritingItsFile) {
  const std::filesystem::path csv =
      std::filesystem::temp_directory_path() / ("warplens_refused_" + std::to_string(getpid()));
  std::filesystem::remove(csv);
  const auto r = run_warplens("sweep matmul/cublas --model --block-x 32,64 --csv " + csv.string());
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("every point of the sweep was refused (the first: "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("matmul/cublas allows none to choose"), std::string::npos) << r.out;
  std::ifstream written(csv);
  const std::string text((std::istreambuf_iterator<char>(written)),
                         std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("refused"), std::string::npos) << text;
  std::filesystem::remove(csv);
}

TEST(CliKernels, RunWithoutAGpuSaysSo) {
  WL_SKIP_WITHOUT_ENGINE(); // NoToolkit.* checks what that build says
  if (run_warplens("arches").out.find("GPU on this machine: none") == std::string::npos)
    GTEST_SKIP() << "this machine has a GPU";
  expect_one_line_error("run vec_add/scalar", {"no GPU"});
}

} // namespace
} // namespace wl
