#include "model/occupancy.h"

#include "base/error.h"
#include "model/occupancy_explain.h"
#include "model/occupancy_rules.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace wl {

namespace {

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
  const ResidentBlocks occ = count_resident_blocks(arch, request);

  OccupancyResult r;
  r.threads_per_block = static_cast<int>(request.block.threads());
  r.warps_per_block = (r.threads_per_block + arch.warp_size - 1) / arch.warp_size;
  r.blocks_per_sm = occ.blocks;
  r.warps_per_sm = r.blocks_per_sm * r.warps_per_block;
  r.max_warps_per_sm = arch.max_warps_per_sm();
  r.occupancy = static_cast<double>(r.warps_per_sm) / r.max_warps_per_sm;
  r.limits = occ.limits;
  r.limiters = occ.limiters;
  r.allocated_registers_per_block = occ.allocated_registers_per_block;
  r.allocated_shared_memory_per_block = occ.allocated_shared_memory_per_block;
  r.shared_memory_per_sm_configured =
      configured_shared_memory(arch, request.carveout_percent, r.allocated_shared_memory_per_block);
  if (request.grid_blocks > 0)
    r.waves =
        waves_for(request.grid_blocks, static_cast<std::int64_t>(arch.sm_count) * r.blocks_per_sm);
  r.explanation = explain_occupancy(arch, request, r);
  return r;
}

int resident_blocks(const Arch& arch, const OccupancyRequest& request) {
  check_request(arch, request);
  return count_resident_blocks(arch, request).blocks;
}

ImpactCurves impact_curves(const Arch& arch, const OccupancyRequest& request) {
  check_request(arch, request);
  ImpactCurves curves;
  const auto point = [&](std::int64_t x, const OccupancyRequest& varied) {
    const int blocks = count_resident_blocks(arch, varied).blocks;
    const int warps =
        blocks * static_cast<int>((varied.block.threads() + arch.warp_size - 1) / arch.warp_size);
    return CurvePoint{x, blocks, static_cast<double>(warps) / arch.max_warps_per_sm()};
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
  const int granularity = sm_allocation_rules(arch).shared_memory_granularity;
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
  return best_block_size(arch, request);
}

} // namespace wl
