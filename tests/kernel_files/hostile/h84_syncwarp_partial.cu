// HOSTILE: __syncwarp(0x1) executed by all 32 lanes (mask names only lane 0: undefined for the others) and __syncwarp(0xffff) by the low half only. GOOD: a note on the syncwarp lines about the mask, the loads/stores predicted.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = in[i];
  __syncwarp(0x1u);
  if ((threadIdx.x & 31) < 16) __syncwarp(0xffffu);
  out[i] = s[threadIdx.x ^ 31];
}
