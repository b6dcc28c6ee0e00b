// HOSTILE: a recursive __device__ function (depth from data, up to 20): NVRTC emits a real call with a stack. GOOD: the model either runs the call (the load inside the function, predicted on its own line) or notes on the call's line that calls are not modelled; the store after still predicted.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__device__ float rec(const float* in, int i, int depth, int n) {
  if (depth <= 0) return 0.0f;
  return in[(i + depth) & (n - 1)] + rec(in, i, depth - 1, n);
}
__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int depth = (int)(in[i] * 20.0f);
  out[i] = rec(in, i, depth, n);
}
