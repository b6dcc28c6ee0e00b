// Every bundled kernel, on every allowed preset block and default block, at each of its test
// sizes (some not multiples of any block side), against its CPU reference with poisoned outputs.

#include "engine/device.h"
#include "engine/engine.h"
#include "gpu_test_support.h"
#include "model/model_kernel.h"
#include "registry.h"

#include <cstdio>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

namespace wl {
namespace {

using test::have_gpu;

TEST(KernelCatalog, EveryKernelVerifiesOnEveryShapeAndSize) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  EngineOptions options;
  options.timing.warmup_runs = 0;
  options.timing.min_samples = 1;
  options.timing.max_samples = 1;
  options.timing.flush_l2 = false;
  int total = 0, passed = 0, kernels = 0;
  for (const KernelDesc& kernel : all_kernels()) {
    ASSERT_FALSE(kernel.test_sizes.empty()) << kernel.id;
    int kernel_total = 0, kernel_passed = 0;
    for (const Params& overrides : kernel.test_sizes) {
      Params params;
      for (const ParamSpec& spec : kernel.params)
        params[spec.name] = spec.default_value;
      for (const auto& [name, value] : overrides)
        params[name] = value;
      for (const BlockShape& block : allowed_presets(kernel, params)) {
        ++kernel_total;
        const RunResult r = run_kernel(KernelRequest{&kernel, params, block}, options);
        ASSERT_TRUE(r.verification);
        EXPECT_TRUE(r.verification->passed)
            << kernel.id << " block " << block.x << "x" << block.y << "x" << block.z << ": "
            << r.verification->first_failure;
        kernel_passed += r.verification->passed;
      }
    }
    std::printf("%-26s %3d shapes x sizes, %3d passed\n", kernel.id.c_str(), kernel_total,
                kernel_passed);
    total += kernel_total;
    passed += kernel_passed;
    ++kernels;
  }
  std::printf("%d kernels, %d runs, %d passed\n", kernels, total, passed);
}

TEST(KernelCatalog, AttributesAgreeWithTheBuildTimeReport) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  for (const KernelDesc& kernel : all_kernels()) {
    Params params;
    for (const ParamSpec& spec : kernel.params)
      params[spec.name] = spec.default_value;
    const void* function = kernel.function ? kernel.function(params) : nullptr;
    if (!function)
      continue;
    cudaFuncAttributes attr{};
    ASSERT_EQ(cudaFuncGetAttributes(&attr, function), cudaSuccess) << kernel.id;
    const KernelRequest request{&kernel, params, kernel.default_block};
    const RunResult model = model_kernel(request, arch_from_device(0), ModelBudget{1});
    ASSERT_TRUE(model.attributes) << kernel.id << ": not in the build's ptxas report";
    EXPECT_EQ(model.attributes->registers, attr.numRegs) << kernel.id;
    EXPECT_EQ(model.attributes->static_shared_bytes,
              static_cast<std::int64_t>(attr.sharedSizeBytes))
        << kernel.id;
  }
}

} // namespace
} // namespace wl
