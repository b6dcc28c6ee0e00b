// HOSTILE: __trap() for the lanes with in[i] > 0.99 (about 1 % of threads: some lane in nearly every warp). GOOD: a note on the __trap line (the launch would fail on a GPU); the load predicted.
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
  float v = in[i];
  if (v > 0.99f) __trap();
  out[i] = v;
}
