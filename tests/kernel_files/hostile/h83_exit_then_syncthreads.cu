// HOSTILE: asm("exit;") for odd threads, then __syncthreads() and a shared exchange among the rest (exited threads no longer count for the barrier on sm_70+). GOOD: the even threads' accesses predicted (16 active lanes a warp: stores 1 wavefront, global store 4 sectors/req over 128 B span) and no hang at the barrier.
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
  if (threadIdx.x & 1) asm volatile("exit;");
  s[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = s[threadIdx.x ^ 2];
}
