// kernels/recorded_resource_usage.txt holds ptxas's report of every bundled kernel for every
// preset architecture; builds that compile fewer architectures, or none, take registers, shared
// memory and spills from it. A build with the same nvcc checks every kernel it compiled against
// the record, so a changed kernel fails here until scripts/record-kernel-resources.sh is run.

#include "families.h"
#include "model/kernel_request.h"
#include "model/kernel_resources.h"
#include "registry.h"

#include <gtest/gtest.h>

namespace wl {
namespace {

#ifdef WARPLENS_NVCC_VERSION
// "13.0.88" -> "13.0"
std::string major_minor(const std::string& version) {
  const auto first = version.find('.');
  const auto second = version.find('.', first + 1);
  return version.substr(0, second);
}
#endif

TEST(RecordedResources, EqualThisBuildsOwnReportForEveryKernelItCompiled) {
#ifndef WARPLENS_NVCC_VERSION
  GTEST_SKIP() << "this build compiled no kernel (no CUDA toolkit): nothing to compare";
#else
  if (major_minor(WARPLENS_NVCC_VERSION) != recorded_nvcc_version())
    GTEST_SKIP() << "the record is nvcc " << recorded_nvcc_version() << "'s, this build's nvcc is "
                 << WARPLENS_NVCC_VERSION << ": registers may differ between compilers";
  int compared = 0;
  for (const auto& [symbol, by_sm] : built_resource_report())
    for (const auto& [sm, built] : by_sm) {
      SCOPED_TRACE(symbol + " sm_" + std::to_string(sm) +
                   ": run scripts/record-kernel-resources.sh after changing a kernel");
      const auto kernel = recorded_resource_report().find(symbol);
      ASSERT_NE(kernel, recorded_resource_report().end()) << "not in the record";
      const auto recorded = kernel->second.find(sm);
      ASSERT_NE(recorded, kernel->second.end()) << "this architecture is not in the record";
      EXPECT_EQ(recorded->second.registers, built.registers);
      EXPECT_EQ(recorded->second.static_shared_bytes, built.static_shared_bytes);
      EXPECT_EQ(recorded->second.stack_frame_bytes, built.stack_frame_bytes);
      EXPECT_EQ(recorded->second.spill_store_bytes, built.spill_store_bytes);
      EXPECT_EQ(recorded->second.spill_load_bytes, built.spill_load_bytes);
      EXPECT_EQ(recorded->second.barriers, built.barriers);
      ++compared;
    }
  EXPECT_GT(compared, 0);
#endif
}

// Every bundled kernel has resources for every preset architecture, with or without the toolkit.
TEST(RecordedResources, CoverEveryBundledKernelOnEveryPresetArchitecture) {
  for (const KernelDesc& k : all_kernels()) {
    if (k.kind != KernelKind::bundled)
      continue;
    const std::string symbol = k.symbol(resolve_kernel_request(k.id, {}, "", "").params);
    for (const int sm : {75, 80, 86, 89, 90, 100, 120}) {
      const auto resources = compiled_resources(symbol, sm);
      ASSERT_TRUE(resources.has_value()) << symbol << " sm_" << sm;
      EXPECT_EQ(resources->sm, sm) << symbol;
      EXPECT_GT(resources->registers, 0) << symbol << " sm_" << sm;
    }
  }
}

} // namespace
} // namespace wl
