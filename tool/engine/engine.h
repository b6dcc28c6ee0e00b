#pragma once
// Turns a kernel request into a measured result (the model alone, with no GPU, is
// model/model_kernel.h's). `run_kernel` runs the kernel on the GPU: buffers from a seeded
// generator, outputs poisoned, attributes and the runtime's occupancy beside the model's, one
// verified run, then cold timing samples.

#include "engine/counters/counters.h"
#include "engine/library.h"
#include "engine/measure.h"
#include "model/kernel_request.h"
#include "model/launch_model.h"
#include "model/run_options.h"
#include "model/run_result.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace wl {

// Wall seconds of each step of a session's set-up, for reports of where a sweep's time went.
// The counter profiler opens on another thread while the inputs and the reference are made.
struct SessionSetup {
  double device = 0;    // the CUDA context and the device's properties
  double inputs = 0;    // seeded inputs generated on the host
  double reference = 0; // the CPU reference
  double upload = 0;    // buffers allocated and copied
  double counters = 0;  // the counter profiler opened (alongside the rest, until the first count)
  double code = 0;      // a run-time kernel compiled by NVRTC for the device and loaded
  double total = 0;     // the whole constructor
};

// Given a run's result as far as it goes once its launch is timed: prediction, attributes,
// occupancy, verification and timing, before the counters.
using TimedPart = std::function<void(const RunResult&)>;

// One kernel and its parameters on the GPU: buffers allocated, inputs filled and uploaded, and
// the CPU reference computed once, so that every block shape measured after costs only its own
// launches (a sweep's per-shape cost). Verification of full outputs runs on the device against
// the uploaded reference. Throws UsageError for what the user can fix (no GPU, not enough device
// memory, a launch the device refuses) and for CUDA errors, with the runtime's message.
class KernelSession {
public:
  KernelSession(const KernelDesc& kernel, const Params& params, const EngineOptions& options);
  ~KernelSession();
  KernelSession(const KernelSession&) = delete;
  KernelSession& operator=(const KernelSession&) = delete;

  // The model alone for one shape: no CUDA calls and nothing changed, so it may run on any
  // thread (a sweep models its shapes on other cores while the GPU measures). Throws
  // UsageError for a shape the kernel does not allow.
  RunResult predict(const BlockShape& block) const;
  // Verification, attributes, occupancy, timing and, unless told otherwise, the counters. Where
  // counters follow, `timed_part` is given the result so far once the launch is timed, so a
  // worker can send it before the counting passes.
  RunResult measure(const BlockShape& block, bool with_counters = true,
                    const TimedPart& timed_part = {});
  // The same for a shape whose prediction is already made.
  RunResult measure(RunResult predicted, bool with_counters = true,
                    const TimedPart& timed_part = {});
  // The counters of several shapes in one profiling session (a sweep's), in the order given;
  // each is unavailable, with the reason, when the counters cannot be read.
  std::vector<CounterResult> count(const std::vector<BlockShape>& blocks);
  // The SASS metrics of every instruction of one launch of this shape, in a pass of its own
  // (CounterProfiler::sass; LDGSTS's metrics left out where the chip lacks them); the launch
  // starts from an emptied L2 like the counted ones.
  SassCounts count_sass(const BlockShape& block, const std::vector<std::string>& metrics);
  // Every site's measured figures for the launch `predicted` describes: one pass of SASS
  // metrics, each instruction placed on its source line by the embedded cubin's line table.
  SiteCounts count_sites(const RunResult& predicted);
  // Where the warps of one launch of `measured`'s shape waited: a PC-sampling pass of its own
  // (CounterProfiler::sample_pcs), its period chosen from the timed launch for about 200,000
  // samples, each sampled instruction placed on its source line and summed per line.
  StallSamples sample_stalls(const RunResult& measured);
  // Starts what count_sites and sample_stalls need that takes a while and no GPU (the SASS text
  // with its lines: a bundled family's, or nvdisasm's of a kernel file's cubin, made on another
  // thread), so that it overlaps the measuring before their passes. Once per code.
  void prepare_sites();
  // Where the set-up's time went; waits for the counter profiler to have opened.
  const SessionSetup& setup();
  const KernelDesc& kernel() const;
  // A run-time kernel saved again with the same buffers and inputs (its inputs_signature): the
  // new version's code is loaded and its reference runs again; buffers and inputs stay.
  void switch_code(const KernelDesc& kernel);
  // Later measurements use these options' timing budget, model budget, counter set and energy
  // batch (a live change of shape is timed briefly and counts nothing; the Run button measures
  // fully) without a new session; its device, seed and verification stay. Throws UsageError for
  // an unknown metric.
  void retune(const EngineOptions& options);

private:
  RunResult measure_launch(RunResult predicted, bool with_counters, const TimedPart& timed_part);
  SiteCounts count_bundled_sites(const SassCounts& sass, const RunResult& predicted);
  SiteCounts count_file_lines(const SassCounts& sass, const RunResult& predicted);
  StallSamples own_stalls(const PcSampleCounts& pcs) const;

  struct State;
  std::unique_ptr<State> m_state;
};

// The last session, kept: a later request of the same kernel, parameters, device, seed and
// verification (a Run, a live edit, a sweep's parameter set) reuses its buffers, inputs and
// reference, retuned to its own budgets and counters; a kernel file saved again with the same
// inputs reuses them with its new code. A different one frees the old buffers before it
// allocates its own.
class SessionCache {
public:
  // The session for this request, made or reused; `made` tells which.
  KernelSession& get(const KernelDesc& kernel, const Params& params, const EngineOptions& options,
                     bool* made = nullptr);
  void drop() { m_session.reset(); }

private:
  std::unique_ptr<KernelSession> m_session;
  std::string m_key;
};

RunResult run_kernel(const KernelRequest& request, const EngineOptions& options = {});

// The counter profiler's costs so far in this process (nothing when it never opened), and what
// was spent since an earlier account.
CounterCosts counter_costs();
CounterCosts counter_costs_since(const CounterCosts& before);

} // namespace wl
