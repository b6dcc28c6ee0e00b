// HOSTILE: index computed through double math: (int)(sqrt((double)i) * 1000.0) mod n, then in[] at that index. GOOD: predicted with the GPU's own double rounding; neighbouring lanes hit nearly the same element, so about 1-2 sectors/req.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = (int)(sqrt((double)i) * 1000.0) & (n - 1);
  out[i] = in[j];
}
