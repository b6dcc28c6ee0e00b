// Where warps wait, sampled on a real device: a memory-bound launch waits on its global loads,
// every sample lands on an instruction of the kernel placed on a line of its source, the sums
// hold, and the samples travel as JSON and come back equal. Where PC sampling is not allowed, the
// run still completes with the reason, and the test skips.

#include "engine/counters/counters.h"
#include "engine/engine.h"
#include "gpu_test_support.h"
#include "kernel_file/file_kernel.h"
#include "model/kernel_request.h"
#include "model/kernel_source.h"
#include "report/stall_report.h"

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace wl {
namespace {

using test::have_gpu;

EngineOptions sampled() {
  EngineOptions options;
  options.stalls = true;
  options.timing.min_samples = 3;
  options.timing.max_seconds = 0.05;
  return options;
}

// Where the machine refuses PC sampling (as it may refuse counters) the test skips; any other
// reason for no samples is a failure.
bool not_allowed(const std::string& reason) {
  return reason.find("PRIVILEGES") != std::string::npos ||
         reason.find("NOT_SUPPORTED") != std::string::npos ||
         reason.find("no permission") != std::string::npos;
}

// The samples of `r`, checked for what any launch's must hold.
void check_samples(const StallSamples& s) {
  EXPECT_GE(s.period, 5);
  EXPECT_LE(s.period, 31);
  std::uint64_t on_lines = 0;
  for (const StalledLine& l : s.lines)
    on_lines += l.samples;
  EXPECT_LE(on_lines, s.samples());
  for (const StalledInstruction& i : s.instructions)
    for (const StallCount& c : i.reasons) {
      EXPECT_TRUE(known_stall_reason(c.reason)) << c.reason;
      EXPECT_LE(c.not_issued, c.samples) << c.reason << " at pc " << i.pc;
    }
  const StallSamples back = stall_samples_from_json(stall_samples_json(s), "the test");
  EXPECT_EQ(stall_samples_json(back), stall_samples_json(s));
}

TEST(Stalls, AVectorAddWaitsMostOnItsGlobalLoads) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  const RunResult r = run_kernel(resolve_kernel_request("vec_add/scalar", {}, "", ""), sampled());
  ASSERT_TRUE(r.stalls.has_value());
  const StallSamples& s = *r.stalls;
  check_samples(s);
  if (!s.available && not_allowed(s.reason))
    GTEST_SKIP() << "PC sampling not allowed here: " << s.reason;
  ASSERT_TRUE(s.available) << s.reason;
  EXPECT_GT(s.samples(), 10'000u);
  ASSERT_FALSE(s.launch.empty());
  EXPECT_EQ(s.launch.front().reason, "long_scoreboard") << stalls_text(r);
  EXPECT_EQ(s.file, "vec_add.cu");
  ASSERT_FALSE(s.lines.empty());
  std::printf("%s", stalls_text(r).c_str());
}

TEST(Stalls, AKernelFilesSamplesLandOnItsOwnLines) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  const std::filesystem::path saxpy =
      std::filesystem::path(WARPLENS_SOURCE_ASSETS).parent_path() / "examples" / "saxpy.cu";
  const RunResult r =
      run_kernel(resolve_kernel_request(add_kernel_file(saxpy.string()), {}, "", ""), sampled());
  ASSERT_TRUE(r.stalls.has_value());
  const StallSamples& s = *r.stalls;
  check_samples(s);
  if (!s.available && not_allowed(s.reason))
    GTEST_SKIP() << "PC sampling not allowed here: " << s.reason;
  ASSERT_TRUE(s.available) << s.reason;
  EXPECT_EQ(s.file, "saxpy.cu");
  ASSERT_FALSE(s.lines.empty());
  std::uint64_t on_lines = 0;
  for (const StalledLine& l : s.lines)
    on_lines += l.samples;
  EXPECT_GT(on_lines, s.samples() * 9 / 10) << stalls_text(r);
  std::printf("%s", stalls_text(r).c_str());
}

// CUPTI's PC sampling is enabled and disabled around each pass: a process that samples twice (a
// person who runs again, or opens another kernel) sees its kernel the second time too.
TEST(Stalls, ASecondPassInOneProcessSeesItsKernelToo) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  const KernelRequest request = resolve_kernel_request("vec_add/scalar", {}, "", "");
  const RunResult first = run_kernel(request, sampled());
  ASSERT_TRUE(first.stalls.has_value());
  if (!first.stalls->available && not_allowed(first.stalls->reason))
    GTEST_SKIP() << "PC sampling not allowed here: " << first.stalls->reason;
  const RunResult second = run_kernel(request, sampled());
  ASSERT_TRUE(second.stalls.has_value());
  EXPECT_TRUE(second.stalls->available) << second.stalls->reason;
  EXPECT_GT(second.stalls->samples(), first.stalls->samples() / 2);
}

// The samples are placed on lines by nvdisasm's listing (made once per process) rather than by
// CUPTI's correlation (a parse of the cubin per PC): on the GPU the two agree for every sampled
// instruction of a kernel whose helpers are inlined into it.
TEST(Stalls, TheListingPlacesEachSampleOnTheLineCuptiWould) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  const RunResult r = run_kernel(resolve_kernel_request("matmul/tiled", {}, "", ""), sampled());
  ASSERT_TRUE(r.stalls.has_value());
  const StallSamples& s = *r.stalls;
  if (!s.available && not_allowed(s.reason))
    GTEST_SKIP() << "PC sampling not allowed here: " << s.reason;
  ASSERT_TRUE(s.available) << s.reason;
  const int sm = r.arch.cc_major * 10 + r.arch.cc_minor;
  const EmbeddedCubinView* cubin = nullptr;
  for (const EmbeddedCubinView& c : embedded_cubins())
    if (c.family == "matmul" && c.sm == sm)
      cubin = &c;
  ASSERT_NE(cubin, nullptr);
  std::vector<std::uint32_t> pcs;
  for (const StalledInstruction& i : s.instructions)
    pcs.push_back(i.pc);
  const std::vector<SourcePlace> cupti =
      sass_source_places(cubin->bytes, cubin->size, s.function, pcs);
  ASSERT_EQ(cupti.size(), s.instructions.size());
  int differ = 0;
  for (std::size_t i = 0; i < pcs.size(); ++i)
    if (cupti[i].line != s.instructions[i].line || cupti[i].file != s.instructions[i].file) {
      ++differ;
      ADD_FAILURE() << "pc " << pcs[i] << ": the listing says " << s.instructions[i].file << ":"
                    << s.instructions[i].line << ", CUPTI " << cupti[i].file << ":"
                    << cupti[i].line;
    }
  EXPECT_EQ(differ, 0) << "of " << pcs.size() << " sampled instructions";
}

} // namespace
} // namespace wl
