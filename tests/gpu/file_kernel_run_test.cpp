// A person's kernel files on the GPU: every example verifies against its own reference kernel on
// several shapes, a wrong kernel is caught naming the element, a description that gets the
// kernel's parameters wrong is refused before any launch, and every element type travels.

#include "base/error.h"
#include "engine/engine.h"
#include "gpu_test_support.h"
#include "kernel_file/file_kernel.h"
#include "model/kernel_request.h"
#include "model/site_counts.h"
#include "registry.h"

#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>
#include <unistd.h>

namespace wl {
namespace {

using test::have_gpu;

EngineOptions quick() {
  EngineOptions options;
  options.timing.warmup_runs = 0;
  options.timing.min_samples = 3;
  options.timing.max_samples = 3;
  options.metrics = "";
  return options;
}

RunResult run_file(const std::string& file, const std::vector<std::string>& params = {},
                   const std::string& block = "") {
  return run_kernel(resolve_kernel_request(add_kernel_file(file), params, "", block), quick());
}

const char* const kSaxpyHead = R"(// @warplens kernel saxpy
// @warplens size n = 100003
// @warplens arg n: int = n
// @warplens arg a: float = 2.5
// @warplens arg x: in float[n] random(-1, 1)
// @warplens arg y: inout float[n] random(-1, 1)
// @warplens grid ceil_div(n, block.x)
// @warplens check saxpy_reference 1e-6
__global__ void saxpy_reference(int n, float a, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}
)";

TEST(FileKernelRun, EveryExampleVerifiesOnSeveralShapes) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  const std::filesystem::path examples =
      std::filesystem::path(WARPLENS_SOURCE_ASSETS).parent_path() / "examples";
  const std::vector<std::pair<std::string, std::vector<std::string>>> runs = {
      {"saxpy.cu", {"", "32", "1024", "96"}},
      {"stencil_2d.cu", {"", "16x16", "32x32", "8x4"}},
      {"histogram.cu", {"", "64", "1024"}},
      {"transpose.cu", {"", "32x32", "32x4"}},
  };
  int passed = 0;
  for (const auto& [file, blocks] : runs)
    for (const std::string& block : blocks) {
      const RunResult r = run_file((examples / file).string(), {}, block);
      ASSERT_TRUE(r.verification) << file;
      EXPECT_TRUE(r.verification->passed)
          << file << " " << block << ": " << r.verification->first_failure;
      EXPECT_NE(r.verification->against.find("_reference, run on the GPU"), std::string::npos);
      EXPECT_EQ(r.kernel_kind, KernelKind::run_time);
      ASSERT_TRUE(r.attributes && r.timing);
      EXPECT_EQ(r.attributes->source, "cudaFuncGetAttributes");
      passed += r.verification->passed;
    }
  // The tunables: another tile and no padding, each its own compile.
  const RunResult small =
      run_file((examples / "transpose.cu").string(), {"TILE=16", "PAD=0"}, "16x8");
  EXPECT_TRUE(small.verification && small.verification->passed);
  EXPECT_EQ(small.attributes->static_shared_bytes, 16 * 16 * 4);
  std::printf("%d example launches verified\n", passed + small.verification->passed);
}

TEST(FileKernelRun, AWrongKernelFailsVerificationNamingTheElement) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  const std::string forgets_y = std::string(kSaxpyHead) + R"(
__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
})";
  const RunResult r =
      run_file(test::written("warplens_gpu_files", "forgets.cu", forgets_y).string());
  ASSERT_TRUE(r.verification);
  EXPECT_TRUE(r.verification->failed());
  EXPECT_GT(r.verification->mismatches, 90000);
  EXPECT_TRUE(r.verification->first_failure.starts_with("y[0]: got "))
      << r.verification->first_failure;

  const std::string skips_last = std::string(kSaxpyHead) + R"(
__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 1) y[i] = a * x[i] + y[i];
})";
  const RunResult last =
      run_file(test::written("warplens_gpu_files", "skips.cu", skips_last).string());
  ASSERT_TRUE(last.verification);
  EXPECT_EQ(last.verification->mismatches, 1);
  EXPECT_TRUE(last.verification->first_failure.starts_with("y[100002]: got "))
      << last.verification->first_failure;
}

TEST(FileKernelRun, AnInoutBufferIsRestoredBeforeEachVerifiedLaunch) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  const std::string saxpy = std::string(kSaxpyHead) + R"(
__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
})";
  const KernelRequest request = resolve_kernel_request(
      add_kernel_file(test::written("warplens_gpu_files", "again.cu", saxpy).string()), {}, "", "");
  KernelSession session(*request.kernel, request.params, quick());
  for (const BlockShape block :
       {BlockShape{128, 1, 1}, BlockShape{256, 1, 1}, BlockShape{64, 1, 1}}) {
    const RunResult r = session.measure(block, false); // each after the last one's timed launches
    ASSERT_TRUE(r.verification);
    EXPECT_TRUE(r.verification->passed) << r.verification->first_failure;
  }
}

// A save that changes only the code keeps the session's buffers and inputs and runs the new code
// (and its reference) on them; one that changes a fill makes a new session.
TEST(FileKernelRun, ASaveOfTheCodeAloneKeepsTheSessionAndRunsTheNewCode) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  const std::string body = R"(
__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
})";
  const std::filesystem::path file =
      test::written("warplens_gpu_files", "edited.cu", std::string(kSaxpyHead) + body);
  SessionCache sessions;
  bool made = false;
  const KernelRequest first = resolve_kernel_request(add_kernel_file(file.string()), {}, "", "");
  KernelSession& session = sessions.get(*first.kernel, first.params, quick(), &made);
  EXPECT_TRUE(made);
  EXPECT_TRUE(session.measure(BlockShape{256, 1, 1}, false).verification->passed);

  std::string wrong = std::string(kSaxpyHead) + body; // the code saved with a mistake
  wrong.replace(wrong.find("y[i] = a * x[i] + y[i];"), 23, "y[i] = a * x[i] - y[i];");
  test::written("warplens_gpu_files", "edited.cu", wrong);
  const KernelRequest second = resolve_kernel_request(add_kernel_file(file.string()), {}, "", "");
  ASSERT_NE(second.kernel, first.kernel);
  KernelSession& again = sessions.get(*second.kernel, second.params, quick(), &made);
  EXPECT_FALSE(made) << "the same inputs: the session is kept";
  EXPECT_EQ(&again.kernel(), second.kernel);
  const RunResult r = again.measure(BlockShape{256, 1, 1}, false);
  EXPECT_TRUE(r.verification->failed()) << "the new code ran";

  std::string refilled = std::string(kSaxpyHead) + body;
  refilled.replace(refilled.find("arg x: in float[n] random(-1, 1)"), 32,
                   "arg x: in float[n] constant(2)");
  test::written("warplens_gpu_files", "edited.cu", refilled);
  const KernelRequest third = resolve_kernel_request(add_kernel_file(file.string()), {}, "", "");
  sessions.get(*third.kernel, third.params, quick(), &made);
  EXPECT_TRUE(made) << "another fill: new inputs";
}

TEST(FileKernelRun, ADescriptionThatGetsTheParametersWrongIsRefusedBeforeAnyLaunch) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  const std::string body = R"(
__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
})";
  std::string wrong_type = std::string(kSaxpyHead) + body;
  wrong_type.replace(wrong_type.find("arg a: float = 2.5"), 18, "arg a: double = 2.5");
  try {
    run_file(test::written("warplens_gpu_files", "double_a.cu", wrong_type).string());
    FAIL() << "launched";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "double_a/saxpy: parameter 2 is 4 bytes, but its description's arg 'a' "
                           "is 8; list the args in the kernel's order with its types");
  }
  std::string missing = std::string(kSaxpyHead) + body;
  missing.erase(missing.find("// @warplens arg a: float = 2.5\n"), 32);
  try {
    run_file(test::written("warplens_gpu_files", "three_args.cu", missing).string());
    FAIL() << "launched";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("parameter 2 is 4 bytes, but its description's arg 'x' is "
                                         "8 (a pointer)"),
              std::string::npos)
        << e.what();
  }
  const std::string extra = std::string(kSaxpyHead) + "// @warplens arg z: int = 1\n" + body;
  try {
    run_file(test::written("warplens_gpu_files", "five_args.cu", extra).string());
    FAIL() << "launched";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "five_args/saxpy takes 4 parameters, but its description lists 5 args "
                           "(the first extra is 'z')");
  }
}

TEST(FileKernelRun, EveryElementTypeTravelsAndCheckNoneSaysNotVerified) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  const char* const mixed = R"(// @warplens kernel mixed
// @warplens size n = 5000
// @warplens arg ints: in int[n] random(-3, 3)
// @warplens arg counts: in unsigned[n] iota
// @warplens arg halves: in double[2 * n] constant(0.5)
// @warplens arg acc: inout float[n] random(0, 1)
// @warplens arg out: out double[n]
// @warplens arg n: int = n
// @warplens arg scale: double = 1.5
// @warplens arg mask: unsigned = 7
// @warplens arg bias: float = -2
// @warplens grid ceil_div(n, block.x)
// @warplens check mixed_reference 0
__global__ void mixed(const int* ints, const unsigned* counts, const double* halves, float* acc,
                      double* out, int n, double scale, unsigned mask, float bias) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { out[i] = scale * ints[i] + halves[2 * i] + (counts[i] & mask); acc[i] += bias; }
}
__global__ void mixed_reference(const int* ints, const unsigned* counts, const double* halves,
                                float* acc, double* out, int n, double scale, unsigned mask,
                                float bias) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    out[i] = scale * ints[i] + halves[2 * i] + (counts[i] & mask); acc[i] += bias; }
}
)";
  const RunResult r =
      run_file(test::written("warplens_gpu_files", "mixed.cu", mixed).string(), {}, "128");
  ASSERT_TRUE(r.verification);
  EXPECT_TRUE(r.verification->passed) << r.verification->first_failure;
  EXPECT_EQ(r.verification->checked, 2 * 5000);

  std::string unchecked = mixed;
  unchecked.replace(unchecked.find("check mixed_reference 0"), 23, "check none");
  const RunResult none =
      run_file(test::written("warplens_gpu_files", "unchecked.cu", unchecked).string());
  ASSERT_TRUE(none.verification);
  EXPECT_FALSE(none.verification->failed());
  EXPECT_EQ(none.verification->word(), std::string("not verified"));
  EXPECT_EQ(none.verification->skipped, "its kernel file says `check none`");
}

// The toolkit's libraries in kernel files (examples/libraries): cooperative groups, cuda::std,
// cuda::atomic_ref, CUB, half and bfloat16, each verified against its reference kernel, with its
// per-line figures from a per-site pass; the lines a library call runs on are its header's, the
// rest the file's own.
TEST(FileKernelRun, EveryLibraryFileVerifiesAndHasItsPerLineFigures) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  const std::filesystem::path libraries =
      std::filesystem::path(WARPLENS_SOURCE_ASSETS).parent_path() / "examples" / "libraries";
  EngineOptions options = quick();
  options.per_site = true;
  int verified = 0, files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(libraries)) {
    if (entry.path().extension() != ".cu")
      continue;
    ++files;
    const KernelRequest request =
        resolve_kernel_request(add_kernel_file(entry.path().string()), {}, "", "");
    const RunResult r = run_kernel(request, options);
    ASSERT_TRUE(r.verification) << entry.path();
    EXPECT_TRUE(r.verification->passed) << entry.path() << ": " << r.verification->first_failure;
    verified += r.verification->passed;
    ASSERT_TRUE(r.site_counts) << entry.path();
    EXPECT_TRUE(r.site_counts->available) << entry.path() << ": " << r.site_counts->reason;
    EXPECT_EQ(r.site_counts->file, entry.path().filename().string());
    EXPECT_FALSE(measured_lines(*r.site_counts).empty()) << entry.path();
    std::printf("%s: verified %s, %zu measured lines, %zu instructions on other files' lines\n",
                entry.path().filename().c_str(), r.verification->word(),
                measured_lines(*r.site_counts).size(), r.site_counts->unclaimed.size());
  }
  EXPECT_EQ(verified, files);
  EXPECT_GE(files, 5);
}

} // namespace
} // namespace wl
