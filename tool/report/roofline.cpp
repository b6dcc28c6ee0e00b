#include "report/roofline.h"

#include "base/text_format.h"
#include "report/figures.h"

#include <algorithm>

namespace wl {

double RooflineCeilings::roof(double intensity) const {
  const double memory = dram_gbps * intensity;
  return fp32_gflops > 0 ? std::min(memory, fp32_gflops) : memory;
}

namespace {

struct Roof {
  const char* name;
  double gflops;
};

// Each roof that applies to the point: DRAM always, L2 where both its figures are known, FP32
// where the arch has a documented rate.
std::vector<Roof> roofs_over(const RooflineCeilings& c, const RooflinePoint& p) {
  std::vector<Roof> roofs{{"DRAM", c.dram_gbps * p.intensity()}};
  if (c.l2_gbps > 0 && p.l2_bytes > 0)
    roofs.push_back({"L2", c.l2_gbps * p.l2_intensity()});
  if (c.fp32_gflops > 0 && !p.tensor_cores)
    roofs.push_back({"FP32", c.fp32_gflops});
  return roofs;
}

Roof lowest_roof(const RooflineCeilings& c, const RooflinePoint& p) {
  const std::vector<Roof> roofs = roofs_over(c, p);
  return *std::min_element(roofs.begin(), roofs.end(),
                           [](const Roof& a, const Roof& b) { return a.gflops < b.gflops; });
}

} // namespace

double RooflineCeilings::roof_over(const RooflinePoint& point) const {
  return lowest_roof(*this, point).gflops;
}

std::string RooflineCeilings::bound_by(const RooflinePoint& point) const {
  return lowest_roof(*this, point).name;
}

RooflineCeilings roofline_ceilings(const Arch& arch) {
  return {arch.dram_bandwidth_gbps, arch.l2_bandwidth_gbps, arch.fp32_peak_gflops()};
}

namespace {

// A figure of the roofline's table (figures.cpp) read from a result: the measured value where
// the run has one, else the model's.
struct Reading {
  double value = 0;
  bool measured = false;
};
Reading read_figure(const char* key, const RunResult& result) {
  const Figure& f = figure(key);
  if (const std::optional<double> measured = f.measured(result))
    return {*measured, true};
  return {f.predicted(result).value_or(0), false};
}

} // namespace

std::optional<RooflinePoint> roofline_point(const RunResult& result, std::string* why) {
  const auto refuse = [&](const std::string& reason) {
    if (why)
      *why = reason;
    return std::nullopt;
  };
  if (result.flops <= 0)
    return refuse(result.kernel_id + " does no floating-point arithmetic the roofline counts: "
                                     "it is judged by its share of DRAM peak alone.");
  RooflinePoint point;
  point.flops = result.flops;
  point.measured_flops = figure("fp32_operations").measured(result);
  point.modelled_dram_bytes = figure("dram_bytes").predicted(result).value_or(0);
  const DramBytes dram = dram_bytes_of(result);
  point.bytes_measured = dram.measured;
  point.dram_bytes = dram.bytes;
  point.bytes_source = dram.source;
  if (point.dram_bytes <= 0)
    return refuse(result.kernel_id + " moves no DRAM byte the model or the counters see");
  const Reading l2 = read_figure("l2_traffic", result);
  point.l2_bytes = l2.value;
  point.l2_measured = l2.measured;
  point.l2_note = figure("l2_traffic").note(result);
  point.modelled_l2_bytes = figure("l2_traffic").predicted(result).value_or(0);
  point.timed = result.timing.has_value();
  point.gflops = result.gflops();
  if (const std::optional<ModelledTime> t = modelled_time(result); t && t->ms() > 0)
    point.modelled_gflops = result.flops / (t->ms() * 1e6);
  point.tensor_cores = runs_on_tensor_cores(result);
  return point;
}

std::string roofline_verdict(const RooflinePoint& point, const RooflineCeilings& ceilings) {
  const std::string bound = ceilings.bound_by(point);
  const std::string dram_intensity = format_number(point.intensity(), 2) + " FLOP per DRAM byte";
  const std::string ridge = format_number(ceilings.ridge(), 2);
  const std::string where =
      bound == "FP32" ? "compute-bound: " + dram_intensity + " is past the ridge at " + ridge
      : bound == "L2"
          ? "L2-bound: " + format_number(point.l2_intensity(), 2) +
                " FLOP per byte L1 moved to and from L2, at " + format_number(ceilings.l2_gbps, 0) +
                " GB/s, sets a lower roof than DRAM's"
      : point.tensor_cores || ceilings.fp32_gflops <= 0
          ? "under the DRAM roof at " + dram_intensity
          : "memory-bound: " + dram_intensity + " is below the ridge at " + ridge;
  const std::string no_compute_roof =
      point.tensor_cores ? "; its multiply-adds run on the tensor cores, whose peak WarpLens does "
                           "not model, so only the memory roofs are drawn over it"
      : ceilings.fp32_gflops <= 0 ? "; this arch has no documented FP32 rate"
                                  : "";
  const double roof = ceilings.roof_over(point);
  if (!point.timed)
    return "not timed: the roof over it is " + format_number(roof, 0) + " GFLOP/s (" + where +
           no_compute_roof + ")";
  return format("%.1f %% of the roof over it (%s%s)", 100 * point.gflops / roof, where.c_str(),
                no_compute_roof.c_str());
}

} // namespace wl
