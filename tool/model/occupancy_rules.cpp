#include "model/occupancy_rules.h"

#include "base/error.h"

#include <algorithm>
#include <climits>

namespace wl {

namespace {

// Registers are allocated per warp in units of 256, from four sub-partitions of the register
// file, each holding a quarter of the SM's registers; a thread may be given at most 256.
constexpr int kRegisterUnit = 256;
constexpr int kSubPartitions = 4;
constexpr int kMaxRegistersAllocated = 256;

int round_up(std::int64_t value, std::int64_t unit) {
  return static_cast<int>((value + unit - 1) / unit * unit);
}

[[noreturn]] void unknown_capability(const Arch& arch) {
  throw UsageError("compute capability " + std::to_string(arch.cc_major) + "." +
                   std::to_string(arch.cc_minor) + " (" + arch.id +
                   ") is not known to WarpLens's occupancy model, which knows 7.0 to 9.x, 10.0, "
                   "10.1, 10.3, 11.0, 11.1, 11.3, 12.0 and 12.1");
}

// The Programming Guide's carveouts: Volta 0 to 96 KB, Turing 32 or 64 KB, the A100 (and Orin)
// up to 164 KB, the other Ampere and Ada parts up to 100 KB, Hopper and the data-centre
// Blackwell parts up to 228 KB, consumer Blackwell up to 100 KB.
constexpr int kVoltaConfigs[] = {0, 8, 16, 32, 64, 96};
constexpr int kTuringConfigs[] = {32, 64};
constexpr int kA100Configs[] = {0, 8, 16, 32, 64, 100, 132, 164};
constexpr int kSmall100Configs[] = {0, 8, 16, 32, 64, 100};
constexpr int kLarge228Configs[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};

SmAllocationRules volta_turing_rules(int minor) {
  const bool turing = minor == 5;
  return {256, turing ? 16 : 32, 0,
          turing ? std::span<const int>(kTuringConfigs) : std::span<const int>(kVoltaConfigs)};
}

SmAllocationRules ampere_ada_rules(int minor) {
  const bool a100_like = minor == 0 || minor == 7;
  const int blocks = minor == 0 ? 32 : minor == 9 ? 24 : 16;
  return {128, blocks, 0,
          a100_like ? std::span<const int>(kA100Configs) : std::span<const int>(kSmall100Configs)};
}

// Blackwell: the x.1 (10.1) and 11.0 parts have 24 block slots and one barrier per slot.
SmAllocationRules blackwell_rules(const Arch& arch) {
  if (arch.cc_minor != 0 && arch.cc_minor != 1 && arch.cc_minor != 3)
    unknown_capability(arch);
  const bool fewer_slots = arch.cc_major == 10 ? arch.cc_minor == 1 : arch.cc_minor == 0;
  return {128, fewer_slots ? 24 : 32, fewer_slots ? 1 : 2, kLarge228Configs};
}

// Shared memory above the default per-block limit is assumed opted in, exactly as a kernel does
// with cudaFuncSetAttribute before such a launch; the driver reserves its part of each block's.
int shared_memory_limit(const Arch& arch, const SmAllocationRules& rules,
                        const OccupancyRequest& request, ResidentBlocks& out) {
  const std::int64_t reserved = arch.reserved_shared_memory_per_block;
  const std::int64_t most_dynamic =
      std::max(request.dynamic_smem, arch.shared_memory_per_block - request.static_smem);
  const std::int64_t per_block = request.static_smem + reserved + request.dynamic_smem;
  out.allocated_shared_memory_per_block = round_up(per_block, rules.shared_memory_granularity);
  std::int64_t block_limit =
      request.static_smem + reserved + most_dynamic > arch.shared_memory_per_block
          ? arch.shared_memory_per_block_optin
          : arch.shared_memory_per_block;
  if (arch.cc_major >= 8)
    block_limit += reserved;
  // The carveout asked for is checked first, whether or not a block fits.
  configured_shared_memory(arch, request.carveout_percent, 0);
  if (out.allocated_shared_memory_per_block > block_limit)
    return 0;
  if (out.allocated_shared_memory_per_block == 0)
    return INT_MAX;
  const std::int64_t per_sm = configured_shared_memory(arch, request.carveout_percent,
                                                       out.allocated_shared_memory_per_block);
  return static_cast<int>(per_sm / out.allocated_shared_memory_per_block);
}

// The hardware checks a block's registers as if its warps filled all four sub-partitions alike.
int register_limit(const Arch& arch, const OccupancyRequest& request, int warps_per_block,
                   ResidentBlocks& out) {
  const int per_warp =
      round_up(std::int64_t{request.registers_per_thread} * arch.warp_size, kRegisterUnit);
  out.allocated_registers_per_block = per_warp * warps_per_block;
  const int assumed_per_block = per_warp * round_up(warps_per_block, kSubPartitions);
  if (arch.registers_per_block < assumed_per_block ||
      arch.registers_per_block < out.allocated_registers_per_block ||
      request.registers_per_thread > kMaxRegistersAllocated)
    return 0;
  if (per_warp == 0)
    return INT_MAX;
  const int warps_per_sub_partition = arch.registers_per_sm / kSubPartitions / per_warp;
  return warps_per_sub_partition * kSubPartitions / warps_per_block;
}

std::size_t index_of(Resource resource) { return static_cast<std::size_t>(resource); }

} // namespace

SmAllocationRules sm_allocation_rules(const Arch& arch) {
  switch (arch.cc_major) {
  case 7:
    return volta_turing_rules(arch.cc_minor);
  case 8:
    return ampere_ada_rules(arch.cc_minor);
  case 9:
    return {128, 32, 2, kLarge228Configs};
  case 10:
  case 11:
    return blackwell_rules(arch);
  case 12:
    if (arch.cc_minor > 1)
      unknown_capability(arch);
    return {128, 24, 1, kSmall100Configs};
  default:
    unknown_capability(arch);
  }
}

std::int64_t configured_shared_memory(const Arch& arch, int carveout_percent,
                                      std::int64_t allocated_per_block) {
  const SmAllocationRules rules = sm_allocation_rules(arch);
  const auto smallest_config_holding = [&](std::int64_t bytes) {
    for (const int kb : rules.shared_memory_configs_kb)
      if (bytes <= std::int64_t{kb} * 1024)
        return std::int64_t{kb} * 1024;
    throw UsageError(std::to_string(bytes) + " B of shared memory per SM is more than " + arch.id +
                     "'s largest carveout, " +
                     std::to_string(rules.shared_memory_configs_kb.back()) + " KB");
  };
  const std::int64_t preferred = carveout_percent < 0
                                     ? arch.shared_memory_per_sm
                                     : carveout_percent * arch.shared_memory_per_sm / 100;
  const std::int64_t preferred_config = smallest_config_holding(preferred);
  // A block that needs more than the preference raises the carveout.
  return preferred_config >= allocated_per_block ? preferred_config
                                                 : smallest_config_holding(allocated_per_block);
}

ResidentBlocks count_resident_blocks(const Arch& arch, const OccupancyRequest& request) {
  const SmAllocationRules rules = sm_allocation_rules(arch);
  const int threads = static_cast<int>(request.block.threads());
  const int warps_per_block = (threads + arch.warp_size - 1) / arch.warp_size;
  ResidentBlocks out;
  auto& limits = out.limits;
  limits[index_of(Resource::warps)] =
      threads > arch.max_threads_per_block ? 0 : arch.max_warps_per_sm() / warps_per_block;
  limits[index_of(Resource::registers)] = register_limit(arch, request, warps_per_block, out);
  limits[index_of(Resource::shared_memory)] = shared_memory_limit(arch, rules, request, out);
  limits[index_of(Resource::blocks)] = rules.max_resident_blocks;
  // Every block uses barrier 0 for __syncthreads(), as the runtime assumes.
  limits[index_of(Resource::barriers)] =
      rules.barriers_per_block_slot > 0 ? rules.max_resident_blocks * rules.barriers_per_block_slot
                                        : INT_MAX;
  out.blocks = *std::min_element(limits.begin(), limits.end());
  for (const Resource resource : kAllResources)
    if (limits[index_of(resource)] == out.blocks)
      out.limiters.push_back(resource);
  return out;
}

int best_block_size(const Arch& arch, const OccupancyRequest& request) {
  const int largest = request.kernel_max_threads > 0
                          ? std::min(request.kernel_max_threads, arch.max_threads_per_block)
                          : arch.max_threads_per_block;
  int best = 0;
  std::int64_t most_threads = 0;
  for (int aligned = round_up(largest, arch.warp_size); aligned > 0; aligned -= arch.warp_size) {
    OccupancyRequest tried = request;
    tried.block = BlockShape{std::min(largest, aligned), 1, 1};
    const std::int64_t threads =
        std::int64_t{tried.block.x} * count_resident_blocks(arch, tried).blocks;
    if (threads > most_threads) {
      best = tried.block.x;
      most_threads = threads;
    }
    if (most_threads == arch.max_threads_per_sm)
      break;
  }
  return best;
}

} // namespace wl
