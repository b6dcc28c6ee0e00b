// HOSTILE: a 64-float local array indexed by a data-dependent index (local memory, a stack). GOOD: local accesses left out of the global/shared table (no wrong global figure), the global load and store predicted 4 sectors/req.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  float loc[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = 0; j < 64; ++j) loc[j] = in[(i + j * 1024) & (n - 1)];
  int s = (int)(in[i] * 63.0f);
  out[i] = loc[s] + loc[(s * 7) & 63];
}
