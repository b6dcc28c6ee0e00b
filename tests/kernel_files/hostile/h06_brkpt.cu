// HOSTILE: asm volatile("brkpt;") on every thread before the store. GOOD: a note on the brkpt line (not modelled / would stop in a debugger); the load and store still predicted 4 sectors/req.
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
  asm volatile("brkpt;");
  out[i] = v;
}
