// HOSTILE: a stride chosen by clock64() & 1 (and %globaltimer & 1): the cycle counter is unknowable, so on a GPU about half the warps read stride 1 (4 sectors/req) and half stride 2 (8 sectors/req). GOOD: the load's address noted as depending on the clock (not predicted), or ~6 sectors/req with a note; NOT a single exact 4.00 or 8.00 presented as certain.
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
  long long c = clock64();
  unsigned long long g;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
  int stride = 1 + (int)((c ^ (long long)g) & 1);
  out[i] = in[(i * stride) & (n - 1)];
}
