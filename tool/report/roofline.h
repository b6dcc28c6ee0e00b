#pragma once
// The roofline of a GPU and where a launch sits under it: FP32 FLOP/s against arithmetic
// intensity (FLOP per DRAM byte), under the DRAM ceiling (bandwidth x intensity) and the FP32
// ceiling (the device's FP32 peak, model/arch). A launch's point is its FLOP count (the kernel's
// own count of its arithmetic) over its DRAM bytes, measured by the counters where the run has
// them and modelled otherwise, at the FLOP/s of its median time. Plain arithmetic: the Roofline
// panel draws it, a sidecar carries it, tests check it.

#include "model/arch.h"
#include "model/run_result.h"

#include <optional>
#include <string>

namespace wl {

struct RooflineCeilings {
  double dram_gbps = 0;   // GB/s: the slope of the memory roof
  double fp32_gflops = 0; // GFLOP/s: the flat roof; 0 where the arch has no documented FP32 rate
  // The intensity where the two roofs meet: below it a kernel is memory-bound at best.
  double ridge() const { return dram_gbps > 0 ? fp32_gflops / dram_gbps : 0; }
  // The roof over an intensity: the lower of the two ceilings there.
  double roof(double intensity) const;
};
RooflineCeilings roofline_ceilings(const Arch& arch);

struct RooflinePoint {
  double flops = 0;      // the kernel's count of its floating-point operations
  double dram_bytes = 0; // measured (dram_read_bytes + dram_write_bytes) or modelled
  bool bytes_measured = false;
  std::string bytes_source;       // "the DRAM counters", "the recorded DRAM counters", "the model"
  double modelled_dram_bytes = 0; // the model's count, beside a measured one
  double gflops = 0;              // at the median time; 0 without a timing
  bool timed = false;

  double intensity() const { return dram_bytes > 0 ? flops / dram_bytes : 0; }
};
// The launch's point; nullopt (with `why`) for a kernel that does no floating-point arithmetic or
// moves no DRAM byte, which have no place on the chart.
std::optional<RooflinePoint> roofline_point(const RunResult& result, std::string* why = nullptr);

// "12.2 % of the roof (compute-bound: 682.67 FLOP/byte is past the ridge at 20.00)": how far the
// point is from the roof over it, and which roof that is.
std::string roofline_verdict(const RooflinePoint& point, const RooflineCeilings& ceilings);

} // namespace wl
