// HOSTILE: __syncthreads() inside if (threadIdx.x < 16): only half of warp 0 reaches the barrier (undefined; on a GPU usually a hang or a wrong result). GOOD: a note on the barrier's line that it is divergent/not reached by every thread; no hang of the model.
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
  if (threadIdx.x < 16) __syncthreads();
  out[i] = s[255 - threadIdx.x];
}
