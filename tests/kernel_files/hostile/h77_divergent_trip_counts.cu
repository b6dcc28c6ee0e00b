// HOSTILE: a loop with a per-lane trip count from data (0..31), so the warp's lanes leave one by one; loads of shrinking masks. GOOD: the loop's load predicted with the shrinking active lanes (fewer sectors/req than 4 near the end); no hang.
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
  int trips = (int)(in[i] * 32.0f);
  float acc = 0;
  for (int j = 0; j < trips; ++j) acc += in[(i + j * 256) & (n - 1)];
  out[i] = acc;
}
