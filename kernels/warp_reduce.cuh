#pragma once
// Butterfly reductions inside one warp: five __shfl_xor_sync steps (offsets 16, 8, 4, 2, 1) pass
// values register to register, no shared memory, and leave the result in every lane. All 32
// lanes must take part (full mask), so callers keep whole warps together.

#include <cuda_runtime.h>

namespace wl {

inline constexpr unsigned kFullWarp = 0xffffffffu;

__device__ __forceinline__ float warp_sum(float value) {
  for (int offset = 16; offset > 0; offset /= 2)
    value += __shfl_xor_sync(kFullWarp, value, offset);
  return value;
}

__device__ __forceinline__ float warp_max(float value) {
  for (int offset = 16; offset > 0; offset /= 2)
    value = fmaxf(value, __shfl_xor_sync(kFullWarp, value, offset));
  return value;
}

} // namespace wl
