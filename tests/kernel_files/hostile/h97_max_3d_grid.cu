// HOSTILE: the largest 3D grid (2147483647 x 65535 x 65535 blocks) of 1024 threads: 2.95e20 warp requests per line, past a 64-bit integer. GOOD: a clear refusal (one line, the grid line and the limit) or counts that do not wrap (no negative or tiny numbers); no crash.
// @warplens kernel k
// @warplens size n = 1 << 10
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens block 1024
// @warplens grid 2147483647, 65535, 65535
// @warplens check none

__global__ void k(const float* in, float* out) {
  out[threadIdx.x] = in[threadIdx.x];
}
