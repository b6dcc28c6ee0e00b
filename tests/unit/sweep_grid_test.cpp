// A sweep's grid: parameter ranges read as `--param-range` takes them, the parameter sets in their
// order, the axes the points vary along, and the sweep file that carries them.

#include "base/error.h"
#include "hostile_support.h"
#include "kernel.h"
#include "sweep/sweep_file.h"

#include <nlohmann/json.hpp>

#ifdef WARPLENS_LINKS_ENGINE
#include "engine/sweep_run.h"
#endif

namespace wl {
namespace {

// A kernel as the grid sees it: a size, a parameter with a range, one with choices.
KernelDesc strided_kernel() {
  KernelDesc k;
  k.id = "lesson/strided";
  k.params = {ParamSpec{"n", "elements", 1024, 1, 1 << 20, {}, true},
              ParamSpec{"stride", "elements between lanes", 1, 1, 64, {}, false},
              ParamSpec{"width", "bytes per lane", 4, 4, 16, {4, 8, 16}, false}};
  return k;
}

const Params kDefaults = {{"n", 1024}, {"stride", 1}, {"width", 4}};

TEST(SweepGrid, AParameterRangeReadsAsTheCommandLineWritesIt) {
  const KernelDesc kernel = strided_kernel();
  EXPECT_EQ(parse_param_range(kernel, "stride=1:32:8", "--param-range").values,
            (std::vector<std::int64_t>{1, 9, 17, 25}));
  EXPECT_EQ(parse_param_range(kernel, "width=16,4", "--param-range").values,
            (std::vector<std::int64_t>{16, 4}));
  const ParamAxis one = parse_param_range(kernel, "n=4096", "--param-range");
  EXPECT_EQ(one.name, "n");
  EXPECT_EQ(one.values, std::vector<std::int64_t>{4096});
}

TEST(SweepGrid, ABadRangeNamesItsTextAndWhatIsAllowed) {
  const KernelDesc kernel = strided_kernel();
  test::expect_usage_error([&] { parse_param_range(kernel, "pad=0:4:1", "--param-range"); },
                           {"lesson/strided has no parameter 'pad'", "n, stride, width"});
  test::expect_usage_error([&] { parse_param_range(kernel, "stride=0:4:1", "--param-range"); },
                           {"'stride=0:4:1'", "start 0 is below 1"});
  test::expect_usage_error([&] { parse_param_range(kernel, "width=4:16:4", "--param-range"); },
                           {"width=12 is not allowed", "4, 8, 16"});
  test::expect_usage_error([&] { parse_param_range(kernel, "stride=1,1", "--param-range"); },
                           {"1 is listed twice"});
  test::expect_usage_error([&] { parse_param_range(kernel, "stride=1:64:1", "--param-range", 10); },
                           {"64 values", "at most 10 points"});
}

TEST(SweepGrid, ParameterSetsVaryTheFirstAxisFastestAndKeepTheRest) {
  const SweepGrid grid{{{32, 1, 1}, {64, 1, 1}},
                       {ParamAxis{"stride", {1, 2, 4}}, ParamAxis{"width", {4, 16}}}};
  EXPECT_EQ(grid.points(), 12u);
  const std::vector<Params> sets = param_sets(kDefaults, grid);
  ASSERT_EQ(sets.size(), 6u);
  EXPECT_EQ(sets[0], (Params{{"n", 1024}, {"stride", 1}, {"width", 4}}));
  EXPECT_EQ(sets[1], (Params{{"n", 1024}, {"stride", 2}, {"width", 4}}));
  EXPECT_EQ(sets[3], (Params{{"n", 1024}, {"stride", 1}, {"width", 16}}));
  EXPECT_EQ(param_sets(kDefaults, SweepGrid{{{32, 1, 1}}, {}}), std::vector<Params>{kDefaults});
}

TEST(SweepGrid, TooManyPointsAreRefusedBeforeAnyIsMade) {
  const std::vector<std::int64_t> many(1000, 1);
  const SweepGrid grid{{{32, 1, 1}, {64, 1, 1}},
                       {ParamAxis{"stride", many}, ParamAxis{"width", many}, ParamAxis{"n", many}}};
  test::expect_usage_error([&] { param_sets(kDefaults, grid); },
                           {"2000000000 points", "at most 4096"});
  test::expect_usage_error(
      [&] {
        param_sets(kDefaults,
                   SweepGrid{{{32, 1, 1}}, {ParamAxis{"stride", {1}}, ParamAxis{"stride", {2}}}});
      },
      {"stride is swept twice"});
  test::expect_usage_error(
      [&] {
        param_sets(kDefaults, SweepGrid{{{32, 1, 1}}, {ParamAxis{"pad", {1}}}});
      },
      {"'pad' is not one of the kernel's"});
}

std::vector<SweepPoint> refused_points(const SweepGrid& grid) {
  std::vector<SweepPoint> points;
  for (const Params& set : param_sets(kDefaults, grid))
    for (const BlockShape& block : grid.shapes)
      points.push_back({block, "refused for the test", std::nullopt, set});
  return points;
}

TEST(SweepGrid, TheAxesAreThoseThePointsVaryAlongBlockSidesFirst) {
  const std::vector<SweepPoint> points =
      refused_points(SweepGrid{{{32, 1, 1}, {32, 2, 1}}, {ParamAxis{"stride", {1, 8}}}});
  EXPECT_EQ(varying_axes(points), (std::vector<std::string>{"block.y", "stride"}));
  EXPECT_EQ(axis_value(points[3], "stride"), 8);
  EXPECT_EQ(axis_value(points[3], "block.y"), 2);
  EXPECT_TRUE(varying_axes(refused_points(SweepGrid{{{32, 1, 1}}, {}})).empty());
}

TEST(SweepGrid, ASweepFileCarriesItsAxesAndReadsBackWithTheParameters) {
  const std::vector<SweepPoint> points =
      refused_points(SweepGrid{{{128, 1, 1}}, {ParamAxis{"stride", {1, 2, 4}}}});
  const nlohmann::json file = sweep_file_json("coalescing/stride", points);
  EXPECT_EQ(file["kernel"], "coalescing/stride");
  ASSERT_EQ(file["axes"].size(), 1u);
  EXPECT_EQ(file["axes"][0]["name"], "stride");
  EXPECT_EQ(file["axes"][0]["values"], nlohmann::json({1, 2, 4}));
  const std::vector<SweepPoint> back = sweep_file_points(file, "f.json");
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[2].params.at("stride"), 4);
  EXPECT_EQ(back[2].refused, "refused for the test");
  // A file from before the axes: the bare list of points.
  EXPECT_EQ(sweep_file_points(file["points"], "old.json").size(), 3u);
  test::expect_usage_error(
      [&] {
        sweep_file_points(nlohmann::json{{"kernel", "coalescing/stride"}}, "f.json");
      },
      {"f.json", "points"});
  test::expect_usage_error(
      [&] {
        sweep_file_points(nlohmann::json{{"kernel", "no/such"}}, "f.json");
      },
      {"f.json", "kernel", "'no/such' is not a bundled kernel"});
  nlohmann::json twice = file;
  twice["points"].push_back(twice["points"][0]);
  test::expect_usage_error([&] { sweep_file_points(twice, "f.json"); },
                           {"points[3]", "the same launch"});
  nlohmann::json foreign = file;
  foreign["points"][1]["params"]["pad"] = 3;
  test::expect_usage_error([&] { sweep_file_points(foreign, "f.json"); },
                           {"points[1]", "coalescing/stride has no parameter 'pad'"});
  nlohmann::json axes = file;
  axes["axes"] = nlohmann::json::array({{{"name", "pad"}, {"values", {1}}}});
  test::expect_usage_error([&] { sweep_file_points(axes, "f.json"); },
                           {"axes", "allowed the points' own: stride"});
  axes["axes"] = "garbage";
  test::expect_usage_error([&] { sweep_file_points(axes, "f.json"); }, {"axes"});
}

TEST(SweepGrid, TheCsvHasAColumnPerParameter) {
  const std::string csv =
      sweep_csv(refused_points(SweepGrid{{{128, 1, 1}}, {ParamAxis{"stride", {1, 32}}}}));
  EXPECT_EQ(csv.rfind("block_x,block_y,block_z,n,stride,width,status,reason,", 0), 0u) << csv;
  EXPECT_NE(csv.find("\n128,1,1,1024,32,4,refused,"), std::string::npos) << csv;
}

#ifdef WARPLENS_LINKS_ENGINE
TEST(SweepCosts, TheCountersAreAccountedPhaseByPhaseEachPassOnItsOwn) {
  CounterCosts costs;
  costs.open = 0.2;
  costs.configure = 0.03;
  costs.configs_built = 8;
  costs.session = 0.005;
  costs.passes = {0.241, 0.05};
  costs.flushes = 0.008;
  costs.decode = 0.001;
  EXPECT_EQ(counter_cost_summary(costs),
            "counters: CUPTI opened in 0.20 s, 8 config images in 0.03 s, sessions set up in "
            "0.005 s, 2 passes in 0.291 s (0.241, 0.050; L2 flushes 0.008 s of them), decoded in "
            "0.001 s");
  costs.passes = {0.05};
  costs.configs_built = 1;
  EXPECT_NE(counter_cost_summary(costs).find("1 config image in"), std::string::npos);
  EXPECT_NE(counter_cost_summary(costs).find("1 pass in 0.050 s (0.050;"), std::string::npos);
}
#endif

} // namespace
} // namespace wl
