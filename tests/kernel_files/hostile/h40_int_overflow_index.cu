// HOSTILE: int index overflow: (i*4096 + i*4096) wraps for large i, then & (n-1); plus a 64-bit product i * 0x100000000001 shifted. GOOD: predicted as the GPU computes it: first load every lane on a multiple of 8192 floats (32 sectors/req); second load every lane in[0] (1 sector/req).
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
  int j = (i * 4096 + i * 4096) & (n - 1);
  unsigned long long big = (unsigned long long)i * 0x100000000001ull; // 64-bit wrap for large i
  out[i] = in[j] + in[(big >> 20) & (n - 1)];
}
