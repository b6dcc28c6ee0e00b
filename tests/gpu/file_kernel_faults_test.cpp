// A person's kernel cannot hurt the session, and is measured line by line: a kernel that never
// finishes stops its process past the time limit, naming the launch; an illegal address ends the
// worker naming the launch, and the next request gets a new one; the per-line pass places the
// SASS instructions on the file's own lines, their sums equal to the launch counters.

#include "../unit/test_support.h"
#include "engine/engine.h"
#include "engine/launch_watchdog.h"
#include "gpu_test_support.h"
#include "kernel_file/file_kernel.h"
#include "model/kernel_request.h"
#include "model/site_counts.h"
#include "protocol/worker_client.h"

#include <chrono>
#include <fstream>

#include <gtest/gtest.h>
#include <unistd.h>

namespace wl {
namespace {

using namespace std::chrono_literals;
using test::contains;
using test::have_gpu;

const std::string kWorkerCommand = std::string(WARPLENS_BINARY) + " worker";

// Spins until a flag no one sets: it never ends.
const char* const kSpin = R"(// @warplens kernel spin
// @warplens size n = 1024
// @warplens arg flag: in int[1] zeros
// @warplens arg out: out int[n]
// @warplens grid ceil_div(n, block.x)
// @warplens check none
__global__ void spin(const int* flag, int* out) {
  while (*(const volatile int*)flag == 0) {
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}
)";

// Writes a terabyte past its buffer.
const char* const kFar = R"(// @warplens kernel far
// @warplens size n = 1024
// @warplens arg out: out int[n]
// @warplens grid ceil_div(n, block.x)
// @warplens check none
__global__ void far(int* out) {
  out[blockIdx.x * blockDim.x + threadIdx.x + (1ll << 40)] = 1;
}
)";

WorkerRequest run_request(const std::string& kernel_id, double limit) {
  WorkerRequest r;
  r.type = RequestType::run;
  r.kernel_id = kernel_id;
  r.engine.timing.max_seconds = 0.05;
  r.engine.kernel_time_limit = limit;
  return r;
}

std::filesystem::path example(const std::string& name) {
  return std::filesystem::path(WARPLENS_SOURCE_ASSETS).parent_path() / "examples" / name;
}

TEST(FileKernelFaults, AKernelThatNeverEndsStopsTheCommandPastItsLimitNamingTheLaunch) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  const std::filesystem::path spin = test::written("warplens_gpu_faults", "spin.cu", kSpin);
  const auto start = std::chrono::steady_clock::now();
  const test::CommandResult r =
      test::run_warplens("run " + spin.string() + " --kernel-time-limit 1");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, kExitKernelOverran) << r.out;
  EXPECT_TRUE(contains(r.out, "spin/spin, grid 4, block 256: the kernel did not finish within "
                              "its 1 s limit"))
      << r.out;
  EXPECT_LT(seconds, 8) << "the limit, NVRTC and the context, not the default 10 s";
}

TEST(FileKernelFaults, AKernelThatNeverEndsEndsItsWorkerWhichTheNextRequestReplaces) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  const std::string spin =
      add_kernel_file(test::written("warplens_gpu_faults", "spin.cu", kSpin).string());
  const std::string saxpy = add_kernel_file(example("saxpy.cu").string());
  WorkerClient client({.command = kWorkerCommand});
  const auto stuck = client.wait_for(client.submit(run_request(spin, 1)), 30s);
  ASSERT_TRUE(stuck);
  EXPECT_FALSE(stuck->ok());
  EXPECT_TRUE(contains(stuck->error, "did not finish within its 1 s limit")) << stuck->error;
  EXPECT_TRUE(contains(stuck->error, "the next request starts a new worker")) << stuck->error;
  EXPECT_FALSE(stuck->ran_past_budget) << "the worker stopped itself, before the client's watchdog";
  const int old_pid = client.latest().worker_pid;

  const auto next = client.wait_for(client.submit(run_request(saxpy, 10)), 60s);
  ASSERT_TRUE(next && next->ok()) << (next ? next->error : client.latest().last_failure);
  ASSERT_TRUE(next->result->verification);
  EXPECT_TRUE(next->result->verification->passed);
  EXPECT_NE(client.latest().worker_pid, old_pid);
}

TEST(FileKernelFaults, AnIllegalAddressEndsTheWorkerNamingTheLaunchAndTheNextRequestRuns) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  const std::string far =
      add_kernel_file(test::written("warplens_gpu_faults", "far.cu", kFar).string());
  const std::string saxpy = add_kernel_file(example("saxpy.cu").string());
  WorkerClient client({.command = kWorkerCommand});
  const auto faulted = client.wait_for(client.submit(run_request(far, 10)), 60s);
  ASSERT_TRUE(faulted);
  EXPECT_FALSE(faulted->ok());
  EXPECT_TRUE(faulted->fatal) << faulted->error;
  EXPECT_TRUE(contains(faulted->error, "far/far, grid 4, block 256: ")) << faulted->error;
  EXPECT_TRUE(contains(faulted->error, "illegal")) << faulted->error;

  const auto next = client.wait_for(client.submit(run_request(saxpy, 10)), 60s);
  ASSERT_TRUE(next && next->ok()) << (next ? next->error : client.latest().last_failure);
  EXPECT_TRUE(next->result->verification && next->result->verification->passed);
}

// saxpy's line 18, y[i] = a * x[i] + y[i], loads x and y and stores y: three global
// instructions of n / 32 requests each, every request four sectors (128 bytes).
TEST(FileKernelLines, EachInstructionStandsOnItsLineOfTheFileAndTheSumsEqualTheCounters) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  const KernelRequest request =
      resolve_kernel_request(add_kernel_file(example("saxpy.cu").string()), {}, "", "");
  EngineOptions options;
  options.timing.max_seconds = 0.05;
  options.metrics = "default";
  options.per_site = true;
  const RunResult r = run_kernel(request, options);
  ASSERT_TRUE(r.site_counts);
  const SiteCounts& counts = *r.site_counts;
  ASSERT_TRUE(counts.available) << counts.reason;
  EXPECT_EQ(counts.file, "saxpy.cu");
  EXPECT_TRUE(counts.unclaimed.empty());
  const std::vector<LineMeasurement> lines = measured_lines(counts);
  const auto line = [&](int number) {
    const auto found = std::find_if(lines.begin(), lines.end(),
                                    [&](const LineMeasurement& l) { return l.line == number; });
    return found == lines.end() ? LineMeasurement{} : *found;
  };
  const double requests = (1 << 24) / 32;
  EXPECT_EQ(line(18).global_requests, 3 * requests);
  EXPECT_EQ(line(18).sectors, 4 * 3 * requests);
  EXPECT_EQ(line(18).memory.size(), 3u);
  EXPECT_GT(line(16).issued, 0) << "the index arithmetic runs on its own line";
  EXPECT_EQ(line(16).global_requests, 0);
  for (const LineMeasurement& l : lines)
    EXPECT_TRUE(l.line >= 15 && l.line <= 19) << "saxpy's lines, not its reference's: " << l.line;
  ASSERT_TRUE(r.counters && r.counters->available);
  const double launch_sectors = r.counters->find("global_load_sectors")->value +
                                r.counters->find("global_store_sectors")->value;
  EXPECT_EQ(counts.global_sectors, launch_sectors);
}

} // namespace
} // namespace wl
