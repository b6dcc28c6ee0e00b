// HOSTILE: a template recursion instantiating 200 __device__ functions, each a load on the same source line with its own stride (S = 1..200). GOOD: one site for that line, 200 loads per warp, sectors per load = min(32, 4*S) summed; in a few seconds.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

template <int S> __device__ __forceinline__ float step(const float* in, int i, int n) {
  return in[(i * S) & (n - 1)] + step<S - 1>(in, i, n);
}
template <> __device__ __forceinline__ float step<0>(const float*, int, int) { return 0.0f; }
__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = step<200>(in, i, n);
}
