// HOSTILE: a 16 KiB per-thread local array (4096 floats) filled and read with data-dependent indices (heavy local memory). GOOD: attributes report 16 KiB local/thread; local accesses stay out of the global/shared table; the global load/store predicted; bounded memory.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  float loc[4096];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = 0; j < 4096; ++j) loc[j] = (float)(j ^ i);
  int s = (int)(in[i] * 4095.0f);
  out[i] = loc[s];
}
