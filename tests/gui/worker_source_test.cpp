// The GUI's GPU mode through a real or fake worker process: no GPU turns it to model mode with the
// reason, and a worker killed mid-request is replaced with the request sent again and the user's
// choices kept.

#include "../unit/test_support.h"
#include "registry.h"
#include "workflows/worker_source.h"

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace wl::viz {
namespace {

using namespace std::chrono_literals;

using wl::test::contains;
using wl::test::eventually;

WorkerSourceOptions real_worker() {
  WorkerSourceOptions options;
  options.client.command = std::string(WARPLENS_BINARY) + " worker";
  return options;
}

TEST(WorkerSource, WithNoGpuItTurnsToModelModeAndSaysWhy) {
  WL_SKIP_WITHOUT_ENGINE();
  WorkerSource source(real_worker());
  App app = make_app("vec_add/scalar", "h100");
  app.source = &source;
  ASSERT_TRUE(app.run());
  ASSERT_TRUE(eventually([&] {
    app.poll_source();
    return !source.busy();
  })) << source.mode();
  ASSERT_TRUE(app.results.latest) << app.results.last_error;
  if (app.results.latest->timing && app.results.latest->recorded_on.empty())
    GTEST_SKIP() << "this machine has a GPU: " << source.mode();
  EXPECT_TRUE(contains(source.mode(), "model mode")) << source.mode();
  EXPECT_TRUE(contains(source.mode(), "the worker's machine has no usable GPU")) << source.mode();
  EXPECT_EQ(app.results.latest->kernel_id, "vec_add/scalar");
  EXPECT_TRUE(app.results.last_error.empty()) << app.results.last_error;
}

TEST(WorkerSource, AWorkerKilledMidRequestIsReplacedAndTheRequestSentAgain) {
  WorkerSourceOptions options; // a fake worker: greets, then never answers
  options.client.command =
      "printf '{\"id\":0,\"type\":\"hello\",\"protocol\":" + std::to_string(kProtocolVersion) +
      ",\"catalog\":\"" + catalog_version() + "\"}\\n'; exec sleep 100";
  WorkerSource source(options);
  App app = make_app("matmul/tiled", "h100");
  app.source = &source;
  ASSERT_TRUE(app.run());
  ASSERT_TRUE(eventually([&] { return source.snapshot().status == WorkerStatus::busy; }))
      << source.mode();
  ASSERT_EQ(kill(source.snapshot().pid, SIGKILL), 0);

  ASSERT_TRUE(eventually([&] {
    app.poll_source();
    return !app.results.last_error.empty();
  }));
  EXPECT_TRUE(contains(app.results.last_error, "killed by signal 9")) << app.results.last_error;
  EXPECT_TRUE(contains(app.results.last_error, "measuring again on a new worker"))
      << app.results.last_error;
  EXPECT_TRUE(source.busy()) << "the request went to the new worker";
  EXPECT_TRUE(eventually([&] {
    const WorkerSnapshot s = source.snapshot();
    return s.restarts == 1 && s.status == WorkerStatus::busy;
  })) << source.mode();
  EXPECT_TRUE(contains(source.mode(), "restarted 1 time")) << source.mode();
  EXPECT_EQ(app.choices.kernel_id, "matmul/tiled"); // the user's choices stay
}

// vec_add/scalar with a sweep over these block x sides sent to `source`.
App sweeping(WorkerSource& source, const char* x_sides) {
  App app = make_app("vec_add/scalar", "h100");
  app.source = &source;
  std::snprintf(app.sweep.x_sides.data(), app.sweep.x_sides.size(), "%s", x_sides);
  app.measure_sweep();
  return app;
}

TEST(WorkerSource, ASweepIsMeasuredByTheWorkerOrModelledWhenItHasNoGpu) {
  WL_SKIP_WITHOUT_ENGINE();
  WorkerSource source(real_worker());
  App app = sweeping(source, "64,2048");
  EXPECT_TRUE(app.sweep.running);
  ASSERT_TRUE(eventually(
      [&] {
        app.poll_source();
        return !app.sweep.running;
      },
      std::chrono::seconds(60)))
      << source.mode();
  ASSERT_TRUE(app.sweep.data) << app.sweep.problem;
  ASSERT_EQ(app.sweep.data->points.size(), 2u);
  EXPECT_TRUE(app.sweep.data->points[0].result);
  EXPECT_NE(app.sweep.data->points[1].refused.find("2048"), std::string::npos)
      << app.sweep.data->points[1].refused;
  const bool measured = app.sweep.data->points[0].result->timing.has_value();
  EXPECT_EQ(app.sweep.data->origin.rfind(measured ? "measured on" : "model, h100", 0), 0u)
      << app.sweep.data->origin;
}

// A stand-in for a worker: greets, reads the first request and answers it with `lines` (each
// kept in a file of its own), a second apart, then waits.
WorkerSourceOptions answering_with(const std::string& name, const std::vector<std::string>& lines) {
  std::string command =
      "printf '{\"id\":0,\"type\":\"hello\",\"protocol\":" + std::to_string(kProtocolVersion) +
      ",\"catalog\":\"" + catalog_version() + "\"}\\n'; read -r request";
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::filesystem::path file =
        std::filesystem::temp_directory_path() /
        ("warplens-answer-" + std::to_string(getpid()) + "-" + name + std::to_string(i));
    std::ofstream(file) << lines[i] << "\n";
    command += (i > 0 ? "; sleep 1; cat '" : "; cat '") + file.string() + "'; rm -f '" +
               file.string() + "'";
  }
  WorkerSourceOptions options;
  options.client.command = command + "; exec sleep 100";
  return options;
}

// The recorded H100 run of vec_add/scalar at its default launch.
nlohmann::json recorded_run() {
  return nlohmann::json::parse(
      std::ifstream(std::string(WARPLENS_SOURCE_ASSETS) + "/recordings/h100.json"))["runs"][0];
}

// What the GUI says of a wrong worker's answer to its first Run of `kernel`: the refusal on
// screen, and whether anything of the answer was shown as measured.
struct Refusal {
  std::string error;
  bool shown_measured = false;
};
Refusal first_run_refusal(WorkerSource& source, const std::string& kernel) {
  App app = make_app(kernel, "h100");
  app.source = &source;
  EXPECT_TRUE(app.run());
  EXPECT_TRUE(eventually([&] {
    app.poll_source();
    return !app.results.last_error.empty();
  })) << source.mode();
  return {app.results.last_error, app.results.latest && app.results.latest->timing};
}

// A recorded H100 run of vec_add/scalar answers a run of vec_add/vec4: refused with the reason,
// and nothing of it shown as the measurement.
TEST(WorkerSource, AnAnswerOfAnotherKernelIsRefusedWithTheReason) {
  WorkerSource source(answering_with(
      "run", {nlohmann::json{{"id", 1}, {"type", "result"}, {"result", recorded_run()}}.dump()}));
  const Refusal r = first_run_refusal(source, "vec_add/vec4");
  EXPECT_EQ(r.error, "the worker's answer was refused: kernel vec_add/scalar where "
                     "vec_add/vec4 was asked");
  EXPECT_FALSE(r.shown_measured) << "the refused answer was shown";
}

// A worker that answers a sweep of 3 shapes with 6 points: the Sweep panel says what it sent and
// what was asked.
// A Run's timed part comes before its counters: the timing is on screen at once, the Counters
// panel says the counters are being measured, and the whole result then takes its place and
// joins the history once.
TEST(WorkerSource, ARunsTimingIsShownBeforeItsCountersAndTheWholeResultFollows) {
  nlohmann::json part = recorded_run();
  part.erase("counters");
  part.erase("site_counts");
  WorkerSource source(answering_with(
      "timed",
      {nlohmann::json{{"id", 1}, {"type", "progress"}, {"phase", "counters"}, {"result", part}}
           .dump(),
       nlohmann::json{{"id", 1}, {"type", "result"}, {"result", recorded_run()}}.dump()}));
  App app = make_app("vec_add/scalar", "h100");
  app.source = &source;
  ASSERT_TRUE(app.run());
  ASSERT_TRUE(eventually([&] {
    app.poll_source();
    return app.results.latest.has_value() || !app.results.last_error.empty();
  })) << source.mode();
  ASSERT_TRUE(app.results.latest) << app.results.last_error;
  EXPECT_TRUE(app.results.latest->timing);
  EXPECT_FALSE(app.results.latest->counters);
  EXPECT_TRUE(app.results.latest_counting);
  EXPECT_TRUE(source.busy()) << "the whole result is still to come";
  EXPECT_TRUE(app.results.history.empty()) << "a timed part is no run of the history";
  EXPECT_TRUE(contains(app.messages.status, "now measuring its counters")) << app.messages.status;
  ASSERT_TRUE(eventually([&] {
    app.poll_source();
    return app.results.latest && app.results.latest->counters;
  })) << source.mode();
  EXPECT_FALSE(app.results.latest_counting);
  EXPECT_EQ(app.results.history.size(), 1u);
  EXPECT_TRUE(contains(app.messages.status, "Run measured: median")) << app.messages.status;
}

// A timed part with counters in it is refused as a lie: only the answer brings them.
TEST(WorkerSource, ATimedPartWithCountersIsRefused) {
  WorkerSource source(answering_with(
      "lying",
      {nlohmann::json{
          {"id", 1}, {"type", "progress"}, {"phase", "counters"}, {"result", recorded_run()}}
           .dump()}));
  const Refusal r = first_run_refusal(source, "vec_add/scalar");
  EXPECT_TRUE(contains(r.error, "its timed part: counters, per-site figures, stall samples or "
                                "energy, which only the answer may bring"))
      << r.error;
  EXPECT_FALSE(r.shown_measured);
}

TEST(WorkerSource, ASweepOfOtherPointsIsRefusedSayingWhatWasSentAndAsked) {
  std::string points;
  for (int i = 0; i < 6; ++i)
    points +=
        std::string(i ? "," : "") + R"({"block":[64,1,1],"params":{"n":16777216},"refused":"x"})";
  WorkerSource source(
      answering_with("sweep", {R"({"id":1,"type":"sweep","points":[)" + points + "]}"}));
  App app = sweeping(source, "64,128,256");
  ASSERT_TRUE(eventually([&] {
    app.poll_source();
    return !app.sweep.running;
  })) << source.mode();
  EXPECT_FALSE(app.sweep.data);
  EXPECT_EQ(app.sweep.problem,
            "the worker's answer was refused: 6 points where 3 were asked (3 shapes)");
}

TEST(WorkerSource, ASweepCancelledMidWayEndsWithTheReason) {
  WorkerSource source(real_worker());
  App app = sweeping(source, "32:1024:32");
  // The sweep is under way once a shape is done (or the worker said it has no GPU).
  ASSERT_TRUE(eventually(
      [&] {
        app.poll_source();
        return source.sweep_progress().first > 0 || !app.sweep.running;
      },
      std::chrono::seconds(60)));
  if (!app.sweep.running)
    GTEST_SKIP() << "no GPU at the worker: the sweep was modelled at once";
  source.cancel_sweep();
  ASSERT_TRUE(eventually(
      [&] {
        app.poll_source();
        return !app.sweep.running;
      },
      std::chrono::seconds(30)));
  EXPECT_NE(app.sweep.problem.find("cancel"), std::string::npos) << app.sweep.problem;
  EXPECT_FALSE(source.busy());
}

} // namespace
} // namespace wl::viz
