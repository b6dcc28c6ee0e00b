#pragma once
// The roofline of a GPU and where a launch sits under it: FP32 FLOP/s against arithmetic
// intensity, under three roofs: DRAM (its bandwidth x FLOP per DRAM byte), L2 (what L2 serves the
// SMs x FLOP per byte L1 moved to and from L2) and the device's FP32 peak (model/arch). A launch
// has a point on each memory level, at the same height: the FLOP/s of its median time. Its FLOP
// count is the kernel's own count of its arithmetic, with the FP32 counters' count beside it
// where the run has them; its bytes are measured by the counters where the run has them and
// modelled otherwise. Plain arithmetic: the Roofline panel draws it, a sidecar carries it, tests
// check it.

#include "model/arch.h"
#include "model/run_result.h"

#include <optional>
#include <string>

namespace wl {

struct RooflinePoint;

struct RooflineCeilings {
  double dram_gbps = 0;   // GB/s: the slope of the DRAM roof
  double l2_gbps = 0;     // GB/s: the slope of the L2 roof; 0 where the arch has no known figure
  double fp32_gflops = 0; // GFLOP/s: the flat roof; 0 where the arch has no documented FP32 rate
  // The DRAM intensity where the DRAM and FP32 roofs meet: below it a kernel is memory-bound at
  // best.
  double ridge() const { return dram_gbps > 0 ? fp32_gflops / dram_gbps : 0; }
  double l2_ridge() const { return l2_gbps > 0 ? fp32_gflops / l2_gbps : 0; }
  // The DRAM and FP32 roofs over a DRAM intensity: the lower of the two there.
  double roof(double intensity) const;
  // The lowest roof over a launch: its DRAM point's, its L2 point's (where both are known) and
  // the FP32 peak.
  double roof_over(const RooflinePoint& point) const;
  // "DRAM", "L2" or "FP32": the roof roof_over found lowest.
  std::string bound_by(const RooflinePoint& point) const;
};
RooflineCeilings roofline_ceilings(const Arch& arch);

struct RooflinePoint {
  double flops = 0; // the kernel's count of its floating-point operations
  // FADD + FMUL + 2 x FFMA thread instructions, where the run counted them.
  std::optional<double> measured_flops;
  double dram_bytes = 0; // measured (dram_read_bytes + dram_write_bytes) or modelled
  bool bytes_measured = false;
  std::string bytes_source;       // "the DRAM counters", "the recorded DRAM counters", "the model"
  double modelled_dram_bytes = 0; // the model's count, beside a measured one
  double l2_bytes = 0;            // L1 to and from L2, measured or modelled; 0 where neither
  bool l2_measured = false;
  std::string l2_note;          // why a modelled figure is what it is, where it is a floor
  double modelled_l2_bytes = 0; // the model's count, beside a measured one
  double gflops = 0;            // at the median time; 0 without a timing
  bool timed = false;
  // At the modelled time at peak (modelled_time): where the model puts an untimed launch, on its
  // DRAM roof when DRAM bounds it, under it when shared memory does; 0 where nothing is modelled.
  double modelled_gflops = 0;
  bool tensor_cores = false; // its multiply-adds run on the tensor cores: no FP32 roof over it

  double intensity() const { return dram_bytes > 0 ? flops / dram_bytes : 0; }
  double l2_intensity() const { return l2_bytes > 0 ? flops / l2_bytes : 0; }
};
// The launch's point; nullopt (with `why`) for a kernel that does no floating-point arithmetic or
// moves no DRAM byte, which have no place on the chart.
std::optional<RooflinePoint> roofline_point(const RunResult& result, std::string* why = nullptr);

// "12.2 % of the roof over it (compute-bound: 682.67 FLOP/byte is past the ridge at 20.00)": how
// far the point is from the lowest roof over it, and which roof that is.
std::string roofline_verdict(const RooflinePoint& point, const RooflineCeilings& ceilings);

} // namespace wl
