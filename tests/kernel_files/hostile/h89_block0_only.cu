// HOSTILE: only block 0 does the extra work (if (blockIdx.x == 0) a second load and store), a common 'first block finishes up' pattern. GOOD: the block-0 lines predicted with 8 requests (block 0's 8 warps), 4 sectors/req; NOT scaled up as if every sampled-like block ran them.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];
  if (blockIdx.x == 0)
    out[n - 1 - threadIdx.x] = in[n - 1 - threadIdx.x] * 2.0f;
}
