// HOSTILE: index from an uninitialised __shared__ int array (never written): in[idx[threadIdx.x]]. GOOD: the load's address unknown, noted on its line, not counted; the store still predicted.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  __shared__ int idx[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[idx[threadIdx.x] & (n - 1)];
}
