// A/B sweeps: nvbench's verdict rule on two timings, points matched by place, the second kernel's
// parameters, and the A/B sweep file and CSV.

#include "base/error.h"
#include "hostile_support.h"
#include "model/kernel_request.h"
#include "model/model_kernel.h"
#include "registry.h"
#include "sweep/sweep_compare.h"

#include <nlohmann/json.hpp>

namespace wl {
namespace {

RunResult timed(double median_ms, double noise, int samples = 20) {
  RunResult r;
  r.timing = TimingStats{};
  r.timing->median_time = median_ms;
  r.timing->noise = noise;
  r.timing->samples = samples;
  return r;
}

TEST(SweepCompare, TheVerdictHoldsTheDifferenceAgainstTheSmallerNoise) {
  const RunResult a = timed(1.0, 0.05);
  // 3 % faster, beyond the smaller noise (2 %) though within the larger (5 %): FASTER.
  TimeComparison c = compare_times(a, timed(0.97, 0.02));
  EXPECT_EQ(c.verdict, Verdict::faster);
  EXPECT_DOUBLE_EQ(*c.ratio, 0.97);
  EXPECT_DOUBLE_EQ(c.noise, 0.02);
  EXPECT_EQ(compare_times(a, timed(0.99, 0.02)).verdict, Verdict::same);
  EXPECT_EQ(compare_times(a, timed(1.019, 0.02)).verdict, Verdict::same);
  EXPECT_EQ(compare_times(a, timed(1.10, 0.02)).verdict, Verdict::slower);
  EXPECT_EQ(verdict_word(Verdict::slower), "SLOWER");
}

TEST(SweepCompare, WithoutATimeOrAMeasuredNoiseTheVerdictIsUnsure) {
  const RunResult a = timed(1.0, 0.01);
  const TimeComparison one_sample = compare_times(a, timed(0.5, 0.0, 1));
  EXPECT_EQ(one_sample.verdict, Verdict::unsure);
  EXPECT_DOUBLE_EQ(*one_sample.ratio, 0.5); // the ratio is still the medians'
  const TimeComparison modelled = compare_times(a, RunResult{});
  EXPECT_EQ(modelled.verdict, Verdict::unsure);
  EXPECT_FALSE(modelled.ratio);
  EXPECT_EQ(compare_times(a, timed(1.0, std::nan(""))).verdict, Verdict::unsure);
}

std::vector<SweepPoint> refused_grid(const std::string& why, std::int64_t rows) {
  std::vector<SweepPoint> points;
  for (int y : {1, 2, 4})
    points.push_back({BlockShape{32, y, 1}, why, std::nullopt, {{"rows", rows}, {"cols", 8192}}});
  return points;
}

TEST(SweepCompare, PointsMatchByBlockAndTheParametersBothKernelsHave) {
  const std::vector<SweepPoint> b = refused_grid("b", 4096);
  const SweepPoint place{BlockShape{32, 2, 1},
                         "",
                         std::nullopt,
                         {{"rows", 4096}, {"cols", 8192}, {"pad", 1}}}; // pad: A's alone
  ASSERT_NE(point_at(b, place), nullptr);
  EXPECT_EQ(point_at(b, place)->block.y, 2);
  EXPECT_EQ(point_at(b, SweepPoint{BlockShape{32, 8, 1}, "", std::nullopt, {}}), nullptr);
  EXPECT_EQ(point_at(b, SweepPoint{BlockShape{32, 2, 1}, "", std::nullopt, {{"rows", 1}}}),
            nullptr);
}

TEST(SweepCompare, TheSecondKernelTakesTheParametersItHasAndMustHaveTheSweptOnes) {
  const KernelDesc* padded = find_kernel("transpose/smem_padded");
  ASSERT_NE(padded, nullptr);
  const Params shared =
      params_for_against(*padded, {{"rows", 1024}, {"cols", 2048}, {"stride", 4}}, {"rows"});
  EXPECT_EQ(shared, (Params{{"rows", 1024}, {"cols", 2048}}));
  test::expect_usage_error([&] { params_for_against(*padded, {}, {"stride"}); },
                           {"transpose/smem_padded has no parameter 'stride'", "rows, cols"});
}

TEST(SweepCompare, AnABFileCarriesTheSecondSweepAndReadsItBackAtTheSamePlaces) {
  const SweepSeries a{"transpose/smem", refused_grid("a refused", 4096)};
  const SweepSeries b{"transpose/smem_padded", refused_grid("b refused", 4096)};
  const nlohmann::json file = ab_sweep_file_json(a, b);
  EXPECT_EQ(file["kernel"], "transpose/smem");
  EXPECT_EQ(file["against"]["kernel"], "transpose/smem_padded");
  const std::vector<SweepPoint> a_back = sweep_file_points(file, "ab.json");
  const std::optional<SweepSeries> b_back = sweep_file_against(file, a_back, "ab.json");
  ASSERT_TRUE(b_back);
  EXPECT_EQ(b_back->kernel_id, "transpose/smem_padded");
  ASSERT_EQ(b_back->points.size(), 3u);
  EXPECT_EQ(b_back->points[2].refused, "b refused");
  EXPECT_FALSE(sweep_file_against(file["points"], a_back, "old.json")); // no B: a plain sweep

  nlohmann::json elsewhere = file; // B measured at other places than A
  elsewhere["against"] = sweep_file_json(b.kernel_id, refused_grid("b", 2048));
  test::expect_usage_error([&] { sweep_file_against(elsewhere, a_back, "ab.json"); },
                           {"ab.json: against: points[0]", "not a point of the first sweep"});
  nlohmann::json fewer = file;
  fewer["against"]["points"].erase(2);
  fewer["against"]["axes"][0]["values"] = {1, 2};
  test::expect_usage_error([&] { sweep_file_against(fewer, a_back, "ab.json"); },
                           {"2 points against 3"});
  nlohmann::json foreign = file;
  foreign["against"]["kernel"] = "no/such";
  test::expect_usage_error([&] { sweep_file_against(foreign, a_back, "ab.json"); },
                           {"against", "'no/such' is not a bundled kernel"});
  nlohmann::json garbage = file;
  garbage["against"] = nlohmann::json::array({1, 2});
  test::expect_usage_error([&] { sweep_file_against(garbage, a_back, "ab.json"); },
                           {"ab.json: against", "is not a sweep"});
}

TEST(SweepCompare, TheCsvHasBothTimesTheRatioAndTheVerdictOrWhyNot) {
  SweepSeries a{"transpose/smem", refused_grid("too wide", 4096)};
  SweepSeries b{"transpose/smem_padded", refused_grid("b refused", 4096)};
  a.points[0].result = timed(2.0, 0.01);
  a.points[0].refused.clear();
  b.points[0].result = timed(1.0, 0.02);
  b.points[0].refused.clear();
  const std::string csv = ab_sweep_csv(a, b);
  EXPECT_EQ(
      csv.rfind("block_x,block_y,block_z,cols,rows,a_kernel,a_median_time,a_noise,b_kernel,", 0),
      0u)
      << csv;
  EXPECT_NE(csv.find("\n32,1,1,8192,4096,transpose/smem,2.000000,0.01000,transpose/smem_padded,"
                     "1.000000,0.02000,0.50000,FASTER,,,,,\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\"transpose/smem refused: too wide\""), std::string::npos) << csv;
  EXPECT_EQ(verdict_counts(a, b), "FASTER at 1 point, SAME at 0, SLOWER at 0, UNSURE at 0");
  EXPECT_EQ(energy_counts(a, b), "") << "no energy measured: nothing to say";
}

// Where both sides measured their energy, the CSV has each side's joules per launch, the ratio and
// which used less; within 5 % is the same.
TEST(SweepCompare, EachSidesEnergyIsComparedWhereBothMeasuredIt) {
  SweepSeries a{"transpose/smem", refused_grid("too wide", 4096)};
  SweepSeries b{"transpose/smem_padded", refused_grid("b refused", 4096)};
  const auto with_energy = [](double ms, double joules) {
    RunResult r = timed(ms, 0.01);
    r.energy = EnergyStats{};
    r.energy->available = true;
    r.energy->launches = 100;
    r.energy->batch_ms = 1000; // a second busy at `joules` W: `joules` per 100 launches
    r.energy->window_joules = joules * 0.3;
    r.energy->window_seconds = 0.3;
    return r;
  };
  for (int i : {0, 1}) {
    a.points[i].refused.clear();
    b.points[i].refused.clear();
  }
  a.points[0].result = with_energy(2.0, 4.0);
  b.points[0].result = with_energy(1.0, 2.0);
  a.points[1].result = with_energy(2.0, 4.0);
  b.points[1].result = with_energy(2.0, 4.1);
  const std::string csv = ab_sweep_csv(a, b);
  EXPECT_NE(csv.find(",FASTER,,0.04,0.02,0.50000,LESS\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",0.04,0.041,1.02500,SAME\n"), std::string::npos) << csv;
  EXPECT_EQ(energy_counts(a, b), "LESS energy at 1 point, SAME at 1, MORE at 0");
  EXPECT_EQ(compare_energy(*a.points[0].result, *b.points[0].result).verdict, Verdict::faster);
}

// vec_add/scalar at two blocks through the models on a preset: points of one kind of GPU.
SweepSeries modelled_on(const std::string& arch_id) {
  const KernelRequest base = resolve_kernel_request("vec_add/scalar", {}, "", "");
  SweepSeries series{"vec_add/scalar", {}};
  for (int x : {128, 256}) {
    const KernelRequest request{base.kernel, base.params, BlockShape{x, 1, 1}};
    series.points.push_back({request.block, "",
                             model_kernel(request, test::preset(arch_id), ModelBudget{100}),
                             base.params});
  }
  return series;
}

TEST(SweepCompare, APerDeviceFileCarriesASeriesPerGpu) {
  const SweepSeries h100 = modelled_on("h100"), a100 = modelled_on("a100");
  const nlohmann::json file = per_device_sweep_file_json({h100, a100});
  ASSERT_EQ(file["per_device"].size(), 1u);
  const std::vector<SweepSeries> back = sweep_file_devices(
      file, SweepSeries{"vec_add/scalar", sweep_file_points(file, "d.json")}, "d.json");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(series_device(back[0].points), "NVIDIA A100 SXM4 80GB");
  EXPECT_EQ(series_device(h100.points), "NVIDIA H100 SXM5 80GB HBM3");
  EXPECT_TRUE(sweep_file_devices(sweep_file_json("vec_add/scalar", h100.points), h100, "").empty());

  // Two boards of one kind are two GPUs: their UUIDs tell them apart.
  SweepSeries other_board = a100;
  for (SweepPoint& p : other_board.points)
    p.result->arch.uuid = "GPU-00112233-4455-6677-8899-aabbccddeeff";
  EXPECT_EQ(series_device(other_board.points), "NVIDIA A100 SXM4 80GB (GPU-00112233)");
  EXPECT_EQ(
      sweep_file_devices(per_device_sweep_file_json({h100, a100, other_board}), h100, "d.json")
          .size(),
      2u);
  const nlohmann::json twice = per_device_sweep_file_json({h100, a100, a100});
  test::expect_usage_error([&] { sweep_file_devices(twice, h100, "d.json"); },
                           {"d.json: per_device[1]", "a second series of NVIDIA A100 SXM4 80GB"});
  SweepSeries mixed = a100;
  mixed.points[1] = h100.points[1];
  test::expect_usage_error(
      [&] {
        sweep_file_devices(per_device_sweep_file_json({h100, mixed}), h100, "d.json");
      },
      {"per_device[0]: points[1]: measured on NVIDIA H100 SXM5 80GB HBM3", "one GPU per sweep"});
  SweepSeries fewer = a100;
  fewer.points.pop_back();
  test::expect_usage_error(
      [&] {
        sweep_file_devices(per_device_sweep_file_json({h100, fewer}), h100, "d.json");
      },
      {"per_device[0]", "1 points against 2"});
  nlohmann::json garbage = file;
  garbage["per_device"] = "x";
  test::expect_usage_error([&] { sweep_file_devices(garbage, h100, "d.json"); }, {"per_device"});
}

} // namespace
} // namespace wl
