// HOSTILE: a static __shared__ array of 64 KiB (over the 48 KiB static limit: ptxas refuses). GOOD: exit 2 with one line naming the file (and line) and the limit, the compiler's message.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  __shared__ float big[16384];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  big[threadIdx.x * 64] = in[i];
  __syncthreads();
  out[i] = big[(threadIdx.x * 64 + 64) & 16383];
}
