// HOSTILE (valid but weird): a grid of one block. GOOD: every warp run (exact), load and store 4 sectors/req, 8 requests each.
// @warplens kernel k
// @warplens size n = 256
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid 1
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  int i = threadIdx.x;
  out[i] = in[i] + 1.0f;
}
