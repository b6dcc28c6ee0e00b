// The worker behind `ssh`, as `--worker "ssh HOST warplens worker"` runs it: an OpenSSH server of
// the tests' own on 127.0.0.1 (local_sshd.sh), a throwaway key, its own port. Its answers equal
// a local worker's (model, run and sweep; on a machine without a GPU both say so alike), a killed
// connection is replaced like a killed worker, and a host key or password prompt ends at once
// with ssh's own line instead of waiting on a terminal no one watches.

#include "../unit/test_support.h"
#include "front_end/front_end.h"
#include "protocol/run_result_json.h"
#include "protocol/worker_client.h"
#include "workflows/worker_source.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace wl {
namespace {

using namespace std::chrono_literals;
using test::contains;

const std::string kSshd = std::string(WARPLENS_SOURCE_TESTS) + "/remote/local_sshd.sh";

// One server for the whole suite: starting one takes a second (key generation).
class Ssh : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    s_dir = std::filesystem::temp_directory_path() / ("warplens_sshd_" + std::to_string(getpid()));
    FILE* out = popen((kSshd + " start " + s_dir.string() + " 2>&1").c_str(), "r");
    char line[512] = {};
    s_started = out && std::fgets(line, sizeof line, out);
    s_said = line;
    s_started = (out ? pclose(out) : -1) == 0 && s_started;
  }
  static void TearDownTestSuite() {
    std::system((kSshd + " stop " + s_dir.string()).c_str());
    std::filesystem::remove_all(s_dir);
  }
  void SetUp() override { ASSERT_TRUE(s_started) << "local_sshd.sh start: " << s_said; }

  // `ssh HOST warplens worker`, HOST known by its key; `options` go before the host.
  static std::string ssh_worker(const std::string& options = "") {
    return "ssh -F " + (s_dir / "ssh_config").string() + " " + options + " warplens-test " +
           WARPLENS_BINARY + " worker";
  }
  static std::filesystem::path s_dir;
  static bool s_started;
  static std::string s_said;
};
std::filesystem::path Ssh::s_dir;
bool Ssh::s_started = false;
std::string Ssh::s_said;

WorkerRequest model_request() {
  WorkerRequest r;
  r.type = RequestType::model;
  r.kernel_id = "transpose/smem_padded";
  r.block = BlockShape{32, 8, 1};
  return r;
}

WorkerRequest run_request() {
  WorkerRequest r;
  r.type = RequestType::run;
  r.kernel_id = "vec_add/scalar";
  r.engine.timing.max_seconds = 0.05;
  r.engine.metrics = "global_load_sectors,global_store_sectors";
  return r;
}

std::shared_ptr<const WorkerAnswer> answer_of(WorkerClient& client, const WorkerRequest& r) {
  return client.wait_for(client.submit(r), 60s);
}

// A result's JSON without what differs from run to run on the same machine: wall times.
nlohmann::json without_times(nlohmann::json j) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end();)
      if (it.key().find("seconds") != std::string::npos || it.key() == "timing")
        it = j.erase(it);
      else
        *it = without_times(*it), ++it;
  } else if (j.is_array()) {
    for (auto& item : j)
      item = without_times(item);
  }
  return j;
}

TEST_F(Ssh, AModelAnswerEqualsALocalWorkersAndTheHelloNamesTheRemotePid) {
  WL_SKIP_WITHOUT_ENGINE();
  WorkerClient remote({.command = ssh_worker()});
  WorkerClient local({.command = std::string(WARPLENS_BINARY) + " worker"});
  const auto there = answer_of(remote, model_request());
  const auto here = answer_of(local, model_request());
  ASSERT_TRUE(there && there->ok()) << (there ? there->error : remote.latest().last_failure);
  ASSERT_TRUE(here && here->ok());
  EXPECT_EQ(without_times(run_result_to_json(*there->result)),
            without_times(run_result_to_json(*here->result)));
  EXPECT_GT(remote.latest().worker_pid, 0);
  EXPECT_NE(remote.latest().worker_pid, remote.latest().pid) << "ssh here, the worker there";
}

TEST_F(Ssh, ARunAndASweepGetWhatALocalWorkerGets) {
  WL_SKIP_WITHOUT_ENGINE();
  WorkerClient remote({.command = ssh_worker()});
  WorkerClient local({.command = std::string(WARPLENS_BINARY) + " worker"});
  const auto there = answer_of(remote, run_request());
  const auto here = answer_of(local, run_request());
  ASSERT_TRUE(there && here);
  WorkerRequest sweep = run_request();
  sweep.type = RequestType::sweep;
  sweep.shapes = {{128, 1, 1}, {256, 1, 1}};
  const auto swept_there = answer_of(remote, sweep);
  const auto swept_here = answer_of(local, sweep);
  ASSERT_TRUE(swept_there && swept_here);
  if (!here->ok()) { // no GPU here: the same refusal, both ways
    EXPECT_TRUE(here->no_gpu) << here->error;
    EXPECT_TRUE(there->no_gpu) << there->error;
    EXPECT_EQ(there->error, here->error);
    EXPECT_EQ(swept_there->error, swept_here->error);
    return;
  }
  ASSERT_TRUE(there->ok()) << there->error;
  ASSERT_TRUE(there->result->verification && there->result->verification->passed);
  for (const char* key : {"global_load_sectors", "global_store_sectors"})
    EXPECT_EQ(there->result->counters->find(key)->value, here->result->counters->find(key)->value)
        << key;
  ASSERT_TRUE(swept_there->ok()) << swept_there->error;
  ASSERT_EQ(swept_there->sweep->size(), 2u);
  for (std::size_t i = 0; i < 2; ++i)
    EXPECT_EQ((*swept_there->sweep)[i].result->counters->find("global_load_sectors")->value,
              (*swept_here->sweep)[i].result->counters->find("global_load_sectors")->value);
}

TEST_F(Ssh, AKilledConnectionIsReplacedLikeAKilledWorker) {
  WL_SKIP_WITHOUT_ENGINE();
  WorkerClient remote({.command = ssh_worker()});
  ASSERT_TRUE(answer_of(remote, model_request())->ok());
  // The shell the client started and the ssh under it, a process group of their own: the
  // connection ends as a dropped network would end it, and the worker there sees its input end.
  const int started = remote.latest().pid;
  ASSERT_GT(started, 0);
  const int old_worker = remote.latest().worker_pid;
  ::kill(-started, SIGKILL);
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (remote.latest().last_failure.empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(contains(remote.latest().last_failure, "killed by signal 9"))
      << remote.latest().last_failure;
  const auto next = answer_of(remote, model_request());
  ASSERT_TRUE(next && next->ok()) << (next ? next->error : "") << remote.latest().last_failure;
  EXPECT_EQ(remote.latest().restarts, 1);
  EXPECT_NE(remote.latest().worker_pid, old_worker);
}

// A client answer that ends within seconds, with ssh's reason, not the 5 s hello watchdog's.
void expect_quick_failure(const std::string& command, const std::string& reason) {
  const auto start = std::chrono::steady_clock::now();
  WorkerClient client({.command = command});
  const auto answer = answer_of(client, model_request());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(answer);
  EXPECT_FALSE(answer->ok());
  const std::string why = answer->error + " / " + client.latest().last_failure;
  EXPECT_TRUE(contains(why, reason)) << why;
  EXPECT_FALSE(contains(why, "no hello within")) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  EXPECT_LT(seconds, 15) << why;
}

TEST_F(Ssh, AnUnknownHostKeyFailsAtOnceWithSshsLine) {
  const std::filesystem::path empty = s_dir / "no_known_hosts";
  std::ofstream{empty};
  expect_quick_failure(
      ssh_worker("-o UserKnownHostsFile=" + empty.string() + " -o StrictHostKeyChecking=ask"),
      "Host key verification failed");
}

TEST_F(Ssh, APasswordPromptFailsAtOnceWithSshsLine) {
  expect_quick_failure(
      ssh_worker("-o PubkeyAuthentication=no -o PreferredAuthentications=password"),
      "Permission denied");
}

// The GUI's Run with --worker "ssh ...": the status line names the worker behind ssh (or model
// mode, where its machine has no GPU) and the figures arrive.
TEST_F(Ssh, TheGuisRunGoesThroughIt) {
  WL_SKIP_WITHOUT_ENGINE();
  viz::App app = viz::make_app("vec_add/scalar", "h100");
  viz::WorkerSourceOptions options;
  options.client.command = ssh_worker();
  viz::WorkerSource source(options);
  app.source = &source;
  viz::HeadlessGui gui(app, 1280, 720);
  app.run();
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline &&
         (source.busy() || source.mode().find("starting") != std::string::npos))
    gui.next_frame();
  gui.next_frame();
  const std::string mode = source.mode();
  if (contains(mode, "GPU mode"))
    EXPECT_TRUE(contains(mode, "GPU mode: worker pid") && contains(mode, "(ssh -F")) << mode;
  else
    EXPECT_TRUE(contains(mode, "the worker's machine has no usable GPU")) << mode;
  ASSERT_TRUE(app.results.latest) << app.results.last_error;
}

} // namespace
} // namespace wl
