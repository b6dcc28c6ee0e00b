// HOSTILE (valid but weird): 2^31-1 blocks of ONE thread each (2^31-1 one-lane warps). GOOD: 2,147,483,647 requests, 1 sector/req for the load and the store, in well under a few seconds.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 1
// @warplens grid 2147483647
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x & (n - 1);
  out[i] = in[i];
}
