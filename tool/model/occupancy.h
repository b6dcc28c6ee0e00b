#pragma once
// Theoretical occupancy for one block shape on one architecture, counted by the hardware's
// allocation rules (model/occupancy_rules, checked against the toolkit's cuda_occupancy.h and the
// runtime), plus the facts a person needs to read it: the block limit of every resource, which ones
// bind, the impact curves Nsight Compute draws, the waves a grid makes, and one sentence in plain
// words.

#include "model/arch.h"
#include "model/block_text.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wl {

enum class Resource { warps, registers, shared_memory, blocks, barriers };
inline constexpr std::array kAllResources = {Resource::warps, Resource::registers,
                                             Resource::shared_memory, Resource::blocks,
                                             Resource::barriers};
const char* resource_name(Resource resource); // "warps", "registers", "shared_memory", ...

inline constexpr int kUnlimited = 0x7fffffff; // a resource the launch does not use

struct OccupancyRequest {
  BlockShape block;
  int registers_per_thread = 32;
  std::int64_t static_smem = 0;  // declared __shared__ arrays
  std::int64_t dynamic_smem = 0; // the launch's third <<<>>> argument
  int carveout_percent = -1;     // preferred shared-memory carveout; -1: the driver's default
  int kernel_max_threads = 0;    // the kernel's own limit (launch bounds); 0: the arch's
  std::int64_t grid_blocks = 0;  // 0: no grid, so no waves
};

struct Waves {
  std::int64_t grid_blocks = 0;
  std::int64_t blocks_per_wave = 0; // SMs x blocks per SM
  double waves = 0;                 // grid / blocks per wave
  std::int64_t full_waves = 0;
  std::int64_t tail_blocks = 0; // blocks in the last, partial wave
  double tail_fill = 0;         // tail_blocks / blocks_per_wave (0 when the last wave is full)
};

struct OccupancyResult {
  int threads_per_block = 0;
  int warps_per_block = 0;
  int blocks_per_sm = 0;
  int warps_per_sm = 0;
  int max_warps_per_sm = 0;
  double occupancy = 0;                           // 0 to 1
  std::array<int, kAllResources.size()> limits{}; // blocks each resource allows, kUnlimited if any
  std::vector<Resource> limiters;                 // the resources whose limit is the result
  int allocated_registers_per_block = 0;
  std::int64_t allocated_shared_memory_per_block = 0; // rounded up, reserved part included
  std::int64_t shared_memory_per_sm_configured = 0;   // the carveout this launch gets
  std::optional<Waves> waves;
  std::string explanation;

  int limit(Resource resource) const { return limits[static_cast<int>(resource)]; }
};

struct CurvePoint {
  std::int64_t x = 0; // threads per block, registers per thread, or shared bytes per block
  int blocks_per_sm = 0;
  double occupancy = 0;
};

struct ImpactCurves {
  std::vector<CurvePoint> block_size;    // every multiple of the warp size the kernel allows
  std::vector<CurvePoint> registers;     // 1 .. max registers per thread
  std::vector<CurvePoint> shared_memory; // static .. opt-in limit, in allocation-granularity steps
};

// Throws UsageError for a request outside the arch's limits (block shape, registers, shared
// memory, carveout), naming the value and the allowed range. A request that fits every limit but
// cannot be resident (say 1024 threads x 255 registers) is a result with 0 blocks per SM.
OccupancyResult compute_occupancy(const Arch& arch, const OccupancyRequest& request);

// Blocks per SM alone, for callers that vary one input many times.
int resident_blocks(const Arch& arch, const OccupancyRequest& request);

ImpactCurves impact_curves(const Arch& arch, const OccupancyRequest& request);

// The largest block size (a multiple of the warp size) with the most resident threads, as
// cudaOccupancyMaxPotentialBlockSize chooses it.
int suggested_block_size(const Arch& arch, const OccupancyRequest& request);

} // namespace wl
