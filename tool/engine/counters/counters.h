#pragma once
// Hardware counters through CUPTI's Range Profiler (CUDA 13): the only part of WarpLens that
// includes CUPTI headers. One CounterProfiler per process and device keeps the host object, the
// counter-availability image, a config image per metric list and a counter-data image, so each
// launch profiled costs only its passes. Our kernels are idempotent, so replay is user replay:
// the launch is simply run again for every pass, with no device-memory save and restore. A
// sweep profiles all its shapes in one session, each shape a range of its own.
//
// The metrics come from assets/metrics.json: which CUPTI metric feeds which figure, its unit and
// meaning, and fallbacks for chips that name it differently. Every name is checked against the
// chip when the profiler opens; a metric the chip lacks is reported unavailable, not fatal.

#include "engine/library.h"
#include "io/metric_catalog.h"
#include "model/run_result.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace wl {

// A per-instruction (SASS) metric CUPTI offers for a chip: its name and CUPTI's description.
struct SassMetricInfo {
  std::string name; // "smsp__sass_sectors_mem_global"
  std::string description;
};

// The SASS metrics CUPTI offers for `device`'s chip, and the chip's name: what per-site figures
// can be measured there (assets/sass_metrics.json holds the list per chip). Throws UsageError
// with CUPTI's reason where it cannot say.
std::vector<SassMetricInfo> sass_metrics_offered(int device, std::string& chip);

// "13.0 (API 130001), /usr/lib/warplens/libcupti.so.13": CUPTI's version and where it was loaded
// from, for `warplens --version` and `warplens doctor`.
std::string cupti_version();

// One SASS instruction's values from CUPTI's SASS Metrics API, summed over the GPU.
struct SassInstruction {
  std::uint32_t cubin_crc = 0;          // which cubin (cubin_crc() of its bytes)
  std::string function;                 // the kernel's mangled name
  std::uint32_t pc_offset = 0;          // bytes from the function's first instruction
  std::map<std::string, double> values; // by metric name
};

// Every instruction the SASS metrics were patched into during one launch, or why there are none.
struct SassCounts {
  bool available = false;
  std::string reason;
  std::vector<SassInstruction> instructions; // by function, then PC offset
  double seconds = 0;                        // the whole pass: configure, patch, run, read
};

// CUPTI's identity of a cubin, as SassInstruction::cubin_crc names it; 0 when CUPTI cannot read
// the bytes as a cubin.
// Where a launch's warps waited (CUPTI's PC sampling): every instruction sampled, its values the
// samples by CUPTI's stall-reason name ("smsp__pcsamp_warps_issue_stalled_long_scoreboard", and
// its "_not_issued" part), and CUPTI's own counts for the pass.
struct PcSampleCounts {
  bool available = false;
  std::string reason;
  int period = 0; // log2 of the cycles between two samples of an SM
  std::uint64_t total_samples = 0, dropped_samples = 0;
  bool buffer_full = false; // the hardware buffer filled: samples were lost
  std::vector<SassInstruction> instructions;
  double seconds = 0; // the whole pass: enable, configure, run, read, disable
};

std::uint32_t cubin_crc(const unsigned char* bytes, std::size_t size);

// The source file (no folder) and line of each instruction at `pc_offsets` in `function`
// (mangled) of a cubin built with -lineinfo, from its line table; line 0 where it has none. Needs
// no GPU.
struct SourcePlace {
  std::string file;
  int line = 0;
};
std::vector<SourcePlace> sass_source_places(const unsigned char* bytes, std::size_t size,
                                            const std::string& function,
                                            const std::vector<std::uint32_t>& pc_offsets);

// Where the profiler's time went since the process began, phase by phase.
struct CounterCosts {
  double open = 0;            // CUPTI initialised, the chip's tables and counter availability read
  double configure = 0;       // config images built (several metric orders tried per list)
  int configs_built = 0;      // config images built
  double session = 0;         // counter-data images sized and initialised, the config set
  std::vector<double> passes; // each pass over a session's launches, its L2 flushes included
  double flushes = 0;         // of the passes: the L2 flushes before each launch
  double decode = 0;          // counter data decoded and every launch's values evaluated
};

// Opens on first use for the current device; a device or a process that cannot profile (no
// permission, MIG, WSL, vGPU, another profiler attached) leaves it closed with the reason and the
// documented fix, and every later call reports that reason instead of counters.
class CounterProfiler {
public:
  explicit CounterProfiler(const MetricCatalog& catalog);
  ~CounterProfiler();
  CounterProfiler(const CounterProfiler&) = delete;
  CounterProfiler& operator=(const CounterProfiler&) = delete;

  // Opens the profiler for `device` now rather than on first use (it takes a while: the chip's
  // metric tables are loaded), and makes the configuration for `metrics`, so a caller can do
  // other work meanwhile on another thread. Opens once (later calls do nothing); a failure to
  // open is kept as the reason.
  void open(int device, const std::vector<const MetricInfo*>& metrics = {});
  double
  open_seconds() const; // how long opening (and the configuration made with it) took; 0 before

  // Profiles `launches` launches in one session: every pass calls before_launch(i) (outside the
  // counted range: an L2 flush, so each launch starts from the same cache state) then launch(i)
  // (which enqueues one kernel launch and synchronises), for i = 0..launches-1. Returns each
  // launch's values; `seconds` is the session's wall time shared among them.
  std::vector<CounterResult> profile(const std::vector<const MetricInfo*>& metrics, int launches,
                                     const std::function<void(int)>& before_launch,
                                     const std::function<void(int)>& launch);

  // The SASS metrics (names as sass_metrics_offered lists them) of every instruction of the
  // kernels `launch` runs (it enqueues one launch and synchronises). A pass of its own: the
  // instructions are patched with counting code at this launch (so it is never timed), and the
  // range profiler is set aside meanwhile and enabled again after. Those of `metrics` also in
  // `may_lack` are left out where the chip lacks them (LDGSTS's: chips before sm_80 have no such
  // instruction); any other it lacks fails the pass.
  SassCounts sass(const std::vector<std::string>& metrics, const std::function<void()>& launch,
                  const std::vector<std::string>& may_lack = {});
  // The PC samples of the kernels `launch` runs (it enqueues one launch and synchronises), one
  // every 2^period cycles per SM (5 to 31), in a pass of its own: the kernel is serialised and
  // sampled, so this launch is never timed; the range profiler is set aside meanwhile.
  PcSampleCounts sample_pcs(int period, const std::function<void()>& launch);
  std::string chip() const;
  const CounterCosts& costs() const;

private:
  struct State;
  std::unique_ptr<State> m_state;
};

} // namespace wl
