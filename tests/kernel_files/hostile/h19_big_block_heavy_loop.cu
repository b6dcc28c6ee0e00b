// HOSTILE: blocks of 1024 threads each looping 100,000 times over strided loads (a heavy loop, 3.2 G warp-iterations a block). GOOD: a loop-past-budget note within a few seconds; loads 4 sectors/req (coalesced); counts flagged as partial, not certain.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 1024
// @warplens grid 64
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0;
  for (int j = 0; j < 100000; ++j)
    acc += in[(i + j * 1024) & (n - 1)];
  out[i] = acc;
}
