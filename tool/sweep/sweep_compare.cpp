#include "sweep/sweep_compare.h"

#include "base/error.h"
#include "base/json_fields.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "model/block_text.h"
#include "model/kernel_request.h"
#include "registry.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace wl {

std::string_view verdict_word(Verdict verdict) {
  switch (verdict) {
  case Verdict::same:
    return "SAME";
  case Verdict::faster:
    return "FASTER";
  case Verdict::slower:
    return "SLOWER";
  case Verdict::unsure:
    break;
  }
  return "UNSURE";
}

namespace {

// A noise the rule can hold a difference against: measured over two samples or more.
std::optional<double> measured_noise(const TimingStats& t) {
  if (t.samples < 2 || !std::isfinite(t.noise) || t.noise < 0)
    return std::nullopt;
  return t.noise;
}

} // namespace

TimeComparison compare_times(const RunResult& a, const RunResult& b) {
  TimeComparison c;
  if (!a.timing || !b.timing || !(a.timing->median_time > 0) || !(b.timing->median_time > 0))
    return c;
  c.ratio = b.timing->median_time / a.timing->median_time;
  const std::optional<double> noise_a = measured_noise(*a.timing),
                              noise_b = measured_noise(*b.timing);
  if (!noise_a || !noise_b)
    return c;
  c.noise = std::min(*noise_a, *noise_b);
  const double difference = *c.ratio - 1; // (b - a) / a
  c.verdict = std::abs(difference) <= c.noise ? Verdict::same
              : difference < 0                ? Verdict::faster
                                              : Verdict::slower;
  return c;
}

EnergyComparison compare_energy(const RunResult& a, const RunResult& b) {
  EnergyComparison c;
  if (!a.energy || !b.energy || !a.energy->available || !b.energy->available ||
      !(a.energy->joules_per_launch() > 0))
    return c;
  c.ratio = b.energy->joules_per_launch() / a.energy->joules_per_launch();
  const double difference = *c.ratio - 1;
  c.verdict = std::abs(difference) <= kEnergySame ? Verdict::same
              : difference < 0                    ? Verdict::faster
                                                  : Verdict::slower;
  return c;
}

std::string_view energy_verdict_word(Verdict verdict) {
  switch (verdict) {
  case Verdict::same:
    return "SAME";
  case Verdict::faster:
    return "LESS";
  case Verdict::slower:
    return "MORE";
  case Verdict::unsure:
    break;
  }
  return "UNSURE";
}

const SweepPoint* point_at(const std::vector<SweepPoint>& points, const SweepPoint& place) {
  for (const SweepPoint& p : points) {
    if (p.block != place.block)
      continue;
    const bool same_params = std::all_of(p.params.begin(), p.params.end(), [&](const auto& param) {
      const auto other = place.params.find(param.first);
      return other == place.params.end() || other->second == param.second;
    });
    if (same_params)
      return &p;
  }
  return nullptr;
}

Params params_for_against(const KernelDesc& against, const Params& params,
                          const std::vector<std::string>& given) {
  for (const std::string& name : given)
    if (std::none_of(against.params.begin(), against.params.end(),
                     [&](const ParamSpec& spec) { return spec.name == name; }))
      throw UsageError(
          "against: " + against.id + " has no parameter '" + name +
          "' to sweep or set as the first kernel does; its parameters: " + param_names(against));
  Params shared;
  for (const ParamSpec& spec : against.params)
    if (const auto value = params.find(spec.name); value != params.end())
      shared[spec.name] = value->second;
  return shared;
}

nlohmann::json ab_sweep_file_json(const SweepSeries& a, const SweepSeries& b) {
  nlohmann::json file = sweep_file_json(a.kernel_id, a.points);
  file["against"] = sweep_file_json(b.kernel_id, b.points);
  return file;
}

namespace {

// `points` at the first sweep's places, one for one.
void check_same_places(const std::vector<SweepPoint>& points, const std::vector<SweepPoint>& first,
                       const std::string& at) {
  for (std::size_t i = 0; i < points.size(); ++i)
    if (!point_at(first, points[i]))
      throw UsageError(at + ": points[" + std::to_string(i) + "]: block " +
                       format_block(points[i].block) +
                       " is not a point of the first sweep; allowed the same points as it");
  if (points.size() != first.size())
    throw UsageError(at + ": points: " + std::to_string(points.size()) + " points against " +
                     std::to_string(first.size()) +
                     " in the first sweep; allowed the same points as it");
}

// A series inside a sweep file: itself a sweep file, at the first sweep's places.
SweepSeries read_series(const nlohmann::json& series, const std::vector<SweepPoint>& first,
                        const std::string& at) {
  if (!series.is_object())
    throw UsageError(at + ": " + describe(series) +
                     " is not a sweep; allowed an object with kernel, axes and points");
  const Fields fields(series, at);
  fields.only({"kernel", "axes", "points"}, "a series"); // no series of its own inside
  SweepSeries s{fields.text("kernel", false), sweep_file_points(series, at)};
  check_same_places(s.points, first, at);
  return s;
}

} // namespace

std::optional<SweepSeries> sweep_file_against(const nlohmann::json& file,
                                              const std::vector<SweepPoint>& a_points,
                                              const std::string& where) {
  if (!file.is_object() || !file.contains("against"))
    return std::nullopt;
  const std::string at = (where.empty() ? "sweep" : where) + ": against";
  SweepSeries b = read_series(file.at("against"), a_points, at);
  const std::string a_kernel = Fields(file, at).text_or("kernel", "");
  if (kernel_family(b.kernel_id) != kernel_family(a_kernel))
    throw UsageError(at + ": kernel '" + clip(b.kernel_id, 40) + "' is not a variant of " +
                     kernel_family(a_kernel) +
                     "; allowed another variant of the first kernel's family");
  return b;
}

std::string series_device(const std::vector<SweepPoint>& points) {
  for (const SweepPoint& p : points)
    if (p.result)
      return device_label(p.result->arch);
  return "";
}

nlohmann::json per_device_sweep_file_json(const std::vector<SweepSeries>& devices) {
  nlohmann::json file = sweep_file_json(devices.front().kernel_id, devices.front().points);
  if (devices.size() > 1) {
    file["per_device"] = nlohmann::json::array();
    for (std::size_t i = 1; i < devices.size(); ++i)
      file["per_device"].push_back(sweep_file_json(devices[i].kernel_id, devices[i].points));
  }
  return file;
}

std::vector<SweepSeries> sweep_file_devices(const nlohmann::json& file, const SweepSeries& first,
                                            const std::string& where) {
  std::vector<SweepSeries> devices;
  if (!file.is_object() || !file.contains("per_device"))
    return devices;
  const std::string at = (where.empty() ? "sweep" : where) + ": per_device";
  const Fields fields(file, where.empty() ? "sweep" : where);
  std::set<std::string> seen{series_device(first.points)};
  const nlohmann::json& list = fields.list("per_device", 64);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string here = at + "[" + std::to_string(i) + "]";
    SweepSeries series = read_series(list[i], first.points, here);
    if (series.kernel_id != first.kernel_id)
      throw UsageError(here + ": kernel '" + clip(series.kernel_id, 40) +
                       "' is not the first sweep's; allowed " + first.kernel_id +
                       ": a series per GPU of one kernel");
    // A series with no measured point (its GPU's workers all stopped) names no GPU to repeat.
    const std::string device = series_device(series.points);
    if (!device.empty() && !seen.insert(device).second)
      throw UsageError(here + ": a second series of " + device + "; allowed one series per GPU");
    devices.push_back(std::move(series));
  }
  return devices;
}

namespace {

std::vector<std::string> place_columns(const SweepSeries& a) {
  std::set<std::string> names;
  for (const SweepPoint& p : a.points)
    for (const auto& [name, value] : p.params)
      names.insert(name);
  return {names.begin(), names.end()};
}

std::string time_cells(const SweepPoint* p) {
  if (!p || !p->result || !p->result->timing)
    return ",";
  return format("%.6f,%.5f", p->result->timing->median_time, p->result->timing->noise);
}

// Each side's joules per launch, their ratio and the energy verdict; empty cells where a side
// measured no energy.
std::string energy_cells(const RunResult& a, const RunResult& b) {
  const auto joules = [](const RunResult& r) {
    return r.energy && r.energy->available ? format("%.9g", r.energy->joules_per_launch())
                                           : std::string();
  };
  const EnergyComparison c = compare_energy(a, b);
  return joules(a) + "," + joules(b) + "," + (c.ratio ? format("%.5f", *c.ratio) : "") + "," +
         (c.ratio ? std::string(energy_verdict_word(c.verdict)) : "");
}

// Why a place has no verdict: a side refused it, or has no time.
std::string missing_side(const SweepSeries& a, const SweepPoint& pa, const SweepSeries& b,
                         const SweepPoint* pb) {
  if (!pa.result)
    return a.kernel_id + " refused: " + pa.refused;
  if (!pb)
    return b.kernel_id + " has no such point";
  if (!pb->result)
    return b.kernel_id + " refused: " + pb->refused;
  return "";
}

} // namespace

std::string ab_sweep_csv(const SweepSeries& a, const SweepSeries& b) {
  const std::vector<std::string> params = place_columns(a);
  std::ostringstream csv;
  csv << "block_x,block_y,block_z";
  for (const std::string& name : params)
    csv << "," << name;
  csv << ",a_kernel,a_median_time,a_noise,b_kernel,b_median_time,b_noise,ratio_b_over_a,verdict,"
         "reason,a_energy_per_launch,b_energy_per_launch,energy_ratio_b_over_a,energy_verdict\n";
  for (const SweepPoint& pa : a.points) {
    const SweepPoint* pb = point_at(b.points, pa);
    csv << pa.block.x << "," << pa.block.y << "," << pa.block.z;
    for (const std::string& name : params)
      csv << "," << (pa.params.contains(name) ? std::to_string(pa.params.at(name)) : "");
    csv << "," << a.kernel_id << "," << time_cells(&pa) << "," << b.kernel_id << ","
        << time_cells(pb) << ",";
    const std::string missing = missing_side(a, pa, b, pb);
    if (!missing.empty()) {
      csv << ",," << csv_quoted(missing) << ",,,,\n";
      continue;
    }
    const TimeComparison c = compare_times(*pa.result, *pb->result);
    csv << (c.ratio ? format("%.5f", *c.ratio) : "") << "," << verdict_word(c.verdict) << ","
        << (c.verdict == Verdict::unsure ? "no measured noise on both sides" : "") << ","
        << energy_cells(*pa.result, *pb->result) << "\n";
  }
  return csv.str();
}

std::string energy_counts(const SweepSeries& a, const SweepSeries& b) {
  std::map<Verdict, int> counts;
  int compared = 0;
  for (const SweepPoint& pa : a.points)
    if (const SweepPoint* pb = point_at(b.points, pa); pa.result && pb && pb->result) {
      const Verdict v = compare_energy(*pa.result, *pb->result).verdict;
      compared += v == Verdict::unsure ? 0 : 1;
      ++counts[v];
    }
  if (compared == 0)
    return "";
  std::string text;
  for (Verdict v : {Verdict::faster, Verdict::same, Verdict::slower})
    text += (text.empty() ? "" : ", ") + std::string(energy_verdict_word(v)) +
            (text.empty() ? " energy at " + counted(counts[v], "point")
                          : " at " + std::to_string(counts[v]));
  return text;
}

std::string verdict_counts(const SweepSeries& a, const SweepSeries& b) {
  std::map<Verdict, int> counts;
  for (const SweepPoint& pa : a.points)
    if (const SweepPoint* pb = point_at(b.points, pa); pa.result && pb && pb->result)
      ++counts[compare_times(*pa.result, *pb->result).verdict];
  std::string text;
  for (Verdict v : {Verdict::faster, Verdict::same, Verdict::slower, Verdict::unsure})
    text += (text.empty() ? "" : ", ") + std::string(verdict_word(v)) + " at " +
            (text.empty() ? counted(counts[v], "point") : std::to_string(counts[v]));
  return text;
}

} // namespace wl
