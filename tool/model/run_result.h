#pragma once
// What a `model` or `run` of one kernel produced: plain values, built once, printed as text, JSON
// or CSV and, later, drawn by the GUI. A model fills the attributes from the build's ptxas
// report, the occupancy and the prediction; a run adds the device's own figures, the timing and
// the verification.

#include "kernel.h"
#include "model/arch.h"
#include "model/energy.h"
#include "model/launch_model.h"
#include "model/occupancy.h"
#include "model/site_counts.h"
#include "model/stall_samples.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wl {

struct KernelAttributes {
  std::string source; // "cudaFuncGetAttributes" or "ptxas, sm_90, at build time"
  int registers = 0;  // per thread
  std::int64_t static_shared_bytes = 0;
  std::int64_t local_bytes = 0;            // per thread: spills and stack
  int max_threads_per_block = 0;           // 0 when unknown
  int ptx_version = 0, binary_version = 0; // 90 for 9.0; 0 when unknown
};

struct TimingStats {
  int samples = 0;
  double median_time = 0, min_time = 0, max_time = 0, mean_time = 0;
  double noise = 0;       // relative standard deviation of the samples
  bool converged = false; // noise fell under the target before the time budget ran out
  bool l2_flushed = true; // each sample started with a cold L2
  double seconds = 0;     // wall time spent timing, warm-up included
  // The SM clock NVML read with the samples kept (their median), and the device's default clock;
  // nullopt and 0 where unknown. Samples under 75 % of the default were throttled: left out of
  // the figures above, unless all were (model/timing_summary.h).
  std::optional<double> sm_clock_mhz = std::nullopt;
  double default_clock_mhz = 0;
  int throttled_samples = 0;
  bool throttled_samples_kept = false; // every sample was throttled, so they are the figures
  // The memory clock read with the samples kept (their median), and NVML's clock-event reason
  // bits read with any sample (model/energy.h names them).
  std::optional<double> memory_clock_mhz = std::nullopt;
  std::uint64_t clock_events = 0;
};

inline constexpr const char* kCpuReference = "the CPU reference";

struct Verification {
  bool passed = false;
  std::int64_t checked = 0;    // output elements compared
  std::int64_t mismatches = 0; // outside the tolerance, NaN, or never written
  double max_abs_error = 0, max_rel_error = 0;
  std::string first_failure; // "c[1234]: got 0.5, want 0.25"
  std::string note;          // how much of the output the reference covers, when not all
  // What the outputs were compared with: "the CPU reference", or a kernel file's reference kernel
  // ("saxpy_reference, run on the GPU").
  std::string against = kCpuReference;
  // Why the outputs were not compared ("mine.cu says `check none`"); "" when they were. A skipped
  // check neither passed nor failed: wherever figures are shown, they are marked not verified.
  std::string skipped = {};
  bool failed() const { return skipped.empty() && !passed; }
  const char* word() const { return !skipped.empty() ? "not verified" : passed ? "yes" : "no"; }
  double seconds = 0; // wall time of the verified run and the comparison
};

struct CounterValue {
  std::string key;     // our name for the figure ("global_load_sectors")
  std::string name;    // the CUPTI metric it was collected as
  std::string display; // "Global load sectors"
  std::string unit;
  double value = 0;
};

struct CounterResult {
  bool available = false;
  std::string reason; // why there are no counters, and the documented fix
  std::string chip;   // "GH100"
  int passes = 0;     // kernel runs the metric set needed
  double seconds = 0; // wall time spent profiling
  std::vector<CounterValue> values;
  std::vector<std::string> missing; // metrics this chip does not have
  // Metrics the profiler gave no number for in this launch (NaN): named as such, never shown as
  // a value.
  std::vector<std::string> no_value;

  const CounterValue* find(const std::string& key) const {
    for (const CounterValue& v : values)
      if (v.key == key)
        return &v;
    return nullptr;
  }
};

struct RunResult {
  std::string kernel_id;
  KernelKind kernel_kind = KernelKind::bundled; // without index math: no sites, and it says why
  Params params;
  LaunchShape launch;
  std::int64_t dynamic_smem = 0;
  Arch arch;
  std::optional<KernelAttributes> attributes; // none for a library call (cuBLAS)
  std::optional<OccupancyResult> occupancy;
  int runtime_blocks_per_sm = -1; // cudaOccupancyMaxActiveBlocksPerMultiprocessor; -1: not run
  std::optional<TimingStats> timing;
  std::optional<Verification> verification;
  std::optional<CounterResult> counters;
  std::optional<SiteCounts> site_counts; // per-site measured figures, from a pass of their own
  std::optional<StallSamples> stalls;    // where the warps waited, from a PC-sampling pass
  std::optional<EnergyStats> energy;     // a batch of launches' energy, from NVML
  double bytes_moved = 0, flops = 0;
  LaunchPrediction prediction;
  // Set when timing and counters come from a bundled recording (the GUI's model mode), not from a
  // run made now: "recorded on NVIDIA H100 80GB HBM3, 2026-11-21".
  std::string recorded_on;

  double gbps() const { return timing ? bytes_moved / (timing->median_time * 1e-3) / 1e9 : 0; }
  double gflops() const {
    return timing && flops > 0 ? flops / (timing->median_time * 1e-3) / 1e9 : 0;
  }
};

} // namespace wl
