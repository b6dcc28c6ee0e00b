#include "model/occupancy.h"

#include "base/error.h"
#include "model/occupancy_explain.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <cuda_occupancy.h>

namespace wl {

namespace {

// The calculator's inputs for one request. Shared memory above the default per-block limit is
// assumed opted in, exactly as a kernel does with cudaFuncSetAttribute before such a launch.
struct OccInputs {
  cudaOccDeviceProp prop;
  cudaOccFuncAttributes attr;
  cudaOccDeviceState state;
};

OccInputs occ_inputs(const Arch& arch, const OccupancyRequest& request) {
  OccInputs in;
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
  in.attr.numBlockBarriers = 1; // __syncthreads() uses barrier 0, as the runtime assumes

  in.state.carveoutConfig = request.carveout_percent;
  return in;
}

void check_status(cudaOccError status, const Arch& arch) {
  if (status == CUDA_OCC_ERROR_UNKNOWN_DEVICE)
    throw UsageError("compute capability " + std::to_string(arch.cc_major) + "." +
                     std::to_string(arch.cc_minor) + " (" + arch.id +
                     ") is not known to this toolkit's cuda_occupancy.h");
  if (status != CUDA_OCC_SUCCESS)
    throw UsageError("the occupancy calculator rejected this launch for " + arch.id);
}

cudaOccResult run_calculator(const Arch& arch, const OccupancyRequest& request) {
  OccInputs in = occ_inputs(arch, request);
  cudaOccResult result{};
  check_status(cudaOccMaxActiveBlocksPerMultiprocessor(&result, &in.prop, &in.attr, &in.state,
                                                       static_cast<int>(request.block.threads()),
                                                       static_cast<size_t>(request.dynamic_smem)),
               arch);
  return result;
}

void check_request(const Arch& arch, const OccupancyRequest& request) {
  check_block_fits(arch, request.block);
  if (request.registers_per_thread < 0 ||
      request.registers_per_thread > arch.max_registers_per_thread)
    throw UsageError("registers per thread " + std::to_string(request.registers_per_thread) +
                     " is out of range; " + arch.id + " allows 0 to " +
                     std::to_string(arch.max_registers_per_thread));
  if (request.static_smem < 0 || request.static_smem > arch.shared_memory_per_block)
    throw UsageError("static shared memory " + std::to_string(request.static_smem) +
                     " B is out of range; " + arch.id + " allows 0 to " +
                     std::to_string(arch.shared_memory_per_block) +
                     " B of __shared__ arrays per block (more must be dynamic, up to " +
                     std::to_string(arch.shared_memory_per_block_optin) + " B with opt-in)");
  // Compared as room left, not as a sum: a huge dynamic size must not wrap past the limit.
  if (request.dynamic_smem < 0 ||
      request.dynamic_smem > arch.shared_memory_per_block_optin - request.static_smem)
    throw UsageError("shared memory " + std::to_string(request.static_smem) + " B static + " +
                     std::to_string(request.dynamic_smem) + " B dynamic is over " + arch.id +
                     "'s opt-in limit; allowed 0 to " +
                     std::to_string(arch.shared_memory_per_block_optin) + " B per block in all");
  if (request.carveout_percent < -1 || request.carveout_percent > 100)
    throw UsageError(
        "carveout " + std::to_string(request.carveout_percent) +
        " is out of range; allowed 0 to 100 (% of shared memory), or -1 for the default");
  if (request.grid_blocks < 0)
    throw UsageError("grid " + std::to_string(request.grid_blocks) +
                     " is negative; allowed 1 or more blocks");
}

Waves waves_for(std::int64_t grid_blocks, std::int64_t blocks_per_wave) {
  Waves w;
  w.grid_blocks = grid_blocks;
  w.blocks_per_wave = blocks_per_wave;
  if (blocks_per_wave == 0)
    return w;
  w.waves = static_cast<double>(grid_blocks) / static_cast<double>(blocks_per_wave);
  w.full_waves = grid_blocks / blocks_per_wave;
  w.tail_blocks = grid_blocks % blocks_per_wave;
  w.tail_fill = static_cast<double>(w.tail_blocks) / static_cast<double>(blocks_per_wave);
  return w;
}

std::int64_t shared_memory_per_sm_configured(const Arch& arch, const OccupancyRequest& request,
                                             std::int64_t allocated_per_block) {
  OccInputs in = occ_inputs(arch, request);
  size_t preferred = 0;
  check_status(cudaOccSMemPerMultiprocessor(&preferred, &in.prop, &in.state), arch);
  // As the calculator does: a block that needs more than the preference raises the carveout.
  if (static_cast<std::int64_t>(preferred) >= allocated_per_block)
    return static_cast<std::int64_t>(preferred);
  size_t raised = static_cast<size_t>(allocated_per_block);
  check_status(cudaOccAlignUpShmemSizeVoltaPlus(&raised, &in.prop), arch);
  return static_cast<std::int64_t>(raised);
}

} // namespace

const char* resource_name(Resource resource) {
  switch (resource) {
  case Resource::warps:
    return "warps";
  case Resource::registers:
    return "registers";
  case Resource::shared_memory:
    return "shared_memory";
  case Resource::blocks:
    return "blocks";
  case Resource::barriers:
    return "barriers";
  }
  return "?";
}

OccupancyResult compute_occupancy(const Arch& arch, const OccupancyRequest& request) {
  check_request(arch, request);
  const cudaOccResult occ = run_calculator(arch, request);

  OccupancyResult r;
  r.threads_per_block = static_cast<int>(request.block.threads());
  r.warps_per_block = (r.threads_per_block + arch.warp_size - 1) / arch.warp_size;
  r.blocks_per_sm = occ.activeBlocksPerMultiprocessor;
  r.warps_per_sm = r.blocks_per_sm * r.warps_per_block;
  r.max_warps_per_sm = arch.max_warps_per_sm();
  r.occupancy = static_cast<double>(r.warps_per_sm) / r.max_warps_per_sm;
  r.limits = {occ.blockLimitWarps, occ.blockLimitRegs, occ.blockLimitSharedMem,
              occ.blockLimitBlocks, occ.blockLimitBarriers};
  const unsigned bits[] = {OCC_LIMIT_WARPS, OCC_LIMIT_REGISTERS, OCC_LIMIT_SHARED_MEMORY,
                           OCC_LIMIT_BLOCKS, OCC_LIMIT_BARRIERS};
  for (std::size_t i = 0; i < kAllResources.size(); ++i)
    if (occ.limitingFactors & bits[i])
      r.limiters.push_back(kAllResources[i]);
  r.allocated_registers_per_block = occ.allocatedRegistersPerBlock;
  r.allocated_shared_memory_per_block = static_cast<std::int64_t>(occ.allocatedSharedMemPerBlock);
  r.shared_memory_per_sm_configured =
      shared_memory_per_sm_configured(arch, request, r.allocated_shared_memory_per_block);
  if (request.grid_blocks > 0)
    r.waves =
        waves_for(request.grid_blocks, static_cast<std::int64_t>(arch.sm_count) * r.blocks_per_sm);
  r.explanation = explain_occupancy(arch, request, r);
  return r;
}

int resident_blocks(const Arch& arch, const OccupancyRequest& request) {
  check_request(arch, request);
  return run_calculator(arch, request).activeBlocksPerMultiprocessor;
}

ImpactCurves impact_curves(const Arch& arch, const OccupancyRequest& request) {
  check_request(arch, request);
  ImpactCurves curves;
  const auto point = [&](std::int64_t x, const OccupancyRequest& varied) {
    const cudaOccResult occ = run_calculator(arch, varied);
    const int warps =
        occ.activeBlocksPerMultiprocessor *
        static_cast<int>((varied.block.threads() + arch.warp_size - 1) / arch.warp_size);
    return CurvePoint{x, occ.activeBlocksPerMultiprocessor,
                      static_cast<double>(warps) / arch.max_warps_per_sm()};
  };

  const int max_threads = request.kernel_max_threads > 0
                              ? std::min(request.kernel_max_threads, arch.max_threads_per_block)
                              : arch.max_threads_per_block;
  for (int threads = arch.warp_size; threads <= max_threads; threads += arch.warp_size) {
    OccupancyRequest varied = request;
    varied.block = BlockShape{threads, 1, 1};
    curves.block_size.push_back(point(threads, varied));
  }
  for (int regs = 1; regs <= arch.max_registers_per_thread; ++regs) {
    OccupancyRequest varied = request;
    varied.registers_per_thread = regs;
    curves.registers.push_back(point(regs, varied));
  }
  OccInputs in = occ_inputs(arch, request);
  int granularity = 0;
  check_status(cudaOccSMemAllocationGranularity(&granularity, &in.prop), arch);
  for (std::int64_t total = request.static_smem; total <= arch.shared_memory_per_block_optin;
       total += granularity) {
    OccupancyRequest varied = request;
    varied.dynamic_smem = total - request.static_smem;
    curves.shared_memory.push_back(point(total, varied));
  }
  return curves;
}

int suggested_block_size(const Arch& arch, const OccupancyRequest& request) {
  check_request(arch, request);
  OccInputs in = occ_inputs(arch, request);
  int min_grid = 0, block = 0;
  check_status(cudaOccMaxPotentialOccupancyBlockSize(&min_grid, &block, &in.prop, &in.attr,
                                                     &in.state, nullptr,
                                                     static_cast<size_t>(request.dynamic_smem)),
               arch);
  return block;
}

} // namespace wl
