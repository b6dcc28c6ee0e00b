// HOSTILE: one block of 8 warps, each looping 8,000 times over a coalesced load (64,000 warp loads in all, a finite and modest kernel). GOOD: exact: 64,000 requests at 4 sectors/req and 8 store requests; if the model's budget cuts it short, the footer and JSON must not claim "every warp of every block run" / model_exact.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[256]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid 1
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  int t = threadIdx.x;
  float acc = 0;
  for (int j = 0; j < 8000; ++j)
    acc += in[(t + j * 256) & (n - 1)];
  out[t] = acc;
}
