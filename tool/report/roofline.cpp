#include "report/roofline.h"

#include "base/text_format.h"
#include "report/figures.h"

#include <algorithm>

namespace wl {

double RooflineCeilings::roof(double intensity) const {
  const double memory = dram_gbps * intensity;
  return fp32_gflops > 0 ? std::min(memory, fp32_gflops) : memory;
}

RooflineCeilings roofline_ceilings(const Arch& arch) {
  return {arch.dram_bandwidth_gbps, arch.fp32_peak_gflops()};
}

namespace {

// The run's DRAM traffic as its counters measured it, where they hold both directions.
std::optional<double> measured_dram_bytes(const RunResult& result) {
  if (!result.counters || !result.counters->available)
    return std::nullopt;
  const CounterValue* read = result.counters->find("dram_read_bytes");
  const CounterValue* written = result.counters->find("dram_write_bytes");
  if (!read || !written)
    return std::nullopt;
  return read->value + written->value;
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
                                     "it is judged by its share of DRAM peak alone");
  RooflinePoint point;
  point.flops = result.flops;
  if (const Figure* modelled = find_figure("dram_bytes"))
    point.modelled_dram_bytes = figure_value(*modelled, result).value_or(0);
  if (const std::optional<double> measured = measured_dram_bytes(result);
      measured && *measured > 0) {
    point.dram_bytes = *measured;
    point.bytes_measured = true;
    point.bytes_source =
        result.recorded_on.empty() ? "the DRAM counters" : "the recorded DRAM counters";
  } else {
    point.dram_bytes = point.modelled_dram_bytes;
    point.bytes_source = "the model";
  }
  if (point.dram_bytes <= 0)
    return refuse(result.kernel_id + " moves no DRAM byte the model or the counters see");
  point.timed = result.timing.has_value();
  point.gflops = result.gflops();
  return point;
}

std::string roofline_verdict(const RooflinePoint& point, const RooflineCeilings& ceilings) {
  const double ridge = ceilings.ridge();
  const bool compute_bound = ceilings.fp32_gflops > 0 && point.intensity() >= ridge;
  const std::string where =
      ceilings.fp32_gflops <= 0
          ? "under the DRAM roof (this arch has no documented FP32 rate)"
          : format("%s: %.2f FLOP/byte is %s the ridge at %.2f",
                   compute_bound ? "compute-bound" : "memory-bound", point.intensity(),
                   compute_bound ? "past" : "below", ridge);
  if (!point.timed)
    return "not timed: the roof over it is " + format_number(ceilings.roof(point.intensity()), 0) +
           " GFLOP/s (" + where + ")";
  return format("%.1f %% of the roof over it (%s)",
                100 * point.gflops / ceilings.roof(point.intensity()), where.c_str());
}

} // namespace wl
