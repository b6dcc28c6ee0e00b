// HOSTILE: inline asm prefetch.global.L2 and discard.global.L2 (cache hints, no data) around a load. GOOD: the hints either ignored or noted (they move no sectors into registers), the load/store predicted 4 sectors/req.
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
  asm volatile("prefetch.global.L2 [%0];" :: "l"(in + i));
  float v = in[i];
  if ((i & 31) == 0) asm volatile("discard.global.L2 [%0], 128;" :: "l"(out + i));
  out[i] = v;
}
