#pragma once
// Per-site measured counters: the SASS instructions of one launch, each with CUPTI's
// per-instruction counts and the source line its cubin's line table gives, gathered onto the
// access sites written on those lines, and set beside each site's prediction with the reason for
// any difference, read from the instructions themselves (their width, their count, the lanes they
// ran). Plain data and host code: the engine measures, the CLI and the panels read.

#include "kernel.h"
#include "model/launch_model.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace wl {

// The SASS metrics a per-site pass collects (GH100 names; assets/sass_metrics.json lists them):
// which kind of access each instruction is, how often it ran, with how many lanes, at what width,
// and the sectors or wavefronts it cost. Of them, the optional ones (LDGSTS, cp.async's
// instruction, and the atomics') may be missing from a chip's list, and are left out there. One
// list for every pass: CUPTI cannot set a second SASS configuration in a process.
const std::vector<std::string>& site_sass_metrics();
const std::vector<std::string>& optional_sass_metrics();

// ncu's names for the executions of an access of this kind
// ("smsp__sass_inst_executed_op_global_ld") and for the lanes with the predicate on of one in this
// space.
const char* access_metric(MemorySpace space, AccessOp op);
const char* lanes_metric(MemorySpace space);

// The figure that matters for an access in `space`: its sectors (global) or its wavefronts
// (shared), of a prediction, a measured instruction or a site alike.
template <typename Figures> auto traffic(const Figures& f, MemorySpace space) {
  return space == MemorySpace::global ? f.sectors : f.wavefronts;
}

// One memory instruction of the kernel, as measured.
struct MeasuredInstruction {
  std::uint32_t pc = 0; // bytes from the function's first instruction
  std::string sass;     // its text ("LDS.128 R8, [R3]"), where nvdisasm's listing is at hand
  std::string file;     // the source file the line table names ("vec_add.cu")
  int line = 0;         // 0 when the line table has none
  MemorySpace space = MemorySpace::global;
  AccessOp op = AccessOp::load;
  bool async_copy = false; // one half of an LDGSTS (cp.async), which is both a load and a store
  int width = 0;           // bytes per lane: 4, 8 or 16 (0 when the metrics do not say)
  double executed = 0;     // warp-level executions (a global one is one request)
  double issued = 0;       // warp-level issues, also those with every lane predicated off (ncu's
                           // "Instructions Executed")
  double lanes = 0;        // thread-level executions with the predicate on
  double sectors = 0;      // global: 32-byte sectors
  double wavefronts = 0;   // shared: wavefronts of the shared-memory pipe
};

// The accesses of the instruction at `pc`, from its values of the site metrics (by metric name):
// none for an instruction that is no global or shared load or store; two for an LDGSTS
// (cp.async), a global load and a shared store in one instruction, measured as both: its global
// half with the sectors, its shared half with the wavefronts.
std::vector<MeasuredInstruction> memory_accesses(std::uint32_t pc,
                                                 const std::map<std::string, double>& values);

// A site's measured figures: the sums over the instructions on its line of its kind.
struct SiteMeasurement {
  int line = 0;
  std::vector<std::size_t> instructions; // indices into SiteCounts::instructions
  // A line of an inlined helper reached from several places has a site per place; its
  // instructions are split into one run per place (site_counts.cpp says how). Where the line has
  // fewer instructions than places, its sites are measured together: these are the others, the
  // figures are the line's, and they compare with the sum of the sites' predictions.
  std::vector<std::size_t> measured_with;
  double executed = 0, issued = 0, lanes = 0, sectors = 0, wavefronts = 0;
  // The measured against the predicted figure that matters for the site's space (sectors for
  // global, wavefronts for shared), as measured / predicted - 1; and requests likewise.
  double difference = 0, request_difference = 0;
  bool flagged = false; // either differs by more than kSiteTolerance
  std::string reason;   // why, read from the SASS; "" when not flagged
};

inline constexpr double kSiteTolerance = 0.02;
// A kernel file's requests where the model ran a sample of the launch's blocks and scaled them:
// blocks that run their loops a different number of times than the sampled ones move the total.
inline constexpr double kSampledTolerance = 0.05;

// The sums over every SASS instruction the line table places on one line of the kernel's file,
// memory or not (atomics included): Nsight Compute's "Instructions Executed", "L2 Theoretical
// Sectors Global" and "L1 Wavefronts Shared" of that line on its source page.
struct LineIssues {
  int line = 0;
  double issued = 0;
  double sectors = 0, wavefronts = 0;
};

struct SiteCounts {
  bool available = false;
  std::string reason;                            // why there are none
  std::string file;                              // the family file ("vec_add.cu")
  std::string function;                          // the kernel's mangled name
  double seconds = 0;                            // the whole pass: patch, launch, read, map
  std::vector<MeasuredInstruction> instructions; // the kernel's memory instructions, by PC
  std::vector<SiteMeasurement> sites;            // in the kernel's site order
  std::vector<std::size_t> unclaimed;            // instructions on no site's line
  // A run-time kernel has no sites: its figures are its file's lines. Every line with an
  // instruction, in line order (empty for a bundled kernel).
  std::vector<LineIssues> line_issues;
  // The launch's sums over every memory instruction, beside the launch-wide counters.
  double global_sectors = 0, shared_wavefronts = 0;
};

// Adds one instruction's issues, sectors and wavefronts (its values of the site metrics, by
// metric name) to the line it stands on.
void add_to_line(LineIssues& line, const std::map<std::string, double>& values);

// One line of a run-time kernel's file as measured: its instructions' sums, and its accesses'
// requests by space (loads, stores and atomics) with the sectors or wavefronts they cost.
struct LineMeasurement {
  int line = 0;
  double issued = 0;                  // every instruction of the line
  double sectors = 0, wavefronts = 0; // every instruction's, atomics included
  std::vector<std::size_t> memory;    // its accesses (SiteCounts::instructions)
  double global_requests = 0, access_sectors = 0;
  double shared_requests = 0, access_wavefronts = 0;
};

// The lines of `counts.file` that ran an instruction, in order, from its line issues and its
// memory instructions.
std::vector<LineMeasurement> measured_lines(const SiteCounts& counts);

// A run-time kernel's pass: the memory instructions sorted by PC, the launch's sums, every
// instruction's sums per line of `file` (`lines`), and each site the model found in the file's
// code (`prediction`, from its PTX; none where it has no code to run) set beside what the
// instructions of its line and kind measured.
SiteCounts attribute_lines(const std::string& file, std::vector<MeasuredInstruction> instructions,
                           std::vector<LineIssues> lines, const LaunchPrediction& prediction);

// Sorts the measured instructions onto the kernel's sites by line and kind, and compares each
// site with its prediction.
SiteCounts attribute_sites(const KernelDesc& kernel, const Params& params,
                           const LaunchPrediction& prediction,
                           std::vector<MeasuredInstruction> instructions);

} // namespace wl
