#pragma once
// The access model for one warp-level memory instruction: from the 32 lane addresses, the
// active mask and the access width to what the memory system does with them.
//   global: one request; the 32-byte sectors and 128-byte lines it touches; the sectors the
//           distinct bytes would need at best; bytes used against bytes fetched.
//   shared: the instruction is split into transactions (the whole warp for 1-4 byte
//           accesses, the warp or its halves for 8, half- or quarter-warps for 16:
//           transactions_of says which); within one,
//           each of the 32 banks (4-byte words, bank = word mod 32) serves one distinct word
//           per wavefront, and lanes reading the same word share it (broadcast). The ideal is
//           the fewest wavefronts the distinct words fit in, ceil(words / 32). Measured on the
//           H100: a warp-wide broadcast costs 1 wavefront at 8 bytes and 2 at 16 (so 8-byte
//           accesses are not split into half-warps, and a 16-byte broadcast is split in two,
//           not four), while every strided pattern costs the same under either split (2 and 4
//           wavefronts for consecutive 8 and 16 bytes).
// Excess wavefronts (wavefronts beyond the ideal) are what CUPTI counts as bank conflicts.

#include "memory_space.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace wl {

inline constexpr int kWarpSize = 32;
inline constexpr int kSectorBytes = 32;
inline constexpr int kLineBytes = 128;
// What DRAM reads at least for a load that misses L2: two sectors. Measured on the H100
// (coalescing/stride, 16 M floats): DRAM read bytes grow as 64 B per lane once lanes sit 64 B or
// more apart (strides 16 to 32 all read 1024 MiB), while L1's sectors stop growing at 32 B apart
// (stride 8). Stores write back whole 32-byte sectors.
inline constexpr int kDramSegmentBytes = 64;

// DRAM reads a buffer at most once when the warps that share its segments run close together:
// the most a buffer of `bytes` costs its loads, its size in whole segments.
inline double dram_read_cap(double bytes) {
  return std::ceil(bytes / kDramSegmentBytes) * kDramSegmentBytes;
}
inline constexpr int kBankCount = 32;
inline constexpr int kBankBytes = 4;

struct WarpAccess {
  std::array<std::uint64_t, kWarpSize> address{}; // byte address of each lane's access
  std::uint32_t active_mask = 0xffffffffu;        // bit i set: lane i takes part
  int width = 4;                                  // bytes per lane: 1, 2, 4, 8 or 16
  // How shared memory serves lanes on one word. 0: together, once (loads, stores, and the
  // atomics the pipe combines: add, min, max, and, or, xor, inc, dec). n > 0: each lane on its
  // own, n passes: an exchange (1) or a compare-and-swap (2) of one word by 32 lanes took 32
  // and 64 wavefronts on the H200.
  int lane_passes = 0;

  bool active(int lane) const { return (active_mask >> lane) & 1u; }
};

struct GlobalAccess {
  int requests = 0;      // 1 when any lane is active (one request per instruction on Volta+)
  int sectors = 0;       // distinct 32-byte sectors touched
  int lines = 0;         // distinct 128-byte cache lines touched
  int ideal_sectors = 0; // ceil(bytes_used / 32): the fewest sectors those bytes fit in
  int bytes_used = 0;    // distinct bytes the lanes asked for
  int bytes_fetched = 0; // sectors x 32
  int dram_segments = 0; // distinct 64-byte DRAM segments touched
};

struct SharedAccess {
  int requests = 0;          // 1 when any lane is active
  int transactions = 0;      // transactions with an active lane (the warp, or half-warps at 16 B)
  int wavefronts = 0;        // what the shared-memory pipe processes, one per cycle
  int ideal_wavefronts = 0;  // per transaction ceil(distinct words / 32): 128 bytes per wavefront
  int excess_wavefronts = 0; // wavefronts - ideal: CUPTI's "bank conflicts"
  int conflict_degree = 0; // the n of "n-way": a transaction's wavefronts over its ideal, at worst
};

// One (lane, bank) cell of the bank grid: an 8-byte access covers two banks, a 16-byte one four.
struct BankSlot {
  int lane = 0;
  int transaction = 0;    // which transaction serves the lane (0, or 0 and 1 for 16-byte halves)
  int bank = 0;           // 0..31
  int wavefront = 0;      // which of the bank's distinct words, in address order (0 = first pass)
  std::uint64_t word = 0; // the 4-byte word address (byte address / 4)
  bool broadcast = false; // another lane of the transaction reads the same word
};

// Both throw UsageError for a width other than 1, 2, 4, 8 or 16, or an active lane whose address
// is not aligned to the width (the hardware faults on those).
GlobalAccess analyse_global(const WarpAccess& access);
SharedAccess analyse_shared(const WarpAccess& access);

// The bank grid of a shared access, ordered by transaction, bank, wavefront, lane.
std::vector<BankSlot> bank_map(const WarpAccess& access);

// The lanes one shared transaction serves: `lanes` of them from `first`.
struct LaneRange {
  int first = 0, lanes = kWarpSize;
};

// A shared access's transactions: the whole warp for 1 to 4 bytes a lane. Wider accesses halve
// the lanes of a transaction when a quad of them (4q to 4q+3) reads more than two distinct
// addresses: at 8 bytes the whole warp is one transaction when every quad reads at most two,
// else each half-warp is one; at 16 bytes each half-warp is one when its quads read at most two
// each, else its two quarter-warps are one each. Measured on the H200 with 20 lane patterns
// (tests/bench/shared_patterns.cu; the table is SharedAccessModel.*): a warp-wide broadcast,
// lanes 4 apart sharing a float4 (L % 4) and lanes in neighbouring pairs ((L/2) % 4) cost 2, 4
// and 2 wavefronts at 16 bytes, though each half-warp reads the same four float4s in the last
// two; at 8 bytes a warp-wide broadcast costs 1, and the float2 stores of
// flash_attention/tensor_d64 (lanes 4g + t at word 68 g + 2 t) 4, where the warp's 64 words
// would fit 2: each half-warp's 32 words fall two to a bank.
// At most four, held in place: the model asks for every warp it evaluates.
struct LaneRanges {
  std::array<LaneRange, 4> ranges{};
  int count = 0;
  void push_back(LaneRange range) { ranges[static_cast<std::size_t>(count++)] = range; }
  const LaneRange* begin() const { return ranges.data(); }
  const LaneRange* end() const { return ranges.data() + count; }
  std::size_t size() const { return static_cast<std::size_t>(count); }
};
LaneRanges transactions_of(const WarpAccess& access);

} // namespace wl
