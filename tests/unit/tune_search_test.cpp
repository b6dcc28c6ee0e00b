// A tune's space, search and run without a GPU: the space modelled on a preset, each strategy's
// order, the model's proofs and local search, and a run whose points are "measured" by a
// deterministic stand-in for the GPU (each point's modelled time, scaled by how far its block is
// from 256 threads), so a killed and resumed tune can be counted point by point.

#include "model/kernel_request.h"
#include "registry.h"
#include "report/figures.h"
#include "test_support.h"
#include "tune/tune_report.h"
#include "tune/tune_run.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <functional>
#include <mutex>
#include <set>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace wl {
namespace {

// vec_add/scalar over 32 to 1024 threads: 32 allowed points, the default (256) among them.
TuneSpace search_space() {
  const KernelRequest base = resolve_kernel_request("vec_add/scalar", {}, "", "");
  return model_tune_space(
      *base.kernel, base.params,
      SweepGrid{sweep_shapes(parse_side_list("32:1024:32", "--block"), {1}, {1}), {}}, base.params,
      base.block, test::preset("h100"), kSweepModelBudget, kMaxSweepShapes);
}

// The stand-in GPU: the modelled time, longer the farther the block is from 512 threads, with a
// passed verification; counts what it measured.
struct SearchGpu {
  int measured = 0;
  SweepPoint operator()(const SweepPoint& modelled) {
    ++measured;
    SweepPoint p = modelled;
    const double floor = figure_value(figure("modelled_time"), *p.result).value_or(1);
    const double ms = floor * (1 + std::fabs(std::log2(p.block.x / 512.0)));
    TimingStats t;
    t.samples = 20;
    t.median_time = t.min_time = t.max_time = t.mean_time = ms;
    t.converged = true;
    p.result->timing = t;
    Verification v;
    v.passed = true;
    v.checked = 100;
    p.result->verification = v;
    return p;
  }
};

std::vector<std::size_t> search_order(const TuneSpace& space, TuneStrategy strategy,
                                      std::uint64_t seed = 1) {
  TuneSearch search(space, strategy, TuneObjective::time, seed);
  std::vector<std::size_t> order;
  while (const auto next = search.next()) {
    order.push_back(*next);
    search.measured(*next, 1.0);
  }
  return order;
}

TEST(TuneSpace, TheDefaultLaunchIsAPointAndEachPointHasAKeyOfItsOwn) {
  const TuneSpace space = search_space();
  ASSERT_NE(space.default_point, kNoPoint);
  EXPECT_EQ(space.points[space.default_point].block.x, 256);
  EXPECT_EQ(space.valid(), 32u);
  std::set<std::string> keys;
  for (const SweepPoint& p : space.points)
    keys.insert(tune_point_key(p));
  EXPECT_EQ(keys.size(), space.points.size());
  EXPECT_EQ(tune_point_label(space, space.points[space.default_point]), "block 256");
}

TEST(TuneSpace, ANeighbourIsOneStepAlongOneAxis) {
  const TuneSpace space = search_space();
  const std::vector<std::size_t> near = tune_neighbours(space, space.default_point);
  ASSERT_EQ(near.size(), 2u);
  EXPECT_EQ(space.points[near[0]].block.x, 224);
  EXPECT_EQ(space.points[near[1]].block.x, 288);
}

TEST(TuneSpace, NeighboursPassOverTheTriedOnesToTheNextRing) {
  const TuneSpace space = search_space();
  const std::vector<std::size_t> first = tune_neighbours(space, space.default_point);
  const std::vector<std::size_t> next =
      tune_neighbours(space, space.default_point, [&](std::size_t i) {
        return std::find(first.begin(), first.end(), i) != first.end();
      });
  ASSERT_EQ(next.size(), 2u);
  EXPECT_EQ(space.points[next[0]].block.x, 192);
  EXPECT_EQ(space.points[next[1]].block.x, 320);
}

TEST(TuneSearch, EveryStrategyMeasuresTheDefaultFirstAndEachAllowedPointOnce) {
  const TuneSpace space = search_space();
  for (const TuneStrategy strategy :
       {TuneStrategy::grid, TuneStrategy::random, TuneStrategy::model}) {
    const std::vector<std::size_t> order = search_order(space, strategy);
    ASSERT_FALSE(order.empty()) << tune_strategy_name(strategy);
    EXPECT_EQ(order.front(), space.default_point) << tune_strategy_name(strategy);
    EXPECT_EQ(std::set<std::size_t>(order.begin(), order.end()).size(), order.size());
    EXPECT_EQ(order.size(), space.valid()) << tune_strategy_name(strategy);
  }
}

TEST(TuneSearch, ARandomOrderDependsOnItsSeedAlone) {
  const TuneSpace space = search_space();
  EXPECT_EQ(search_order(space, TuneStrategy::random, 7),
            search_order(space, TuneStrategy::random, 7));
  EXPECT_NE(search_order(space, TuneStrategy::random, 7),
            search_order(space, TuneStrategy::random, 8));
}

TEST(TuneSearch, TheModelSkipsAPointWhoseModelledTimeIsAboveTheBestMeasured) {
  const TuneSpace space = search_space();
  TuneSearch search(space, TuneStrategy::model, TuneObjective::time, 1);
  const std::size_t first = *search.next();
  // A best measured time below every point's floor: no other point can win.
  search.measured(first, 1e-9);
  EXPECT_FALSE(search.next().has_value());
  ASSERT_EQ(search.skipped().size(), space.valid() - 1);
  EXPECT_NE(search.skipped().front().why.find("cannot win"), std::string::npos)
      << search.skipped().front().why;
}

TEST(TuneSearch, TheModelsLocalSearchMovesToTheBestPointsNeighbours) {
  const TuneSpace space = search_space();
  TuneSearch search(space, TuneStrategy::model, TuneObjective::time, 1);
  SearchGpu gpu;
  std::vector<int> blocks;
  for (int i = 0; i < 8; ++i) {
    const std::optional<std::size_t> next = search.next();
    ASSERT_TRUE(next);
    const SweepPoint measured = gpu(space.points[*next]);
    blocks.push_back(measured.block.x);
    search.measured(*next, tune_cost(*measured.result, TuneObjective::time));
  }
  // Every other pick is a neighbour of the best so far, so the search climbs towards 512.
  EXPECT_NE(std::find(blocks.begin(), blocks.end(), 288), blocks.end())
      << testing::PrintToString(blocks);
  ASSERT_TRUE(search.best());
  EXPECT_GT(space.points[*search.best()].block.x, 256);
}

struct TuneScratch {
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                              ("warplens-tune-run-" + std::to_string(::getpid()) + "-" +
                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  TuneScratch() {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~TuneScratch() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
};

TuneCacheIdentity search_identity() {
  return {.kernel = "vec_add/scalar",
          .source_hash = "fnv1a64:00000000000000ff",
          .device = "NVIDIA H200 (GPU-00000001)",
          .driver = "13.0",
          .measure = "timing"};
}

TEST(TuneRun, AKilledTuneRunAgainMeasuresNoPointTwice) {
  const TuneScratch scratch;
  const TuneSpace space = search_space();
  const auto file = scratch.dir / "cache.jsonl";
  SearchGpu gpu;
  const TuneMeasure measure = [&](const SweepPoint& p) { return gpu(p); };
  {
    TuneCache cache = TuneCache::open(file, search_identity());
    TuneSearch search(space, TuneStrategy::model, TuneObjective::time, 1);
    const TuneOutcome first =
        run_tune(space, search, TuneObjective::time, {.evaluations = 5}, &cache, measure);
    EXPECT_EQ(first.measured, 5u);
    EXPECT_EQ(gpu.measured, 5);
  } // "killed": the cache holds five whole lines
  {
    TuneCache cache = TuneCache::open(file, search_identity());
    ASSERT_EQ(cache.points().size(), 5u);
    TuneSearch search(space, TuneStrategy::model, TuneObjective::time, 1);
    const TuneOutcome again =
        run_tune(space, search, TuneObjective::time, {.evaluations = 12}, &cache, measure);
    EXPECT_EQ(again.from_cache, 5u);
    EXPECT_EQ(again.measured, 7u);
    EXPECT_EQ(gpu.measured, 12);
  }
  EXPECT_EQ(TuneCache::open(file, search_identity()).points().size(), 12u);
}

TEST(TuneRun, TheGridFindsTheFastestAndTheReportSetsItBesideTheDefault) {
  const TuneSpace space = search_space();
  SearchGpu gpu;
  TuneSearch search(space, TuneStrategy::grid, TuneObjective::time, 1);
  const TuneOutcome outcome = run_tune(space, search, TuneObjective::time, {}, nullptr,
                                       [&](const SweepPoint& p) { return gpu(p); });
  EXPECT_EQ(outcome.measured, space.valid());
  ASSERT_TRUE(outcome.best);
  EXPECT_EQ(space.points[outcome.evaluations[*outcome.best].point].block.x, 512);
  const std::vector<TuneRanked> ranked = tune_ranking(space, outcome, 3);
  ASSERT_EQ(ranked.size(), 3u);
  EXPECT_EQ(ranked[0].label, "block 512");
  const std::string text = tune_text(space, outcome, TuneStrategy::grid, TuneObjective::time, 3);
  EXPECT_NE(text.find("1. block 512: "), std::string::npos) << text;
  EXPECT_NE(text.find("x the default's"), std::string::npos) << text;
  EXPECT_NE(text.find("median time: "), std::string::npos) << text;
  EXPECT_NE(text.find("(default "), std::string::npos) << text;
}

// A grid tune of the first `evaluations` points whose measurements `tamper` changes: a launch
// with wrong outputs, refused or untimed.
TuneOutcome tampered_tune(const TuneSpace& space, std::size_t evaluations,
                          const std::function<void(SweepPoint&)>& tamper) {
  SearchGpu gpu;
  TuneSearch search(space, TuneStrategy::grid, TuneObjective::time, 1);
  return run_tune(space, search, TuneObjective::time, {.evaluations = evaluations}, nullptr,
                  [&](const SweepPoint& p) {
                    SweepPoint measured = gpu(p);
                    tamper(measured);
                    return measured;
                  });
}

TEST(TuneRun, ALaunchWithWrongOutputsIsNoWinnerAndIsNamed) {
  const TuneSpace space = search_space();
  const TuneOutcome outcome = tampered_tune(space, 3, [](SweepPoint& measured) {
    if (measured.block.x == 32) { // the fastest on paper, computing wrong outputs
      measured.result->timing->median_time = 1e-6;
      measured.result->verification->passed = false;
      measured.result->verification->mismatches = 1;
      measured.result->verification->first_failure = "c[0]: got 1, want 2";
    }
  });
  ASSERT_TRUE(outcome.best);
  EXPECT_NE(space.points[outcome.evaluations[*outcome.best].point].block.x, 32);
  const std::string text = tune_text(space, outcome, TuneStrategy::grid, TuneObjective::time, 3);
  EXPECT_NE(text.find("WRONG OUTPUT at block 32: c[0]: got 1, want 2"), std::string::npos) << text;
}

TEST(TuneRun, APointTheGpuRefusedOrDidNotTimeIsNamedWithWhy) {
  const TuneSpace space = search_space();
  const TuneOutcome outcome = tampered_tune(space, 3, [](SweepPoint& measured) {
    if (measured.block.x == 32) {
      measured.result.reset();
      measured.refused = "CUDA error: too many resources requested for launch";
    } else if (measured.block.x == 64) {
      measured.result->timing.reset();
    }
  });
  const std::string text = tune_text(space, outcome, TuneStrategy::grid, TuneObjective::time, 3);
  EXPECT_NE(text.find("no time at block 32: CUDA error: too many resources requested for launch"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("no time at block 64: it was not timed"), std::string::npos) << text;
}

// A tune whose every point failed still says why each did: the lines that matter most then.
TEST(TuneRun, ATuneWithEveryPointRefusedSaysWhyForEach) {
  const TuneSpace space = search_space();
  const TuneOutcome outcome = tampered_tune(space, 2, [](SweepPoint& measured) {
    measured.result.reset();
    measured.refused = "CUDA error: unspecified launch failure";
  });
  const std::string text = tune_text(space, outcome, TuneStrategy::grid, TuneObjective::time, 3);
  EXPECT_NE(text.find("No point was measured with a figure to rank by"), std::string::npos) << text;
  EXPECT_EQ(tune_uncosted_lines(space, outcome, TuneObjective::time).size(), 2u) << text;
  EXPECT_NE(text.find("no time at block 32: CUDA error: unspecified launch failure"),
            std::string::npos)
      << text;
  const nlohmann::json j = tune_json(space, outcome, TuneStrategy::grid, TuneObjective::time, 3);
  EXPECT_EQ(j["evaluations"][0]["why_no_cost"], "CUDA error: unspecified launch failure") << j;
}

TEST(TuneRun, ABudgetStopsTheTuneAndSaysSo) {
  const TuneSpace space = search_space();
  SearchGpu gpu;
  TuneSearch search(space, TuneStrategy::random, TuneObjective::time, 3);
  const TuneOutcome outcome = run_tune(space, search, TuneObjective::time, {.evaluations = 4},
                                       nullptr, [&](const SweepPoint& p) { return gpu(p); });
  EXPECT_EQ(outcome.evaluations.size(), 4u);
  EXPECT_EQ(outcome.stopped, "the budget of 4 evaluations was spent");
}

// Several measurers (a worker each): every point measured once, each measurer taking points as
// its last lands, the cache holding each once.
TEST(TuneRun, SeveralMeasurersShareTheSpaceAndMeasureNoPointTwice) {
  const TuneScratch scratch;
  const TuneSpace space = search_space();
  std::mutex guard;
  std::multiset<std::size_t> blocks;
  std::vector<int> taken(3, 0);
  std::vector<TuneMeasure> measures;
  for (int m = 0; m < 3; ++m)
    measures.push_back([&, m](const SweepPoint& p) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      const std::lock_guard lock(guard);
      ++taken[m];
      blocks.insert(static_cast<std::size_t>(p.block.x));
      SearchGpu gpu;
      return gpu(p);
    });
  std::optional<TuneCache> cache = TuneCache::open(scratch.dir / "cache.jsonl", search_identity());
  TuneSearch search(space, TuneStrategy::grid, TuneObjective::time, 1);
  const TuneOutcome outcome = run_tune(space, search, TuneObjective::time, {}, &*cache, measures);
  cache.reset(); // the tune's end lets the file go
  EXPECT_EQ(outcome.measured, space.valid());
  EXPECT_EQ(blocks.size(), space.valid());
  EXPECT_EQ(std::set<std::size_t>(blocks.begin(), blocks.end()).size(), space.valid());
  for (const int n : taken)
    EXPECT_GT(n, 0);
  ASSERT_TRUE(outcome.best);
  EXPECT_EQ(space.points[outcome.evaluations[*outcome.best].point].block.x, 512);
  EXPECT_EQ(TuneCache::open(scratch.dir / "cache.jsonl", search_identity()).points().size(),
            space.valid());
}

// A measurer whose worker stopped gives its point back: the others measure it and the rest; a
// budget holds over all of them.
TEST(TuneRun, AMeasurerThatStopsGivesItsPointToTheOthers) {
  const TuneSpace space = search_space();
  std::atomic<int> measured{0};
  const TuneMeasure good = [&](const SweepPoint& p) {
    ++measured;
    SearchGpu gpu;
    return gpu(p);
  };
  int stopping_calls = 0;
  const TuneMeasure stops = [&](const SweepPoint& p) {
    if (++stopping_calls > 2)
      throw TuneMeasurerStopped{"worker 2 (ssh gpu2 warplens worker) stopped: no GPU there"};
    SearchGpu gpu;
    return gpu(p);
  };
  TuneSearch search(space, TuneStrategy::random, TuneObjective::time, 5);
  const TuneOutcome outcome =
      run_tune(space, search, TuneObjective::time, {.evaluations = 20}, nullptr, {good, stops});
  EXPECT_EQ(outcome.evaluations.size(), 20u);
  EXPECT_EQ(outcome.measured, 20u);
  std::set<std::size_t> points;
  for (const TuneEvaluation& e : outcome.evaluations)
    points.insert(e.point);
  EXPECT_EQ(points.size(), 20u);
  EXPECT_EQ(outcome.stopped, "the budget of 20 evaluations was spent");
}

TEST(TuneRun, WhenEveryMeasurerStopsTheTuneSaysWhy) {
  const TuneSpace space = search_space();
  const TuneMeasure stops = [](const SweepPoint&) -> SweepPoint {
    throw TuneMeasurerStopped{"worker 1 (warplens worker) stopped: it could not start"};
  };
  TuneSearch search(space, TuneStrategy::grid, TuneObjective::time, 1);
  const TuneOutcome outcome =
      run_tune(space, search, TuneObjective::time, {}, nullptr, {stops, stops});
  EXPECT_TRUE(outcome.evaluations.empty());
  EXPECT_FALSE(outcome.best);
  EXPECT_TRUE(test::contains(outcome.stopped, "every measurer stopped before the end; worker 1 "
                                              "(warplens worker) stopped: it could not start"))
      << outcome.stopped;
}

TEST(TuneSearch, StrategiesAndObjectivesAreReadByNameAlone) {
  EXPECT_EQ(parse_tune_strategy("model"), TuneStrategy::model);
  EXPECT_FALSE(parse_tune_strategy("Model"));
  EXPECT_FALSE(parse_tune_strategy(""));
  EXPECT_EQ(parse_tune_objective("gflops_per_joule"), TuneObjective::gflops_per_joule);
  EXPECT_FALSE(parse_tune_objective("1e999"));
}

} // namespace
} // namespace wl
