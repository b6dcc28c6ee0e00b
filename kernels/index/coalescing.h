#pragma once
// Index math of the coalescing family. Every kernel copies one element of `width` bytes per
// thread: thread i (its position in the grid) writes out[i] and reads in[source], where the
// variant decides the source. Indices count elements of the access width (float, float2 or
// float4), so every access stays aligned to its width.

#include "hd.h"

#include <cstdint>

namespace wl::coalescing {

inline constexpr int kSegment = 32; // threads whose accesses the permuted variant shuffles: a warp

// The thread's position in the 1D grid: the output element it writes.
WL_HD int thread_element(int block, int block_dim, int thread) {
  return block * block_dim + thread;
}

// stride: consecutive threads read `stride` elements apart.
WL_HD int strided_source(int element, int stride) { return element * stride; }

// offset: every thread reads `offset` elements further on, so a warp's 128-byte run no longer
// starts on a sector boundary.
WL_HD int shifted_source(int element, int offset) { return element + offset; }

// permuted: within each run of 32 threads, lane l reads element (13 l + 7) mod 32 of the run's
// 32 elements. 13 is odd, so this is a bijection: the warp touches exactly the elements it would
// in order, only the lane-to-element pairing changes.
WL_HD int permuted_lane(int lane) { return (13 * lane + 7) % kSegment; }

WL_HD int permuted_source(int element) {
  const int segment_start = element - element % kSegment;
  return segment_start + permuted_lane(element % kSegment);
}

// random: a hash of (seed, element) scaled into [0, count). init() writes it into the index
// buffer that the kernel reads; the access model calls it directly to know where each lane goes.
WL_HD std::uint32_t mix32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

WL_HD int random_source(int element, int count, std::uint32_t seed) {
  const std::uint32_t h = mix32(static_cast<std::uint32_t>(element) ^ mix32(seed ^ 0x9e3779b9u));
  return static_cast<int>((static_cast<std::uint64_t>(h) * static_cast<std::uint64_t>(count)) >>
                          32);
}

} // namespace wl::coalescing
