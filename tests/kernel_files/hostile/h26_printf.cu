// HOSTILE: printf in device code (a vprintf call) between a load and a store. GOOD: a note on the printf line (a call the model does not run, or printf output not modelled); the load and store predicted 4 sectors/req.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

#include <cstdio>
__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  if (i == 0) printf("v=%f n=%d\n", v, n);
  out[i] = v;
}
