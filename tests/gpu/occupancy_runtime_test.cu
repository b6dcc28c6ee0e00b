// The occupancy model, fed from cudaGetDeviceProperties and cudaFuncGetAttributes, against the
// runtime's cudaOccupancyMaxActiveBlocksPerMultiprocessor over a grid of block sizes, register
// counts (register caps), static and dynamic shared memory and carveouts. Every point must agree.

#include "engine/device.h"
#include "gpu_test_support.h"
#include "model/occupancy.h"

#include <cstdio>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

namespace wl {
namespace {

using test::have_gpu;

// Keeps 64 values live so the register cap, not the work, decides the register count.
template <int kMaxRegs>
__global__ void __maxnreg__(kMaxRegs) register_pressure(float* out, const float* in, int n) {
  float v[64];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int k = 0; k < 64; ++k)
    v[k] = in[(i + k * 97) % n];
  float acc = 0;
#pragma unroll
  for (int k = 0; k < 64; ++k)
    acc += v[k] * v[63 - k] + v[(k * 7) % 64];
  if (i < n)
    out[i] = acc;
}

template <int kStaticBytes> __global__ void static_shared(float* out, const float* in, int n) {
  __shared__ float tile[kStaticBytes / sizeof(float)];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x % (kStaticBytes / sizeof(float))] = i < n ? in[i] : 0.f;
  __syncthreads();
  if (i < n)
    out[i] = tile[(threadIdx.x + 1) % (kStaticBytes / sizeof(float))];
}

using KernelFn = void (*)(float*, const float*, int);

struct Kernel {
  std::string name;
  KernelFn fn;
};

std::vector<Kernel> test_kernels() {
  return {{"maxnreg 24", register_pressure<24>},   {"maxnreg 32", register_pressure<32>},
          {"maxnreg 40", register_pressure<40>},   {"maxnreg 48", register_pressure<48>},
          {"maxnreg 64", register_pressure<64>},   {"maxnreg 72", register_pressure<72>},
          {"maxnreg 96", register_pressure<96>},   {"maxnreg 128", register_pressure<128>},
          {"maxnreg 168", register_pressure<168>}, {"maxnreg 255", register_pressure<255>},
          {"static 2 KiB", static_shared<2048>},   {"static 12 KiB", static_shared<12288>},
          {"static 40 KiB", static_shared<40960>}};
}

struct Tally {
  int compared = 0, agreed = 0, rejected_by_both = 0;
};

// One (kernel, carveout) over every block size and dynamic shared memory size.
void compare_kernel(const Arch& arch, const Kernel& kernel, int carveout, Tally& tally) {
  cudaFuncAttributes attr{};
  ASSERT_EQ(cudaFuncGetAttributes(&attr, kernel.fn), cudaSuccess);
  const int max_dynamic =
      static_cast<int>(arch.shared_memory_per_block_optin - attr.sharedSizeBytes);
  ASSERT_EQ(
      cudaFuncSetAttribute(kernel.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, max_dynamic),
      cudaSuccess);
  ASSERT_EQ(
      cudaFuncSetAttribute(kernel.fn, cudaFuncAttributePreferredSharedMemoryCarveout, carveout),
      cudaSuccess);

  const std::int64_t dynamic_sizes[] = {0, 1000, 8 * 1024, 48 * 1024, 100 * 1024, max_dynamic};
  for (int threads = 32; threads <= arch.max_threads_per_block; threads += 32) {
    for (std::int64_t dynamic : dynamic_sizes) {
      OccupancyRequest request;
      request.block = BlockShape{threads, 1, 1};
      request.registers_per_thread = attr.numRegs;
      request.static_smem = static_cast<std::int64_t>(attr.sharedSizeBytes);
      request.dynamic_smem = dynamic;
      request.carveout_percent = carveout;
      request.kernel_max_threads = attr.maxThreadsPerBlock;
      const int model = compute_occupancy(arch, request).blocks_per_sm;

      int runtime = -1;
      const cudaError_t status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &runtime, kernel.fn, threads, static_cast<size_t>(dynamic));
      cudaGetLastError();
      ++tally.compared;
      if (status != cudaSuccess)
        runtime = 0; // the runtime refuses shapes the kernel cannot launch
      if (status != cudaSuccess && model == 0)
        ++tally.rejected_by_both;
      if (runtime == model)
        ++tally.agreed;
      EXPECT_EQ(model, runtime) << kernel.name << " (" << attr.numRegs << " regs, "
                                << attr.sharedSizeBytes << " B static), block " << threads
                                << ", dynamic " << dynamic << " B, carveout " << carveout << ": "
                                << cudaGetErrorString(status);
    }
  }
}

TEST(OccupancyAgainstRuntime, EveryPointAgrees) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  const Arch arch = arch_from_device(0);
  Tally tally;
  std::printf("%-14s %5s %9s\n", "kernel", "regs", "static B");
  for (const Kernel& kernel : test_kernels()) {
    cudaFuncAttributes attr{};
    ASSERT_EQ(cudaFuncGetAttributes(&attr, kernel.fn), cudaSuccess);
    std::printf("%-14s %5d %9zu\n", kernel.name.c_str(), attr.numRegs, attr.sharedSizeBytes);
    for (int carveout : {-1, 0, 50, 100})
      compare_kernel(arch, kernel, carveout, tally);
  }
  std::printf(
      "%s: %d points (13 kernels x 32 block sizes x 6 dynamic sizes x 4 carveouts), %d agree, "
      "%d refused by both\n",
      arch.name.c_str(), tally.compared, tally.agreed, tally.rejected_by_both);
  EXPECT_EQ(tally.agreed, tally.compared);
  EXPECT_GE(tally.compared, 500);
}

TEST(DeviceArch, MatchesThePresetForTheSameChip) {
  if (!have_gpu())
    GTEST_SKIP() << "no GPU";
  const Arch device = arch_from_device(0);
  EXPECT_GT(device.sm_count, 0);
  EXPECT_GT(device.dram_bandwidth_gbps, 100);
  EXPECT_EQ(device.max_threads_per_sm % device.warp_size, 0);
  std::printf("%s: sm_%d%d, %d SMs, %lld B shared/SM, %lld B opt-in, %lld B L2, %.0f GB/s\n",
              device.name.c_str(), device.cc_major, device.cc_minor, device.sm_count,
              static_cast<long long>(device.shared_memory_per_sm),
              static_cast<long long>(device.shared_memory_per_block_optin),
              static_cast<long long>(device.l2_cache_bytes), device.dram_bandwidth_gbps);
}

TEST(DeviceArch, NoGpuIsAClearErrorNotACrash) {
  if (have_gpu())
    GTEST_SKIP() << "a GPU is present";
  EXPECT_THROW(arch_from_device(0), std::runtime_error);
}

} // namespace
} // namespace wl
