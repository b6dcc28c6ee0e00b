#pragma once
// Where a launch's warps waited: CUPTI's PC sampling saw, every 2^period cycles on each SM, one
// warp and why it did not issue (its stall reason), at its instruction. The samples of one launch
// per instruction, placed on their source lines, summed per line and over the launch. Plain data
// and host code: the engine samples, the CLI and the panels read.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wl {

// A stall reason's samples. `reason` is ncu's short name ("long_scoreboard"); `not_issued` counts
// the samples of the reason in which the scheduler issued no instruction at all that cycle (ncu's
// "Not-issued Samples"), a part of `samples`.
struct StallCount {
  std::string reason;
  std::uint64_t samples = 0;
  std::uint64_t not_issued = 0;
};

// The reasons PC sampling names on the chips WarpLens knows (ncu's Warp State Statistics), in
// ncu's order; "other" holds what CUPTI named and this list does not (StallSamples::unnamed says
// which). "selected" is no stall: the warp issued.
const std::vector<std::string>& stall_reasons();
bool known_stall_reason(std::string_view reason);

// CUPTI's name of a sampled reason ("smsp__pcsamp_warps_issue_stalled_long_scoreboard", or with
// "_not_issued" after it) as ncu's short name and whether it is the not-issued part; nullopt-like
// empty reason for a name of another form.
struct CuptiStallName {
  std::string reason; // "" when the name is not a stall reason's
  bool not_issued = false;
};
CuptiStallName parse_cupti_stall_name(std::string_view name);

struct StalledInstruction {
  std::uint32_t pc = 0;                 // bytes from the function's first instruction
  std::string sass = {};                // its text, where nvdisasm's listing is at hand
  std::string file = {};                // the source file its line table names
  int line = 0;                         // 0 when the line table has none
  std::vector<StallCount> reasons = {}; // most samples first
  std::uint64_t samples() const;
};

struct StalledLine {
  int line = 0;
  std::uint64_t samples = 0;
  std::vector<StallCount> reasons = {}; // most samples first
};

struct StallSamples {
  bool available = false;
  std::string reason;        // why there are none, and what would allow them
  std::string function = {}; // the kernel's (mangled) name
  std::string file = {};     // the source file its lines are of
  int period = 0;            // log2 of the cycles between two samples of an SM (5 to 31)
  // CUPTI's counts for the whole pass: every sample taken, and those the hardware dropped.
  std::uint64_t total_samples = 0, dropped_samples = 0;
  std::vector<std::string> unnamed = {};             // CUPTI's reason names counted as "other"
  std::vector<StalledInstruction> instructions = {}; // by pc
  std::vector<StalledLine> lines = {};               // by line: the instructions' sums
  std::vector<StallCount> launch = {};               // over every instruction, most samples first
  double seconds = 0;                                // the whole pass
  // What the pass cost around it (not carried by JSON: the process that ran it says them): the
  // profiler's opening waited for and the launch captured, then the samples placed on lines.
  double setup_seconds = 0, place_seconds = 0;
  std::uint64_t samples() const; // of the kernel's own instructions
};

// Fills `lines` (the instructions placed on lines of `file`) and `launch` (every instruction)
// from `instructions`, each reason list sorted by samples (ties by ncu's order).
void summarise_stalls(StallSamples& stalls);
// Sorts a reason list: most samples first, ties in stall_reasons() order.
void sort_stall_counts(std::vector<StallCount>& counts);

// The sampling period (log2 cycles) that gives a launch about `wanted` samples over `sms` SMs
// for a kernel of `cycles` cycles, held to CUPTI's 5 to 31.
int sampling_period_for(double cycles, int sms, double wanted);

} // namespace wl
