#pragma once
// What a run on the GPU is asked for: the device, the inputs' seed, verification, the timing
// and model budgets and the counters. The engine takes it, the worker protocol carries it and the
// GUI and CLI fill it, so it lives here, with no GPU in it.

#include "model/launch_model.h"

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <variant>

namespace wl {

struct TimingOptions {
  int warmup_runs = 1;
  int min_samples = 10;
  int max_samples = 2000;
  double max_noise = 0.005; // 0.5 %
  double max_seconds = 1.0; // wall-clock budget for the samples
  bool flush_l2 = true;
};

// Seconds one launch of a person's kernel file may run (`--kernel-time-limit`), and the least it
// may be set to: the watchdog looks every 20 ms.
inline constexpr double kDefaultKernelTimeLimit = 10;
inline constexpr double kShortestKernelTimeLimit = 0.1;
// A run's timing budget, and a launch's time limit, may not exceed an hour: the GUI asks for 0.01
// to 1 s of timing.
inline constexpr double kMaxRequestSeconds = 3600;

struct EngineOptions {
  int device = 0;
  std::uint64_t seed = 42;
  bool verify = true;
  TimingOptions timing;
  ModelBudget model;
  std::string metrics;   // "" (no counters), "default", "all", or a comma-separated list
  bool per_site = false; // a SASS-metrics pass of its own for every site's measured figures
  bool stalls = false;   // a PC-sampling pass of its own: where the warps waited, per line
  bool energy = false;   // a batch of launches of its own: joules per launch, power, clocks
  // How long one launch of a kernel file may run before its process stops
  // (engine/launch_watchdog.h).
  double kernel_time_limit = kDefaultKernelTimeLimit;
};

// The named sets of counters `--metrics` and a request's "metrics" take besides counter names:
// assets/metrics.json's sets, and "all" (a unit test holds the two lists equal).
inline constexpr std::array<std::string_view, 7> kMetricSets = {
    "default", "global", "shared", "occupancy", "roofline", "memory", "all"};

// Where an engine option is given: the requests of the worker protocol that carry it, and the
// commands whose command line sets it (warplens run, warplens sweep, the GUI's `warplens`).
enum OptionUse : unsigned {
  kModelRequest = 1u << 0,
  kRunRequest = 1u << 1,
  kSweepRequest = 1u << 2,
  kRunCommand = 1u << 3,
  kSweepCommand = 1u << 4,
  kGuiCommand = 1u << 5,
};

// The member of EngineOptions an option fills, by its type.
template <class T> using OptionMember = T& (*)(EngineOptions&);
using OptionField =
    std::variant<OptionMember<bool>, OptionMember<int>, OptionMember<std::int64_t>,
                 OptionMember<std::uint64_t>, OptionMember<double>, OptionMember<std::string>>;

// One engine option, named once. The command line (app/cli_kernels.cpp, app/cli_gui.cpp), the
// worker protocol's reader, writer and key lists (protocol.cpp) and the GUI's requests
// (WorkerSource) take every option from kEngineOptions, so an option is this row, its member
// above and the engine code that reads it.
struct EngineOption {
  const char* key;  // in a worker request: "max_seconds"
  const char* flag; // on the command line: "--max-time"; "" where no command line sets it
  OptionField field;
  unsigned use = 0;             // OptionUse bits
  std::int64_t least = 0;       // a whole number: from `least`
  std::int64_t most = 0;        //   to `most`
  double shortest = 0;          // seconds: above 0 and at least `shortest`
  double longest = 0;           //   to `longest`
  const char* allowed = "";     // text: what it may be, for a refusal
  bool flag_sets_false = false; // a flag that turns the option off (--no-verify)
  const char* help = "";
};

inline constexpr unsigned kMeasuredRequests = kRunRequest | kSweepRequest;
inline constexpr unsigned kMeasuringCommands = kRunCommand | kSweepCommand;

inline constexpr std::array kEngineOptions = {
    EngineOption{.key = "max_evaluations",
                 .flag = "",
                 .field =
                     +[](EngineOptions& e) -> std::int64_t& { return e.model.max_evaluations; },
                 .use = kModelRequest | kMeasuredRequests,
                 .least = 0,
                 .most = kMaxModelEvaluations,
                 .help = "Warp-iterations the model analyses at most (0: all of them)"},
    EngineOption{.key = "device",
                 .flag = "--device",
                 .field = +[](EngineOptions& e) -> int& { return e.device; },
                 .use = kMeasuredRequests | kMeasuringCommands,
                 .least = 0,
                 .most = 1023,
                 .help = "CUDA device number"},
    EngineOption{.key = "seed",
                 .flag = "--seed",
                 .field = +[](EngineOptions& e) -> std::uint64_t& { return e.seed; },
                 .use = kMeasuredRequests | kMeasuringCommands,
                 .least = 0,
                 .most = std::numeric_limits<std::int64_t>::max(),
                 .help = "Seed for the random inputs"},
    EngineOption{.key = "verify",
                 .flag = "--no-verify",
                 .field = +[](EngineOptions& e) -> bool& { return e.verify; },
                 .use = kMeasuredRequests | kRunCommand,
                 .flag_sets_false = true,
                 .help = "Skip the comparison with the reference (the CPU's, or a kernel file's "
                         "reference kernel)"},
    EngineOption{.key = "max_seconds",
                 .flag = "--max-time",
                 .field = +[](EngineOptions& e) -> double& { return e.timing.max_seconds; },
                 .use = kMeasuredRequests | kMeasuringCommands,
                 .longest = kMaxRequestSeconds,
                 .help = "Seconds of timing samples at most (a sweep's: per point)"},
    EngineOption{
        .key = "metrics",
        .flag = "--metrics",
        .field = +[](EngineOptions& e) -> std::string& { return e.metrics; },
        .use = kMeasuredRequests | kMeasuringCommands,
        .allowed = "a set (default, global, shared, occupancy, roofline, memory, all) or counter "
                   "names (keys or CUPTI names), comma-separated",
        .help = "Hardware counters: a set (default, global, shared, occupancy, roofline, memory, "
                "all) or counter names (keys or CUPTI names), comma-separated"},
    EngineOption{.key = "per_site",
                 .flag = "--per-site",
                 .field = +[](EngineOptions& e) -> bool& { return e.per_site; },
                 .use = kMeasuredRequests | kMeasuringCommands,
                 .help = "Measure every access site too (SASS metrics, a pass of its own per "
                         "shape): requests, sectors and wavefronts per site beside the model's, "
                         "with the reason for any difference; for a kernel file, the same per "
                         "line of the file"},
    EngineOption{.key = "stalls",
                 .flag = "--stalls",
                 .field = +[](EngineOptions& e) -> bool& { return e.stalls; },
                 .use = kRunRequest | kRunCommand,
                 .help = "Sample where the warps wait (CUPTI PC sampling, a pass of its own): "
                         "the share of samples per stall reason for the launch and per "
                         "source line, with what each reason means"},
    EngineOption{.key = "energy",
                 .flag = "--energy",
                 .field = +[](EngineOptions& e) -> bool& { return e.energy; },
                 .use = kMeasuredRequests | kMeasuringCommands,
                 .help = "Measure the energy of a launch (NVML's energy counter over a batch of "
                         "at least 0.3 s of back-to-back launches): joules per launch, mean "
                         "power, GFLOP per joule, the clocks and what held them down"},
    EngineOption{.key = "kernel_time_limit",
                 .flag = "--kernel-time-limit",
                 .field = +[](EngineOptions& e) -> double& { return e.kernel_time_limit; },
                 .use = kMeasuredRequests | kMeasuringCommands | kGuiCommand,
                 .shortest = kShortestKernelTimeLimit,
                 .longest = kMaxRequestSeconds,
                 .help = "Seconds one launch of a kernel file may run (0.1 to 3600): past it, the "
                         "process running it (warplens run or sweep, exiting with code 4, or the "
                         "GUI's worker, which the next Run replaces) says which launch it was and "
                         "stops; a running kernel cannot be interrupted"},
};

} // namespace wl
