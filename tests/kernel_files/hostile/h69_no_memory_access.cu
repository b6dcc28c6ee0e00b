// HOSTILE: a kernel with no memory access at all (arithmetic only, result discarded). GOOD: says plainly that no global or shared access was found; no crash and no empty table with a confusing header.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  float x = threadIdx.x;
  for (int j = 0; j < 100; ++j) x = x * 1.0001f + 0.5f;
  if (x == 12345.678f) asm volatile("" ::: "memory");
}
