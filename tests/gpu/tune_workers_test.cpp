// `warplens tune` over workers, as a person runs it: two workers on this GPU share the space, each
// point measured once and kept once in the cache, which is named by the GPU the workers have; run
// again, every point comes from the cache; a worker that cannot start leaves the tune to the other.

#include "../unit/test_support.h"
#include "gpu_test_support.h"

#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace wl {
namespace {

using test::contains;
using test::have_gpu;

const std::string kWorker = std::string("'") + WARPLENS_BINARY + " worker'";

// The JSON object a tune printed last (its progress lines come before it on the same stream).
nlohmann::json tune_json(const std::string& out) {
  const std::size_t start = out.find("\n{");
  return nlohmann::json::parse(start == std::string::npos ? out : out.substr(start + 1));
}

TEST(TuneOnWorkers, TwoWorkersShareTheSpaceAndEachPointIsMeasuredOnce) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  const std::filesystem::path cache =
      test::written("tune_workers", "placeholder", "").parent_path() / "cache.jsonl";
  std::filesystem::remove(cache);
  const std::string args = "tune vec_add/scalar --block 64:512:64 --strategy grid --json --cache " +
                           cache.string() + " --worker " + kWorker + " --worker " + kWorker;
  const test::CommandResult first = test::run_warplens(args);
  ASSERT_EQ(first.exit_code, 0) << first.out;
  EXPECT_TRUE(contains(first.out, "worker 1 (")) << first.out;
  EXPECT_TRUE(contains(first.out, "worker 2 (")) << first.out;
  const nlohmann::json tuned = tune_json(first.out);
  EXPECT_EQ(tuned["measured"], 8);
  std::set<std::string> points;
  for (const nlohmann::json& e : tuned["evaluations"])
    points.insert(e["point"].get<std::string>());
  EXPECT_EQ(points.size(), 8u);
  // The cache: its identity line names the GPU by its board id, then one line a point.
  std::ifstream in(cache);
  std::string header, line;
  std::getline(in, header);
  EXPECT_TRUE(contains(header, "(GPU-")) << header;
  int lines = 0;
  while (std::getline(in, line))
    ++lines;
  EXPECT_EQ(lines, 8);
  const test::CommandResult again = test::run_warplens(args);
  ASSERT_EQ(again.exit_code, 0) << again.out;
  EXPECT_EQ(tune_json(again.out)["from_cache"], 8);
  EXPECT_EQ(tune_json(again.out)["measured"], 0);
}

TEST(TuneOnWorkers, AWorkerThatCannotStartLeavesTheTuneToTheOthers) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  const test::CommandResult r = test::run_warplens(
      "tune vec_add/scalar --block 128:256:128 --strategy grid --no-cache --worker /bin/false "
      "--worker " +
      kWorker);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "worker 1 (/bin/false) stopped: ")) << r.out;
  EXPECT_TRUE(contains(r.out, "1. block ")) << r.out;
}

} // namespace
} // namespace wl
