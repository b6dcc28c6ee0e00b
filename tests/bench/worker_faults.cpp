// The GUI against a worker that fails, for the GPU machine:
//   wl_worker_faults PROXY FAULT_WORKER [FAULTS [all|others|illegal]]
// The GUI's App, worker source and frames (headless, as the window draws them) in GPU mode, with
// its worker behind wl_fault_proxy, are put through FAULTS (100) faults in turn during live
// edits, full runs and measured sweeps: SIGKILL at a random moment, SIGSTOP (a hang), a garbage
// line, a line cut in half, a worker that exits at start, a slow worker, and a run of a kernel
// that faults with an illegal address (wl_fault_worker). After each fault the benchmark waits
// for the panels to show an answer to what was asked, pressing F5 once more if the GUI shows an
// error and waits, as a person would. It counts GUI hangs (a frame over 5 s), requests never
// answered, user state lost (kernel, parameters, block, baseline, sweep, history) and the time
// from each fault to the answer on screen, and prints a markdown table by fault. `others` leaves
// the illegal-address runs out, `illegal` makes every fault one.

#include "front_end/front_end.h"
#include "workflows/worker_source.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <execinfo.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace wl::viz {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

enum class Fault { kill, stop, garbage, truncate, exit_at_start, slow, illegal };
constexpr Fault kFaults[] = {Fault::kill,          Fault::stop, Fault::garbage, Fault::truncate,
                             Fault::exit_at_start, Fault::slow, Fault::illegal}; // illegal last
enum class Activity { live_edit, full_run, measured_sweep };
// Past this the request counts as never answered. After an illegal address the driver may hold
// the graphics engine 10-20 s before it resets it (Xid 109), and the GUI draws on the same GPU.
constexpr double kAnswerLimitMs = 45000;
constexpr double kFrameHangMs = 5000;

const char* fault_name(Fault fault) {
  switch (fault) {
  case Fault::kill:
    return "SIGKILL at a random moment";
  case Fault::stop:
    return "SIGSTOP (hung worker)";
  case Fault::garbage:
    return "garbage line";
  case Fault::truncate:
    return "line cut in half, worker gone";
  case Fault::exit_at_start:
    return "worker exits at start";
  case Fault::slow:
    return "slow worker (1.5 s a line)";
  case Fault::illegal:
    return "illegal-address kernel";
  }
  return "?";
}

const char* activity_name(Activity activity) {
  switch (activity) {
  case Activity::live_edit:
    return "live edit";
  case Activity::full_run:
    return "full run";
  case Activity::measured_sweep:
    return "measured sweep";
  }
  return "?";
}

// What the user made and must find again after any fault.
struct UserState {
  std::string kernel_id;
  Params params;
  BlockShape block;
  std::string baseline;
  std::size_t sweep_points = 0;
  std::size_t history = 0;

  static UserState of(const App& app) {
    return {app.choices.kernel_id,
            app.choices.params,
            app.block(),
            app.baseline_label(),
            app.sweep.data ? app.sweep.data->points.size() : 0,
            app.results.history.size()};
  }
  // What is missing from `now`, or "" when nothing is.
  std::string lost_in(const UserState& now) const {
    if (now.kernel_id != kernel_id || now.params != params)
      return "kernel or parameters";
    if (now.block.x != block.x || now.block.y != block.y)
      return "block";
    if (now.baseline != baseline)
      return "baseline";
    if (now.sweep_points < sweep_points)
      return "sweep";
    if (now.history < std::min(history, Results::kHistoryLength))
      return "history";
    return "";
  }
};

struct Outcome {
  Fault fault;
  Activity activity;
  bool answered = false;
  int retries = 0; // F5 pressed again after the GUI showed an error
  double recovery_ms = 0;
  double longest_frame_ms = 0;
  std::string lost = {};
  std::string error_seen = {};
};

class Bench {
public:
  Bench(App& app, WorkerSource& source, HeadlessGui& gui, fs::path control)
      : m_app(app), m_source(source), m_gui(gui), m_control(std::move(control)) {}

  // The first run, a pinned baseline and a measured sweep: the state the faults must not lose.
  bool prepare() {
    m_app.choices.live = false;
    m_app.run();
    if (!frames_until(
            [&] {
              return !m_source.busy() && m_app.results.latest && m_app.results.latest->timing;
            },
            60000)) {
      std::printf("no first measurement: %s\n", m_app.results.last_error.c_str());
      return false;
    }
    m_app.pin_baseline();
    std::snprintf(m_app.sweep.x_sides.data(), m_app.sweep.x_sides.size(), "64:512:64");
    m_app.measure_sweep();
    return frames_until([&] { return sweep_done(0); }, 60000);
  }

  Outcome one(Fault fault, Activity activity) {
    Outcome outcome{fault, activity};
    m_longest_frame = 0;
    const std::int64_t answered_before = newest_answer();
    if (fault == Fault::exit_at_start) { // the next worker to start dies at once
      flag("exit-at-start");
      kill_worker(SIGKILL);
    }
    if (const char* name = flag_of(fault))
      flag(name);
    const auto fault_at = Clock::now();
    begin(activity);
    if (fault == Fault::kill || fault == Fault::stop)
      inject_signal(fault == Fault::kill ? SIGKILL : SIGSTOP, activity);
    outcome.answered = frames_until(
        [&] {
          if (done(activity, answered_before))
            return true;
          const std::string& shown =
              activity == Activity::measured_sweep ? m_app.sweep.problem : m_app.results.last_error;
          if (!m_source.busy() && !shown.empty() && outcome.retries < 2 && !m_app.sweep.running) {
            outcome.error_seen = shown;
            ++outcome.retries;
            begin(activity); // F5 again
          }
          return false;
        },
        kAnswerLimitMs);
    outcome.recovery_ms = ms_since(fault_at);
    if (!outcome.answered) // what a person would see on screen then
      outcome.error_seen = "still waiting; sweep " +
                           std::string(m_app.sweep.running ? "running" : "idle") + ", problem '" +
                           m_app.sweep.problem + "', error '" + m_app.results.last_error + "', " +
                           m_source.mode();
    outcome.longest_frame_ms = m_longest_frame;
    std::error_code ignored;
    fs::remove(m_control / "slow", ignored);
    outcome.lost = m_expected.lost_in(UserState::of(m_app));
    m_expected = UserState::of(m_app);
    return outcome;
  }

  void remember_state() { m_expected = UserState::of(m_app); }

private:
  static const char* flag_of(Fault fault) {
    switch (fault) {
    case Fault::garbage:
      return "garbage";
    case Fault::truncate:
      return "truncate";
    case Fault::slow:
      return "slow";
    case Fault::illegal:
      return "illegal";
    default:
      return nullptr;
    }
  }

  void flag(const char* name) { std::ofstream(m_control / name) << "1\n"; }

  void frame() {
    const auto start = Clock::now();
    m_gui.render(1);
    m_longest_frame = std::max(m_longest_frame, ms_since(start));
  }

  template <typename Done> bool frames_until(Done done_now, double limit_ms) {
    const auto start = Clock::now();
    while (ms_since(start) < limit_ms) {
      frame();
      if (done_now())
        return true;
    }
    return false;
  }

  std::int64_t newest_answer() const {
    const WorkerSnapshot s = m_source.snapshot();
    return s.latest_result ? s.latest_result->id : 0;
  }

  // The action of a person: a block edit with Live on, F5, or Measure in the Sweep panel.
  void begin(Activity activity) {
    m_app.results.last_error.clear();
    switch (activity) {
    case Activity::live_edit:
      m_app.choices.live = true;
      m_side = m_side >= 1024 ? 64 : m_side + 32;
      m_app.choices.set_block({m_side, 1, 1});
      m_expected.block = {m_side, 1, 1};
      break;
    case Activity::full_run:
      m_app.choices.live = false;
      m_app.run();
      break;
    case Activity::measured_sweep:
      m_app.choices.live = false;
      m_app.measure_sweep();
      break;
    }
  }

  bool sweep_done(std::int64_t answered_before) const {
    return !m_app.sweep.running && m_app.sweep.data && m_app.sweep.data->points.size() == 8 &&
           newest_answer() > answered_before;
  }

  bool done(Activity activity, std::int64_t answered_before) const {
    if (activity == Activity::measured_sweep)
      return sweep_done(answered_before);
    const BlockShape want = m_app.block();
    return !m_source.busy() && newest_answer() > answered_before && m_app.results.latest &&
           m_app.results.latest->timing && m_app.results.latest->launch.block.x == want.x &&
           !m_app.latest_is_stale();
  }

  int worker_pid() {
    frames_until([&] { return m_source.snapshot().worker_pid != 0; }, 10000);
    return m_source.snapshot().worker_pid;
  }

  void kill_worker(int signal) {
    if (const int pid = worker_pid(); pid > 0)
      kill(pid, signal);
  }

  // A signal at a random moment of the request: early, mid-way or near its end.
  void inject_signal(int signal, Activity activity) {
    const double span_ms = activity == Activity::live_edit  ? 60
                           : activity == Activity::full_run ? 700
                                                            : 1500;
    const double at_ms = std::uniform_real_distribution<double>(0, span_ms)(m_random);
    const auto start = Clock::now();
    while (ms_since(start) < at_ms)
      frame();
    kill_worker(signal);
  }

  App& m_app;
  WorkerSource& m_source;
  HeadlessGui& m_gui;
  fs::path m_control;
  UserState m_expected;
  std::mt19937 m_random{20261123};
  int m_side = 256;
  double m_longest_frame = 0;
};

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

void print_summary(const std::vector<Outcome>& outcomes) {
  std::printf(
      "\n| fault | tried | answered | F5 again | recovery median (ms) | recovery max (ms) "
      "| longest frame (ms) | state lost | GUI hangs |\n|---|---|---|---|---|---|---|---|---|\n");
  auto row = [](const char* name, const std::vector<const Outcome*>& of) {
    std::vector<double> times;
    int answered = 0, retried = 0, lost = 0, hangs = 0;
    double longest = 0;
    for (const Outcome* o : of) {
      answered += o->answered;
      retried += o->retries > 0;
      lost += !o->lost.empty();
      hangs += o->longest_frame_ms > kFrameHangMs;
      longest = std::max(longest, o->longest_frame_ms);
      if (o->answered)
        times.push_back(o->recovery_ms);
    }
    std::printf("| %s | %zu | %d | %d | %.0f | %.0f | %.1f | %d | %d |\n", name, of.size(),
                answered, retried, median(times),
                times.empty() ? 0 : *std::max_element(times.begin(), times.end()), longest, lost,
                hangs);
  };
  std::vector<const Outcome*> all;
  for (Fault fault : kFaults) {
    std::vector<const Outcome*> of;
    for (const Outcome& o : outcomes)
      if (o.fault == fault)
        of.push_back(&o);
    row(fault_name(fault), of);
  }
  for (const Outcome& o : outcomes)
    all.push_back(&o);
  row("**all**", all);
}

// The faults in turn, each kind during each activity in turn. The illegal-address runs come
// last: on the GPU machine a kernel's MMU fault also disturbs other contexts of the same GPU
// (the next workers' first calls fail, the GUI's own EGL frames stall), so placed among the
// others it would be counted against them.
std::vector<std::pair<Fault, Activity>> schedule(int faults, const std::string& kinds) {
  const int illegal = kinds == "illegal"  ? faults
                      : kinds == "others" ? 0
                                          : faults / static_cast<int>(std::size(kFaults));
  const int others = faults - illegal;
  std::vector<std::pair<Fault, Activity>> plan;
  for (int i = 0; i < others; ++i)
    plan.emplace_back(kFaults[i % (std::size(kFaults) - 1)],
                      static_cast<Activity>((i / (std::size(kFaults) - 1)) % 3));
  for (int i = 0; i < illegal; ++i)
    plan.emplace_back(Fault::illegal, static_cast<Activity>(i % 3));
  return plan;
}

// A crash of this process (the GUI's side) prints where it happened before it ends.
void on_crash(int signal) {
  void* frames[64];
  const int depth = backtrace(frames, 64);
  const char* what = signal == SIGABRT ? "\nGUI CRASH: SIGABRT\n" : "\nGUI CRASH: a signal\n";
  write(STDERR_FILENO, what, std::strlen(what));
  backtrace_symbols_fd(frames, depth, STDERR_FILENO);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

int run(const std::string& proxy, const std::string& fault_worker, int faults,
        const std::string& kinds) {
  const fs::path control =
      fs::temp_directory_path() / ("warplens-faults-" + std::to_string(getpid()));
  fs::create_directories(control);
  for (int signal : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL})
    std::signal(signal, on_crash);
  App app = make_app("vec_add/scalar", "h100");
  WorkerSourceOptions options;
  options.client.command = proxy + " " + control.string() + " -- " + fault_worker;
  WorkerSource source(options);
  app.source = &source;
  HeadlessGui gui(app, 1440, 900);
  std::printf("renderer: %s (%s)\n", gui.renderer().c_str(), gui.display_kind().c_str());

  Bench bench(app, source, gui, control);
  if (!bench.prepare()) {
    std::printf("could not prepare: %s %s\n", app.results.last_error.c_str(),
                app.sweep.problem.c_str());
    return 1;
  }
  bench.remember_state();
  std::printf("| # | fault | during | answered | F5 again | recovery (ms) | longest frame (ms) | "
              "state lost | error shown |\n|---|---|---|---|---|---|---|---|---|\n");
  std::vector<Outcome> outcomes;
  const std::vector<std::pair<Fault, Activity>> plan = schedule(faults, kinds);
  for (int i = 0; i < faults; ++i) {
    const auto [fault, activity] = plan[static_cast<std::size_t>(i)];
    outcomes.push_back(bench.one(fault, activity));
    const Outcome& o = outcomes.back();
    std::printf("| %d | %s | %s | %s | %d | %.0f | %.1f | %s | %s |\n", i + 1, fault_name(fault),
                activity_name(activity), o.answered ? "yes" : "NO", o.retries, o.recovery_ms,
                o.longest_frame_ms, o.lost.empty() ? "none" : o.lost.c_str(), o.error_seen.c_str());
    std::fflush(stdout);
  }
  print_summary(outcomes);
  const WorkerSnapshot last = source.snapshot();
  std::printf("\nworkers started after the first: %d; the GUI's OpenGL context reset by the GPU "
              "and made anew: %d times; GUI crashes: 0 (this process ran all %d faults)\n",
              last.restarts, gui.context_resets(), faults);
  std::error_code ignored;
  fs::remove_all(control, ignored);
  return 0;
}

} // namespace
} // namespace wl::viz

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: wl_worker_faults PROXY FAULT_WORKER [FAULTS [all|others|illegal]]\n");
    return 2;
  }
  try {
    return wl::viz::run(argv[1], argv[2], argc > 3 ? std::stoi(argv[3]) : 100,
                        argc > 4 ? argv[4] : "all");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wl_worker_faults: %s\n", e.what());
    return 1;
  }
}
