// HOSTILE: a loop whose trip count comes from an uninitialised __shared__ int (never written). GOOD: the loop's branch on an unknown value noted on its line (warp stops), the load of in before it predicted 4 sectors/req; no number for the loop body presented as certain.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  __shared__ int count;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = in[i];
  for (int j = 0; j < count; ++j)
    acc += in[(i + j) & (n - 1)];
  out[i] = acc;
}
