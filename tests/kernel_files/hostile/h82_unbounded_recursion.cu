// HOSTILE: recursion with no data-independent end: rec(i) calls rec(i + 1) until in[] holds a value above 2 (never: in is random(0, 1)), an unbounded stack. GOOD: the model stops at its budget or a call depth with a note; no crash of warplens (its own stack), no hang.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__device__ float rec(const float* in, int i, int n) {
  float v = in[i & (n - 1)];
  if (v > 2.0f) return v;
  return v + rec(in, i + 1, n);
}
__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = rec(in, i, n);
}
