// HOSTILE: a stride chosen by %smid & 1 (which SM runs the block: unknowable without a GPU; on an H100 about half the blocks land on odd SM ids), so about half the warps read stride 1 (4 sectors/req) and half stride 2 (8 sectors/req). GOOD: the address noted as depending on %smid (not predicted); NOT a single exact 4.00 presented as certain.
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
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  int stride = 1 + (int)(sm & 1);
  out[i] = in[(i * stride) & (n - 1)];
}
