#pragma once
// How an SM decides how many blocks of a kernel it holds at once, written from the hardware's
// documented rules (the CUDA Programming Guide's per-compute-capability table and the occupancy
// calculator's allocation rules): warps, registers allocated per warp in 256-register units in
// each of four sub-partitions, shared memory rounded to its allocation unit within the carveout
// the SM is configured to, block slots and barriers. It needs no CUDA toolkit, so a build
// without one models occupancy the same; a unit test checks it against the toolkit's
// cuda_occupancy.h wherever the toolkit is present, and a GPU test against the runtime.

#include "model/arch.h"
#include "model/occupancy.h"

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace wl {

// What the hardware's per-SM allocation depends on beyond the Arch's own figures.
struct SmAllocationRules {
  int shared_memory_granularity = 0;             // a block's shared memory is rounded up to this
  int max_resident_blocks = 0;                   // block slots per SM
  int barriers_per_block_slot = 0;               // block barriers per slot (Hopper and later)
  std::span<const int> shared_memory_configs_kb; // the carveouts an SM can be set to, ascending
};

// The rules of the arch's compute capability; a UsageError naming it for one the model does not
// know (anything before Volta, or a newer one than this build).
SmAllocationRules sm_allocation_rules(const Arch& arch);

// The blocks of a request one SM holds and why (the request is assumed checked against the
// arch's limits): each resource's limit, the ones that bind, what a block is allocated.
struct ResidentBlocks {
  int blocks = 0;
  std::array<int, kAllResources.size()> limits{};
  std::vector<Resource> limiters;
  int allocated_registers_per_block = 0;
  std::int64_t allocated_shared_memory_per_block = 0;
};
ResidentBlocks count_resident_blocks(const Arch& arch, const OccupancyRequest& request);

// The shared memory an SM is configured with for this launch: the carveout asked for (or the
// largest, by default) raised to the smallest config that holds one block of `allocated` bytes.
std::int64_t configured_shared_memory(const Arch& arch, int carveout_percent,
                                      std::int64_t allocated_per_block);

// The largest block size, in warp steps, that keeps the most threads resident.
int best_block_size(const Arch& arch, const OccupancyRequest& request);

} // namespace wl
