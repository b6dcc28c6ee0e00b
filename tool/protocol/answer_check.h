#pragma once
// Nothing a worker says is shown as a measurement before it is checked here: a worker may be
// remote, of another build, or simply wrong, and a file read back (a sweep, a recording) may have
// been edited by hand. Two checks, each with one home:
//  - check_plausible: what any result must be to come from a launch a GPU can make (times finite
//    and positive, counts whole and non-negative, occupancy within the GPU's limits, a passed
//    verification that checked something, the launch's own grid and bytes). run_result_from_json
//    calls it, so every reader of a result (worker answers, sweep files, recordings) does.
//  - check_answer: what a worker's answer must be to answer the request it was sent (its kernel,
//    block, parameters and GPU, the parts the request asked for, times that fit the request's
//    budget). WorkerClient calls it on every answer, so the GUI (WorkerSource), fanned-out sweeps
//    and any other user of the client see a refusal with its reason instead of the answer.
// Both throw UsageError naming the figure, its value and what is allowed.

#include "model/run_result.h"
#include "protocol/protocol.h"

#include <string>

namespace wl {

// Ceilings no GPU reaches, generous on purpose: 100 TB/s is thirty times an H100's HBM3 and above
// any GPU's L2; 100 PFLOP/s is ten times the densest tensor rate of any GPU.
inline constexpr double kMaxPlausibleGbps = 1e5;
inline constexpr double kMaxPlausibleGflops = 1e8;
// What a launch's L1 moves (sectors of 32 bytes) and its SMs issue, per nanosecond of its
// profiled range: an H200's 132 SMs move about 33 TB/s through L1 and issue about a thousand warp
// instructions a nanosecond; thirty times that is out of any GPU's reach.
inline constexpr double kMaxPlausibleL1Gbps = 1e6;
inline constexpr double kMaxPlausibleWarpInstructionsPerNs = 3e4;
inline constexpr double kMaxPlausibleWavefrontsPerNs = 1e4;
// No sample of a kernel lasts longer than the longest timing budget a request may ask.
inline constexpr double kMaxPlausibleSampleMs = kMaxRequestSeconds * 1e3;
// No GPU's SM runs slower or faster (an H200 boosts to 1,980 MHz, a desktop part to about 3,000).
inline constexpr double kMinPlausibleClockMhz = 100;
inline constexpr double kMaxPlausibleClockMhz = 5000;

// Throws UsageError "WHERE: KEY: what is wrong; what is allowed" when `result` cannot be a launch
// of its kernel on its GPU ("occupancy.blocks_per_sm: 9999 is more than the GPU holds; allowed
// at most arch_details.max_blocks_per_sm, 32"), or is of a kernel that is not bundled.
void check_plausible(const RunResult& result, const std::string& where);

// Throws UsageError with the reason ("block 1024x1x1 where 64x1x1 was asked", "6 points where 3
// were asked (3 shapes)") when `answer` does not answer `asked`: a result for a model or run, the
// points of a sweep in the grid's order, each of the asked kernel, block, parameters and GPU, with
// the timing, verification, counters and per-site figures the request asked for, and no time
// longer than `budget_seconds` (the client's budget for the whole request: anything longer would
// have been killed). Progress and error lines are not answers and pass.
void check_answer(const WorkerRequest& asked, double budget_seconds, const WorkerResponse& answer);

// The answer as this side shows it: a worker measures, but what the model predicts of a launch is
// this side's to say, so each result's prediction is this side's own (of the request's budget),
// and its per-site comparison is made again from the worker's measured instructions. A worker
// that predicted a million times more sectors, or sites that are not the kernel's, changes
// nothing shown. Call after check_answer.
WorkerResponse with_own_model(const WorkerRequest& asked, WorkerResponse answer);

} // namespace wl
