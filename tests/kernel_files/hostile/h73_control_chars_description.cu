// HOSTILE: raw control characters (ESC, BEL) inside a @warplens description line (the size name) and a printf format string. GOOD: exit 2 with one line naming the description line and what is allowed, no raw control characters echoed.
// @warplens kernel k
// @warplens size n[2J = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

#include <cstdio>
__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) printf("\x1b[2J\a");
  out[i] = in[i];
}
