// A person's kernel file in the GUI with Live on and a real worker, headless (EGL), for the GPU
// machine:
//   wl_live_file WARPLENS FILE.cu
// saves a changed copy of FILE 20 times (its kernel's body alternates between two forms, and a
// comment counts the saves, so each save is new text) and reports, per save, how long from the
// file's write to the new measured figures on screen, split into: the watch seeing the save
// (detect), reading and compiling it here (compile), the worker compiling, loading and measuring
// it (worker: from the request to its answer), and the frame that shows it (draw). Prints a
// markdown table and the median and worst.

#include "front_end/front_end.h"
#include "kernel_file/file_kernel.h"
#include "workflows/worker_source.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace wl::viz {
namespace {

using Clock = std::chrono::steady_clock;
double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty()      ? 0
         : v.size() % 2 ? v[v.size() / 2]
                        : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The text of save `i`: the first statement ending in ";" inside the first kernel's body written
// as itself or with a no-op added (alternating), and a comment that counts the saves.
std::string save_text(const std::string& original, int i) {
  std::string text = original + "\n// save " + std::to_string(i) + "\n";
  if (i % 2) {
    const std::size_t body = text.find("__global__");
    const std::size_t brace = text.find('{', body);
    if (brace != std::string::npos)
      text.insert(brace + 1, "\n  __syncwarp();");
  }
  return text;
}

struct Split {
  double detect = 0, compile = 0, worker = 0, draw = 0, total = 0;
};

int run(const std::string& warplens, const std::string& original_path) {
  const std::string original = read_text(original_path);
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / std::filesystem::path(original_path).filename();
  { std::ofstream(file) << original; }
  App app = make_app("vec_add/scalar", "h100");
  WorkerSourceOptions options;
  options.client.command = warplens + " worker";
  WorkerSource source(options);
  app.source = &source;
  HeadlessGui gui(app, 1440, 900);
  if (!app.open_kernel_file(file.string())) {
    std::printf("cannot open: %s\n", app.file.open_problem.c_str());
    return 1;
  }
  app.run();
  const auto first = Clock::now();
  while (!(app.results.latest && app.results.latest->timing && !source.busy()) &&
         ms_between(first, Clock::now()) < 60000)
    gui.next_frame();
  if (!app.results.latest || !app.results.latest->timing) {
    std::printf("no first measurement: %s\n", app.results.last_error.c_str());
    return 1;
  }
  std::printf("renderer: %s; first Run shown after %.0f ms; %s\n", gui.renderer().c_str(),
              ms_between(first, Clock::now()), source.mode().c_str());
  app.choices.live = true;
  std::printf("\n| save | detect (ms) | compile here (ms) | worker (ms) | draw (ms) | total (ms) | "
              "median time (ms) |\n|---|---|---|---|---|---|---|\n");
  std::vector<double> totals;
  for (int i = 1; i <= 20; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200)); // a person between saves
    const std::string hash = app.file.hash;
    const std::size_t history = app.results.history.size();
    const auto written = Clock::now();
    { std::ofstream(file) << save_text(original, i); }
    Split s;
    Clock::time_point reloaded{}, answered{};
    for (;;) {
      const auto frame = Clock::now();
      gui.next_frame();
      if (reloaded == Clock::time_point{} && app.file.hash != hash) {
        reloaded = Clock::now();
        s.compile = app.file.last_reload_ms;
        s.detect = ms_between(written, frame);
      }
      if (reloaded != Clock::time_point{} && app.results.history.size() > history &&
          app.results.latest && app.results.latest->timing) {
        answered = frame; // the answer was taken at this frame's start
        s.worker = ms_between(reloaded, answered);
        s.draw = ms_between(answered, Clock::now());
        break;
      }
      if (!app.file.problem.empty() || ms_between(written, Clock::now()) > 10000) {
        std::printf("save %d: no new figures: %s %s\n", i, app.file.problem.c_str(),
                    app.results.last_error.c_str());
        return 1;
      }
    }
    s.total = ms_between(written, Clock::now());
    totals.push_back(s.total);
    std::printf("| %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.4f |\n", i, s.detect, s.compile,
                s.worker, s.draw, s.total, app.results.latest->timing->median_time);
  }
  std::printf("\nfrom the file's write to new measured figures on screen: median %.1f ms, worst "
              "%.1f ms over %zu saves\n",
              median(totals), *std::max_element(totals.begin(), totals.end()), totals.size());
  return 0;
}

} // namespace
} // namespace wl::viz

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: wl_live_file WARPLENS FILE.cu\n");
    return 2;
  }
  try {
    return wl::viz::run(argv[1], argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wl_live_file: %s\n", e.what());
    return 1;
  }
}
