// The variant sweep (`warplens sweep FAMILY --variants`): every variant of a family at one size,
// the refusals as values, the peer (the family's library variant, or a recorded torch call on
// the same GPU at the same size), and the command as a user runs it.

#include "base/error.h"
#include "model/model_kernel.h"
#include "registry.h"
#include "sweep/variant_sweep.h"
#include "test_support.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace wl {
namespace {

using nlohmann::json;
using test::run_warplens;

const std::filesystem::path kBundledPeers =
    std::filesystem::path(WARPLENS_SOURCE_ASSETS) / "peers.json";

std::function<RunResult(const KernelRequest&)> by_the_models() {
  return [](const KernelRequest& request) {
    return model_kernel(request, test::preset("h100"), ModelBudget{3000});
  };
}

// A measurement's time, set by hand: the peer's choice depends on which results have one.
std::function<RunResult(const KernelRequest&)> timed(double ms, const std::string& device) {
  return [ms, device](const KernelRequest& request) {
    RunResult r = model_kernel(request, test::preset("h100"), ModelBudget{3000});
    r.arch.name = device;
    r.timing = TimingStats{};
    r.timing->median_time = ms;
    return r;
  };
}

std::filesystem::path write_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("wl-variants-" + std::to_string(getpid()) + "-" + name);
  std::ofstream(path) << text;
  return path;
}

TEST(VariantSweep, EveryVariantRunsAtTheFamilysSizeOrSaysWhyNot) {
  const VariantSweep sweep = run_variant_sweep("softmax", "", by_the_models());
  ASSERT_EQ(sweep.variants.size(), 7u);
  EXPECT_EQ(sweep.size, (Params{{"rows", 8192}, {"cols", 8192}}));
  EXPECT_EQ(variant_sweep_size_words(sweep), "rows=8192 cols=8192");
  for (const VariantPoint& p : sweep.variants) {
    if (p.kernel_id == "softmax/warp_registers") {
      EXPECT_FALSE(p.result);
      EXPECT_TRUE(test::contains(p.refused, "cols is at most 1024 (cols=8192)")) << p.refused;
      continue;
    }
    ASSERT_TRUE(p.result) << p.kernel_id << ": " << p.refused;
    EXPECT_EQ(p.result->params.at("cols"), 8192) << p.kernel_id;
    EXPECT_EQ(p.result->launch.block.x, find_kernel(p.kernel_id)->default_block.x) << p.kernel_id;
  }
  // A size of its own reaches every variant; the parameters that are not sizes keep theirs.
  const VariantSweep short_rows = run_variant_sweep("softmax", "32768x1024", by_the_models());
  for (const VariantPoint& p : short_rows.variants)
    EXPECT_TRUE(p.result) << p.kernel_id << ": " << p.refused;
}

TEST(VariantSweep, AnUnknownFamilyOrSizeIsRefusedNamingWhatIsAllowed) {
  try {
    run_variant_sweep("softmx", "", by_the_models());
    FAIL() << "an unknown family was swept";
  } catch (const UsageError& e) {
    EXPECT_TRUE(test::contains(e.what(), "'softmx' is not a family of bundled kernels; allowed "))
        << e.what();
    EXPECT_TRUE(test::contains(e.what(), "softmax")) << e.what();
  }
  EXPECT_THROW(run_variant_sweep("softmax", "8192x", by_the_models()), UsageError);
}

TEST(VariantSweep, ThePeerIsTheLibraryVariantMeasuredInTheSweep) {
  VariantSweep sweep = run_variant_sweep("matmul", "256x256x256", timed(2.0, "NVIDIA H200"));
  sweep.peer = variant_peer(sweep, kBundledPeers);
  ASSERT_TRUE(sweep.peer);
  EXPECT_EQ(sweep.peer->name, "matmul/cublas");
  EXPECT_EQ(sweep.peer->source, "a library call, measured in this sweep");
  EXPECT_DOUBLE_EQ(*share_of_peer(sweep, sweep.variants.front()), 1.0);
  // By the models, nothing was measured: no peer at all.
  const VariantSweep modelled = run_variant_sweep("matmul", "256x256x256", by_the_models());
  EXPECT_FALSE(variant_peer(modelled, kBundledPeers));
}

TEST(VariantSweep, ARecordedTorchCallIsThePeerOnlyOnItsGpuAndAtItsSize) {
  VariantSweep sweep = run_variant_sweep("softmax", "", timed(0.5, "NVIDIA H200"));
  sweep.peer = variant_peer(sweep, kBundledPeers);
  ASSERT_TRUE(sweep.peer);
  EXPECT_EQ(sweep.peer->name, "torch.softmax(x, dim=1)");
  EXPECT_DOUBLE_EQ(sweep.peer->median_time, 0.2831);
  EXPECT_TRUE(test::contains(sweep.peer->source, "recorded on NVIDIA H200, 2026-11-28"));
  EXPECT_NEAR(*share_of_peer(sweep, sweep.variants[1]), 0.2831 / 0.5, 1e-12);
  const VariantSweep other_gpu = run_variant_sweep("softmax", "", timed(0.5, "NVIDIA H100"));
  EXPECT_FALSE(variant_peer(other_gpu, kBundledPeers));
  const VariantSweep other_size =
      run_variant_sweep("softmax", "4096x4096", timed(0.5, "NVIDIA H200"));
  EXPECT_FALSE(variant_peer(other_size, kBundledPeers));
}

TEST(VariantSweep, AMalformedPeersFileIsRefusedNamingTheKey) {
  const auto typo = write_file("typo.json", R"({"recorded": [{"device": "NVIDIA H200",
      "date": "2026-11-28", "how": "by hand", "calls": [{"family": "softmax",
      "call": "torch.softmax", "size": {"rows": 8192, "cols": 8192}, "median_ms": -1}]}]})");
  try {
    recorded_peer(typo, "softmax", {{"rows", 8192}, {"cols", 8192}}, "NVIDIA H200");
    FAIL() << "a negative time was read";
  } catch (const UsageError& e) {
    EXPECT_TRUE(test::contains(e.what(), "median_ms")) << e.what();
  }
  const auto extra = write_file("extra.json", R"({"recorded": [], "recorder": 1})");
  EXPECT_THROW(recorded_peer(extra, "softmax", {}, "NVIDIA H200"), UsageError);
  EXPECT_THROW(recorded_peer(std::filesystem::temp_directory_path(), "softmax", {}, "x"),
               UsageError); // a folder where the file is expected
  std::filesystem::remove(typo);
  std::filesystem::remove(extra);
}

// A file read back is checked as a worker's answer is: the family's variants each once, each
// result at the file's size, no key it does not know.
TEST(VariantSweep, AFileReadsBackAndAnEditedOneIsRefusedNamingTheKey) {
  const json written = variant_sweep_json(run_variant_sweep("transpose", "", by_the_models()));
  const VariantSweep read = variant_sweep_from_json(written, "variants.json");
  ASSERT_EQ(read.variants.size(), 5u);
  EXPECT_EQ(read.size, (Params{{"rows", 8192}, {"cols", 8192}}));
  EXPECT_EQ(read.variants[3].kernel_id, "transpose/in_flight");
  EXPECT_TRUE(looks_like_variant_sweep(written));
  const auto refusal = [](const json& file) {
    try {
      variant_sweep_from_json(file, "variants.json");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("read");
  };
  json twice = written;
  twice["variants"][1] = twice["variants"][0];
  EXPECT_TRUE(
      test::contains(refusal(twice), "variants[1].kernel: 'transpose/naive' is listed twice"))
      << refusal(twice);
  json resized = written;
  resized["size"]["rows"] = 4096;
  EXPECT_TRUE(test::contains(refusal(resized), "at another size")) << refusal(resized);
  json extra = written;
  extra["peers"] = nullptr;
  EXPECT_TRUE(test::contains(refusal(extra), "peers")) << refusal(extra);
  json none = written;
  none["variants"] = json::array();
  EXPECT_TRUE(test::contains(refusal(none), "variants: an empty list")) << refusal(none);
  json peered = written; // the models' floors beside a measured time
  peered["peer"] = {{"name", "x.t().contiguous()"}, {"median_ms", 0.47}, {"source", "by hand"}};
  EXPECT_TRUE(test::contains(refusal(peered), "a peer beside no measured variant"))
      << refusal(peered);
  json twice_named = written; // a peer's time under its name and its older name
  twice_named["peer"] = {
      {"name", "x"}, {"median_ms", 0.47}, {"median_time", 0.5}, {"source", "by hand"}};
  EXPECT_TRUE(test::contains(refusal(twice_named), "median_ms: given beside median_time"))
      << refusal(twice_named);
  json other = written;
  other["family"] = "softmax";
  EXPECT_TRUE(test::contains(refusal(other), "is not a variant of softmax")) << refusal(other);
}

TEST(VariantSweep, TheCommandListsEveryVariantAndItsFiles) {
  const auto csv =
      std::filesystem::temp_directory_path() / ("wl-variants-" + std::to_string(getpid()) + ".csv");
  const auto r =
      run_warplens("sweep matmul --variants --model --size 512x512x512 --csv " + csv.string());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(test::contains(r.out, "matmul at m=512 n=512 k=512: each variant at its default "
                                    "launch; the models' figures on h100, nothing measured, so "
                                    "no peer"))
      << r.out;
  for (const char* id :
       {"matmul/naive", "matmul/warptile", "matmul/double_buffered", "matmul/cublas"})
    EXPECT_TRUE(test::contains(r.out, id)) << id;
  std::ifstream file(csv);
  std::string header, line;
  std::getline(file, header);
  EXPECT_EQ(header, "kernel,title,block,status,reason,median_time,throughput,compute,of_peer,"
                    "modelled_time,verified");
  int rows = 0;
  while (std::getline(file, line))
    ++rows;
  EXPECT_EQ(rows, 11);
  std::filesystem::remove(csv);
}

TEST(VariantSweep, TheCommandRefusesWhatAVariantSweepCannotHonour) {
  test::expect_one_line_error("sweep matmul --variants --model --block 256",
                              {"--block excludes --variants"});
  test::expect_one_line_error("sweep matmul --variants --model --param-range bm=64,128",
                              {"--param-range excludes --variants"});
  test::expect_one_line_error("sweep nope --variants --model",
                              {"'nope' is not a family of bundled kernels", "matmul"});
  test::expect_one_line_error("sweep softmax --variants --model --size 1e999x4", {"1e999"});
}

} // namespace
} // namespace wl
