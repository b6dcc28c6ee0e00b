// HOSTILE: atomicAdd(&out[0], 1.0f) from every thread of the grid. GOOD: line predicted as global atomics, 1 sector per request (one address per warp), and the requests equal the warps (32768).
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  atomicAdd(&out[0], 1.0f);
}
