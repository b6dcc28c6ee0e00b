#pragma once
// Index math of the reduce_sum family. Block b sums the `chunk` consecutive elements starting at
// b * chunk: each thread first adds its share in a register, then the block combines the
// per-thread sums (a shared-memory tree, or warp shuffles) and writes one partial sum.

#include "hd.h"

#include <cstdint>

namespace wl::reduce_sum {

inline constexpr int kWarp = 32;

// Register loop iterations per thread: the block's threads cover its chunk blockDim at a time.
WL_HD int loads_per_thread(int chunk, int block_dim) { return (chunk + block_dim - 1) / block_dim; }

// The element thread t of block b adds in iteration k: consecutive threads read consecutive
// elements (coalesced). -1 when the position falls outside the chunk or past the end of x.
WL_HD std::int64_t chunk_element(int block, int chunk, int block_dim, int thread, int k,
                                 std::int64_t n) {
  const int in_chunk = k * block_dim + thread;
  const std::int64_t i = static_cast<std::int64_t>(block) * chunk + in_chunk;
  return in_chunk < chunk && i < n ? i : -1;
}

// vectorized: the same chunks read as packs of four elements (float4s), n a multiple of 4. In
// iteration k thread t reads pack k * blockDim + t of its block's chunk; -1 past the chunk or x.
inline constexpr int kPack = 4;
WL_HD int pack_loads_per_thread(int chunk, int block_dim) {
  return loads_per_thread(chunk / kPack, block_dim);
}
WL_HD std::int64_t chunk_pack_element(int block, int chunk, int block_dim, int thread, int k,
                                      std::int64_t n) {
  const int in_chunk = (k * block_dim + thread) * kPack;
  const std::int64_t i = static_cast<std::int64_t>(block) * chunk + in_chunk;
  return in_chunk < chunk && i < n ? i : -1;
}

WL_HD int tree_steps(int block_dim) {
  int steps = 0;
  while ((1 << steps) < block_dim)
    ++steps;
  return steps;
}

// One step of a shared-memory tree for one thread: if active, sdata[target] += sdata[source].
struct TreeStep {
  bool active;
  int target;
  int source;
};

// Interleaved addressing, the stride growing 1, 2, 4, ...: the threads whose index is a multiple
// of 2 * stride work, `if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s]`. The working
// threads are spread over every warp, so warps diverge.
WL_HD TreeStep interleaved_step(int thread, int step) {
  const int stride = 1 << step;
  return {thread % (2 * stride) == 0, thread, thread + stride};
}

// Interleaved addressing with a strided index: the first threads work, each on the word at
// 2 * stride * tid. No divergence until fewer than 32 threads work, but neighbouring threads
// touch words 2 * stride apart: a 2-way bank conflict at stride 1, 4-way at 2, and so on.
WL_HD TreeStep strided_index_step(int thread, int step, int block_dim) {
  const int stride = 1 << step;
  const int index = 2 * stride * thread;
  return {index < block_dim, index, index + stride};
}

// Sequential addressing, the stride shrinking blockDim / 2, ..., 1: the first `stride` threads
// work on consecutive words, `if (tid < s) sdata[tid] += sdata[tid + s]`. Conflict-free.
WL_HD TreeStep sequential_step(int thread, int step, int block_dim) {
  const int stride = block_dim >> (step + 1);
  return {thread < stride, thread, thread + stride};
}

WL_HD int warp_of(int thread) { return thread / kWarp; }
WL_HD int lane_of(int thread) { return thread % kWarp; }
WL_HD int warps_in(int block_dim) { return (block_dim + kWarp - 1) / kWarp; }

} // namespace wl::reduce_sum
