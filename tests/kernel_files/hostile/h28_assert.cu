// HOSTILE: assert(in[i] < 0.5f) which fails for about half the lanes (__assertfail call). GOOD: a note on the assert line (a call not run / the assert fails); load and store predicted, or the store's lanes after a failed assert noted.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

#include <cassert>
__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  assert(v < 0.5f);
  out[i] = v;
}
