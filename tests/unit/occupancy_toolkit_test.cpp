// The occupancy model's rules against the toolkit's own calculator (cuda_occupancy.h, which the
// runtime uses), over every preset and a few capabilities no preset has: blocks per SM, each
// resource's limit, the limiters, what a block is allocated, the carveout the SM gets and the
// suggested block size must be the same for every launch of a wide grid. Built only where the
// toolkit is; a build without it models occupancy with the same rules.

#include "base/error.h"
#include "model/occupancy.h"
#include "model/occupancy_rules.h"
#include "test_support.h"

#include <filesystem>

#include <cuda_occupancy.h>
#include <gtest/gtest.h>

namespace wl {
namespace {

struct ToolkitInputs {
  cudaOccDeviceProp prop;
  cudaOccFuncAttributes attr;
  cudaOccDeviceState state;
};

// The toolkit calculator's inputs for a request, as a kernel that opts in to the shared memory
// it launches with.
ToolkitInputs toolkit_inputs(const Arch& arch, const OccupancyRequest& request) {
  ToolkitInputs in;
  in.prop.computeMajor = arch.cc_major;
  in.prop.computeMinor = arch.cc_minor;
  in.prop.maxThreadsPerBlock = arch.max_threads_per_block;
  in.prop.maxThreadsPerMultiprocessor = arch.max_threads_per_sm;
  in.prop.regsPerBlock = arch.registers_per_block;
  in.prop.regsPerMultiprocessor = arch.registers_per_sm;
  in.prop.warpSize = arch.warp_size;
  in.prop.sharedMemPerBlock = static_cast<size_t>(arch.shared_memory_per_block);
  in.prop.sharedMemPerMultiprocessor = static_cast<size_t>(arch.shared_memory_per_sm);
  in.prop.numSms = arch.sm_count;
  in.prop.sharedMemPerBlockOptin = static_cast<size_t>(arch.shared_memory_per_block_optin);
  in.prop.reservedSharedMemPerBlock = static_cast<size_t>(arch.reserved_shared_memory_per_block);
  in.attr.maxThreadsPerBlock =
      request.kernel_max_threads > 0 ? request.kernel_max_threads : arch.max_threads_per_block;
  in.attr.numRegs = request.registers_per_thread;
  in.attr.sharedSizeBytes = static_cast<size_t>(request.static_smem);
  in.attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  in.attr.maxDynamicSharedSizeBytes = static_cast<size_t>(
      std::max(request.dynamic_smem, arch.shared_memory_per_block - request.static_smem));
  in.attr.numBlockBarriers = 1;
  in.state.carveoutConfig = request.carveout_percent;
  return in;
}

std::vector<Resource> toolkit_limiters(unsigned factors) {
  const unsigned bits[] = {OCC_LIMIT_WARPS, OCC_LIMIT_REGISTERS, OCC_LIMIT_SHARED_MEMORY,
                           OCC_LIMIT_BLOCKS, OCC_LIMIT_BARRIERS};
  std::vector<Resource> limiters;
  for (std::size_t i = 0; i < kAllResources.size(); ++i)
    if (factors & bits[i])
      limiters.push_back(kAllResources[i]);
  return limiters;
}

// Every preset, and capabilities of the same size that no preset has.
std::vector<Arch> arches() {
  std::vector<Arch> all;
  for (const auto& file :
       std::filesystem::directory_iterator(std::string(WARPLENS_SOURCE_ASSETS) + "/arch"))
    all.push_back(load_arch_file(file.path()));
  const auto variant = [&](const std::string& base, int major, int minor) {
    Arch arch = test::preset(base);
    arch.cc_major = major;
    arch.cc_minor = minor;
    arch.id = base + "-as-" + std::to_string(major) + std::to_string(minor);
    all.push_back(arch);
  };
  variant("a100", 8, 7);
  variant("t4", 7, 0);
  variant("b200", 10, 1);
  variant("b200", 10, 3);
  variant("b200", 11, 0);
  variant("rtx5090", 12, 1);
  return all;
}

void expect_same(const Arch& arch, const OccupancyRequest& request) {
  ToolkitInputs in = toolkit_inputs(arch, request);
  cudaOccResult theirs{};
  ASSERT_EQ(cudaOccMaxActiveBlocksPerMultiprocessor(&theirs, &in.prop, &in.attr, &in.state,
                                                    static_cast<int>(request.block.threads()),
                                                    static_cast<size_t>(request.dynamic_smem)),
            CUDA_OCC_SUCCESS);
  const ResidentBlocks ours = count_resident_blocks(arch, request);
  SCOPED_TRACE(testing::Message() << arch.id << ": " << request.block.x << " threads, "
                                  << request.registers_per_thread << " regs, "
                                  << request.static_smem << " + " << request.dynamic_smem
                                  << " B, carveout " << request.carveout_percent);
  ASSERT_EQ(ours.blocks, theirs.activeBlocksPerMultiprocessor);
  ASSERT_EQ(ours.limits, (std::array<int, 5>{theirs.blockLimitWarps, theirs.blockLimitRegs,
                                             theirs.blockLimitSharedMem, theirs.blockLimitBlocks,
                                             theirs.blockLimitBarriers}));
  ASSERT_EQ(ours.limiters, toolkit_limiters(theirs.limitingFactors));
  ASSERT_EQ(ours.allocated_registers_per_block, theirs.allocatedRegistersPerBlock);
  ASSERT_EQ(ours.allocated_shared_memory_per_block,
            static_cast<std::int64_t>(theirs.allocatedSharedMemPerBlock));
  const bool fits = ours.limits[static_cast<int>(Resource::shared_memory)] > 0;
  size_t preferred = 0;
  ASSERT_EQ(cudaOccSMemPerMultiprocessor(&preferred, &in.prop, &in.state), CUDA_OCC_SUCCESS);
  size_t configured = preferred;
  if (static_cast<std::int64_t>(preferred) < ours.allocated_shared_memory_per_block && fits) {
    configured = static_cast<size_t>(ours.allocated_shared_memory_per_block);
    ASSERT_EQ(cudaOccAlignUpShmemSizeVoltaPlus(&configured, &in.prop), CUDA_OCC_SUCCESS);
  }
  if (fits) {
    ASSERT_EQ(configured_shared_memory(arch, request.carveout_percent,
                                       ours.allocated_shared_memory_per_block),
              static_cast<std::int64_t>(configured));
  }
}

TEST(OccupancyRules, EqualTheToolkitCalculatorOverEveryPresetAndAWideGrid) {
  const int threads[] = {1,   31,  32,  33,  64,  96,  100, 128, 160, 192, 224, 256, 288, 320, 384,
                         416, 480, 512, 544, 640, 672, 736, 768, 800, 896, 928, 960, 992, 1024};
  const int registers[] = {0,  1,  8,  16, 24,  32,  33,  40,  48,  56, 64,
                           65, 72, 80, 96, 112, 128, 168, 200, 232, 255};
  const std::int64_t statics[] = {0, 1, 4096, 16384, 49152};
  const std::int64_t dynamics[] = {0, 1, 1000, 8192, 40000, 70000, 100000, 160000, 200000, 231424};
  const int carveouts[] = {-1, 0, 10, 25, 33, 50, 60, 75, 100};
  long compared = 0;
  for (const Arch& arch : arches())
    for (const int t : threads)
      for (const int r : registers)
        for (const std::int64_t s : statics)
          for (const std::int64_t d : dynamics)
            for (const int c : carveouts) {
              OccupancyRequest request;
              request.block = BlockShape{t, 1, 1};
              request.registers_per_thread = r;
              request.static_smem = s;
              request.dynamic_smem = d;
              request.carveout_percent = c;
              if (s > arch.shared_memory_per_block || d > arch.shared_memory_per_block_optin - s)
                continue; // compute_occupancy refuses these before counting
              expect_same(arch, request);
              if (testing::Test::HasFatalFailure())
                return;
              ++compared;
            }
  EXPECT_GT(compared, 1'000'000);
}

TEST(OccupancyRules, SuggestTheToolkitCalculatorsBlockSize) {
  for (const Arch& arch : arches())
    for (const int r : {0, 16, 32, 40, 64, 72, 128, 255})
      for (const std::int64_t d : {0, 8192, 50000, 100000})
        for (const int max_threads : {0, 256, 384, 1000}) {
          OccupancyRequest request;
          request.registers_per_thread = r;
          request.dynamic_smem = std::min<std::int64_t>(d, arch.shared_memory_per_block_optin);
          request.kernel_max_threads = max_threads;
          ToolkitInputs in = toolkit_inputs(arch, request);
          int min_grid = 0, block = 0;
          ASSERT_EQ(cudaOccMaxPotentialOccupancyBlockSize(
                        &min_grid, &block, &in.prop, &in.attr, &in.state, nullptr,
                        static_cast<size_t>(request.dynamic_smem)),
                    CUDA_OCC_SUCCESS);
          EXPECT_EQ(best_block_size(arch, request), block)
              << arch.id << ", " << r << " regs, " << d << " B, at most " << max_threads;
        }
}

TEST(OccupancyRules, RefuseACapabilityTheyDoNotKnow) {
  Arch arch = test::preset("h100");
  for (const auto& [major, minor] : {std::pair{6, 1}, {10, 2}, {12, 2}, {13, 0}}) {
    arch.cc_major = major;
    arch.cc_minor = minor;
    try {
      sm_allocation_rules(arch);
      ADD_FAILURE() << major << "." << minor << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_TRUE(test::contains(e.what(), std::to_string(major) + "." + std::to_string(minor)))
          << e.what();
    }
  }
}

} // namespace
} // namespace wl
