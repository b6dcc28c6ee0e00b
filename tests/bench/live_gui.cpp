// The GUI in live mode against a real worker, headless (EGL), for the GPU machine:
//   wl_live_gui WARPLENS [KERNEL]
// changes the block shape of KERNEL (vec_add/scalar) 20 times in live mode and reports, per
// change, how long until the panels show the new measurement and the longest frame meanwhile;
// then kills the worker during a full Run and reports how long until a new worker answers, and
// that the user's choices and history survived; last, a warm sweep: the Sweep panel's Measure
// sweep of its first sides (32 to 1024 threads in steps of 32) with the default counters, on the
// worker already up, from the request to the last point on screen. Prints markdown tables.

#include "front_end/front_end.h"
#include "workflows/worker_source.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace wl::viz {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

struct Frames {
  HeadlessGui& gui;
  double longest_ms = 0;
  FrameTimes longest_split = {}; // where the longest frame's time went
  int count = 0;
  void one() {
    const auto start = Clock::now();
    gui.next_frame();
    const double took = ms_since(start);
    if (took > longest_ms) {
      longest_ms = took;
      longest_split = gui.last_frame_times();
    }
    ++count;
  }
};

std::string split_text(const FrameTimes& t) {
  char text[96];
  std::snprintf(text, sizeof text, "%.1f / %.1f / %.1f", t.build_ms, t.draw_ms, t.read_ms);
  return text;
}

bool shows(const App& app, const BlockShape& block) {
  return app.results.latest && app.results.latest->launch.block.x == block.x &&
         app.results.latest->launch.block.y == block.y && app.results.latest->timing.has_value();
}

// Frames until `done` holds or `limit_ms` passes; the milliseconds it took, or -1.
template <typename Done> double frames_until(Frames& frames, Done done, double limit_ms) {
  const auto start = Clock::now();
  while (ms_since(start) < limit_ms) {
    frames.one();
    if (done())
      return ms_since(start);
  }
  return -1;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty()      ? 0
         : v.size() % 2 ? v[v.size() / 2]
                        : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Each change of the worker's state as the GUI sees it ("pid/hello pid/phase@ms"), in ms since
// `since`: where a wait's time goes between the client, the worker's start and its phases.
struct Timeline {
  WorkerSource& source;
  Clock::time_point since;
  std::string text = {}, last = {};
  void note() {
    static const char* const status_names[] = {"starting", "ready", "busy", "restarting", "failed"};
    const WorkerSnapshot s = source.snapshot();
    const std::string state = std::to_string(s.pid) + "/" + std::to_string(s.worker_pid) + "/" +
                              status_names[static_cast<int>(s.status)] + "/" + s.phase +
                              (s.timed_part ? "+part" : "");
    if (state != last)
      text += " " + state + "@" + std::to_string(static_cast<int>(ms_since(since)));
    last = state;
  }
};

// Where the latest Run spent its time in the worker, as its result says.
std::string time_spent(const App& app) {
  const auto& r = app.results.latest;
  if (!r || !r->timing)
    return "no measurement";
  char text[160];
  std::snprintf(text, sizeof text, "timing %.0f ms, verification %.0f ms, counters %.0f ms",
                1000 * r->timing->seconds, r->verification ? 1000 * r->verification->seconds : 0,
                r->counters ? 1000 * r->counters->seconds : 0);
  return text;
}

int run(const std::string& warplens, const std::string& kernel) {
  const auto started = Clock::now();
  // As the GUI starts: the worker first, then the App (presets, the bundled recording).
  WorkerSourceOptions options;
  options.client.command = warplens + " worker";
  WorkerSource source(options);
  const double worker_started = ms_since(started);
  App app = make_app(kernel, "h100");
  std::printf("worker started %.0f ms, app made %.0f ms after the start\n", worker_started,
              ms_since(started));
  app.source = &source;
  // As the GUI starts: the first Run is sent before the OpenGL context is made, and pays for the
  // worker's start and the session's set-up (inputs, reference).
  app.run_at_start();
  HeadlessGui gui(app, 1440, 900);
  Frames frames{gui};
  std::printf("renderer: %s (%s), made %.0f ms after the start\n", gui.renderer().c_str(),
              gui.display_kind().c_str(), ms_since(started));
  // The first measured figures: the Run's timed part, before its counters (or the whole Run,
  // where it has no counting pass).
  // Where the first figures' time goes, as the GUI sees it: each change of the worker's state.
  Timeline start_timeline{source, started};
  frames_until(
      frames,
      [&] {
        start_timeline.note();
        return app.results.latest && app.results.latest->timing;
      },
      60000);
  std::printf("worker pid/hello pid/phase@ms after the start:%s\n", start_timeline.text.c_str());
  std::printf("first measured figures shown %.0f ms after the start (main; %s)\n",
              ms_since(started), app.results.latest_counting ? "the timed part" : "the whole Run");
  frames_until(
      frames, [&] { return !source.busy() && app.results.latest; }, 60000);
  std::printf("first full Run shown %.0f ms after the start (main; %s); mode: %s\n",
              ms_since(started), time_spent(app).c_str(), source.mode().c_str());
  if (!app.results.latest || !app.results.latest->timing) {
    std::printf("no measurement: %s\n", app.results.last_error.c_str());
    return 1;
  }

  app.choices.live = true;
  const int sides[] = {64,  96,  128, 160, 192, 224, 256, 288, 320, 384,
                       416, 448, 512, 576, 640, 704, 768, 832, 896, 1024};
  std::vector<double> latencies;
  double longest_frame = 0;
  std::string longest_frame_split;
  std::printf("\n| change | block | shown after (ms) | longest frame (ms) | its build / draw / "
              "read (ms) | frames | median (ms) |\n|---|---|---|---|---|---|---|\n");
  for (int i = 0; i < 20; ++i) {
    const BlockShape block{sides[i], 1, 1};
    frames.longest_ms = 0;
    frames.count = 0;
    app.choices.set_block(block); // what the block editor does on an edit
    const double latency = frames_until(
        frames, [&] { return shows(app, block); }, 5000);
    latencies.push_back(latency < 0 ? 5000 : latency);
    if (frames.longest_ms > longest_frame) {
      longest_frame = frames.longest_ms;
      longest_frame_split = split_text(frames.longest_split);
    }
    std::printf("| %d | %d | %.1f | %.1f | %s | %d | %.4f |\n", i + 1, block.x, latency,
                frames.longest_ms, split_text(frames.longest_split).c_str(), frames.count,
                app.results.latest ? app.results.latest->timing->median_time : 0.0);
  }

  // A full Run, killed mid-way: the client starts a new worker and the request is measured again.
  app.choices.live = false;
  app.choices.set_block({256, 1, 1});
  const std::size_t history = app.results.history.size();
  app.run();
  frames_until(
      frames, [&] { return source.snapshot().phase == "run"; }, 10000);
  const int victim = source.snapshot().worker_pid;
  const auto killed = Clock::now();
  kill(victim, SIGKILL);
  const auto replaced = [&] {
    const WorkerSnapshot s = source.snapshot();
    return s.restarts > 0 && (s.status == WorkerStatus::ready || s.status == WorkerStatus::busy);
  };
  Timeline kill_timeline{source, killed};
  const double ready = frames_until(
      frames,
      [&] {
        kill_timeline.note();
        return replaced();
      },
      10000);
  // Its timing first (the timed part), then the whole Run with its counters.
  const bool timed_again = frames_until(
                               frames,
                               [&] {
                                 kill_timeline.note();
                                 return shows(app, {256, 1, 1});
                               },
                               30000) >= 0;
  const double timed_shown = timed_again ? ms_since(killed) : -1;
  const bool remeasured = frames_until(
                              frames,
                              [&] {
                                kill_timeline.note();
                                return !source.busy() && shows(app, {256, 1, 1});
                              },
                              30000) >= 0;
  const double answered = remeasured ? ms_since(killed) : -1;
  const std::string spent = remeasured ? time_spent(app) : "no result";
  const bool kept = app.choices.kernel_id == kernel && app.block().x == 256 &&
                    app.results.history.size() >= history;
  // The warm sweep, three times: the first may still pay the counter configuration of its list.
  app.choose_sweep_sides();
  std::vector<double> sweeps;
  std::size_t swept_points = 0, counted_points = 0;
  for (int i = 0; i < 3; ++i) {
    const auto sweep_start = Clock::now();
    app.measure_sweep();
    const bool done =
        frames_until(
            frames, [&] { return !app.sweep.running && app.sweep.data.has_value(); }, 60000) >= 0;
    sweeps.push_back(done ? ms_since(sweep_start) : -1);
    swept_points = done ? app.sweep.data->points.size() : 0;
    counted_points = 0;
    if (done)
      for (const SweepPoint& p : app.sweep.data->points)
        counted_points += p.result && p.result->counters && p.result->counters->available;
  }

  std::printf("\n| | median (ms) | max (ms) |\n|---|---|---|\n");
  std::printf("| live change to new measurement shown | %.1f | %.1f |\n", median(latencies),
              *std::max_element(latencies.begin(), latencies.end()));
  std::printf("| longest frame while measuring | | %.1f |\n", longest_frame);
  std::printf("\nthe longest frame: %s ms building / drawing until the GPU finished / reading "
              "its pixels\n",
              longest_frame_split.c_str());
  std::printf("\nworker %d killed during a full Run: new worker ready after %.0f ms; the Run's "
              "timing shown again %.0f ms after the kill; the whole Run measured again and "
              "shown %.0f ms after the kill (%s); choices and history kept: %s; status: %s\n",
              victim, ready, timed_shown, answered, spent.c_str(), kept ? "yes" : "NO",
              source.mode().c_str());
  std::printf("after the kill, pid/hello pid/status/phase@ms:%s\n", kill_timeline.text.c_str());
  std::printf("\nwarm sweep (Measure sweep, %zu shapes, %zu with counters): %.0f, %.0f and %.0f ms "
              "from the request to the last point on screen\n",
              swept_points, counted_points, sweeps[0], sweeps[1], sweeps[2]);
  return 0;
}

} // namespace
} // namespace wl::viz

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: wl_live_gui WARPLENS [KERNEL]\n");
    return 2;
  }
  try {
    return wl::viz::run(argv[1], argc > 2 ? argv[2] : "vec_add/scalar");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wl_live_gui: %s\n", e.what());
    return 1;
  }
}
