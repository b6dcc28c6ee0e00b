// HOSTILE: dynamic shared memory of 300,000 bytes per block, more than any GPU allows (H100 opt-in 232,448). GOOD: exit 2 with one line naming the shared line and the limit.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens shared 300000
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  extern __shared__ float s[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = s[255 - threadIdx.x];
}
