#pragma once
// Sweeps side by side over the same points. A/B: a second kernel over the first's points
// (transpose/smem against transpose/smem_padded, matmul/naive against matmul/tiled), each point's
// times compared with the rule of nvbench's compare script, so a difference inside the timing
// noise is never called a speed-up. Per device: one kernel's sweep on each GPU.

#include "sweep/sweep_file.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace wl {

// What the second kernel's time is at one point, against the first's.
enum class Verdict { same, faster, slower, unsure };
std::string_view verdict_word(Verdict verdict); // "SAME", "FASTER", "SLOWER", "UNSURE"

struct TimeComparison {
  std::optional<double> ratio; // the second's median time over the first's; none without both
  Verdict verdict = Verdict::unsure;
  double noise = 0; // the relative noise the difference was held against
};

// nvbench's rule, on medians: SAME when |b - a| / a is within the smaller of the two measured
// noises, else FASTER or SLOWER; UNSURE when either has no time or no measured noise (a model
// point, a single sample).
TimeComparison compare_times(const RunResult& a, const RunResult& b);

// What the second kernel's energy per launch is at one point, against the first's: SAME within
// kEnergySame (an energy batch is one measurement, with no noise of its own; on the H200 three
// batches of a kernel repeat within a few percent), else LESS or MORE; UNSURE without both.
inline constexpr double kEnergySame = 0.05;
struct EnergyComparison {
  std::optional<double> ratio; // the second's joules per launch over the first's
  Verdict verdict = Verdict::unsure;
};
EnergyComparison compare_energy(const RunResult& a, const RunResult& b);
std::string_view energy_verdict_word(Verdict verdict); // "SAME", "LESS", "MORE", "UNSURE"

// One sweep of one kernel.
struct SweepSeries {
  std::string kernel_id;
  std::vector<SweepPoint> points;
};

// The point of `points` at the same place as `place`: the same block and the same value of every
// parameter both have (the two kernels may each have parameters the other lacks). Null if none.
const SweepPoint* point_at(const std::vector<SweepPoint>& points, const SweepPoint& place);

// The parameters of the first kernel's request the second can take: those it has, unchanged. The
// second must have every parameter a sweep axis or `given` names; throws UsageError naming the
// one it lacks.
Params params_for_against(const KernelDesc& against, const Params& params,
                          const std::vector<std::string>& given);

// An A/B sweep file: the first kernel's sweep file (sweep_file_json) with the second's under
// "against". Reading the "against" of a file: none when it has none; throws UsageError when its
// kernel is not bundled or its points are not at the first's places, one for one.
nlohmann::json ab_sweep_file_json(const SweepSeries& a, const SweepSeries& b);
std::optional<SweepSeries> sweep_file_against(const nlohmann::json& file,
                                              const std::vector<SweepPoint>& a_points,
                                              const std::string& where);

// A per-device sweep file: the first GPU's sweep file with the others' under "per_device", each a
// sweep file of the same kernel over the same points. Reading: the other GPUs' series (none for a
// file without them); throws UsageError when one names another kernel, sits at other places, mixes
// GPUs, or repeats a GPU.
nlohmann::json per_device_sweep_file_json(const std::vector<SweepSeries>& devices);
std::vector<SweepSeries> sweep_file_devices(const nlohmann::json& file, const SweepSeries& first,
                                            const std::string& where);
// The GPU a series was measured on, as device_label names it ("" when no point ran).
std::string series_device(const std::vector<SweepPoint>& points);

// One row per place: the shape, the parameters, each kernel's median and noise, the ratio and
// the verdict (or why a side did not run).
std::string ab_sweep_csv(const SweepSeries& a, const SweepSeries& b);

// "FASTER at 5 points, SAME at 1, SLOWER at 0, UNSURE at 0": the verdicts counted over the places
// where both ran.
std::string verdict_counts(const SweepSeries& a, const SweepSeries& b);
// "LESS energy at 5 points, SAME at 1, MORE at 0": the energy verdicts over the places where both
// measured their energy; "" where none did.
std::string energy_counts(const SweepSeries& a, const SweepSeries& b);

} // namespace wl
