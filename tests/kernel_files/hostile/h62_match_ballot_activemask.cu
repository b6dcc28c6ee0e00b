// HOSTILE: __match_any_sync, __ballot_sync with mask 0x1 (only lane 0 named, all lanes run it), and __activemask() as an index. GOOD: the odd-mask ballot noted; indices from match/activemask predicted (all lanes active: activemask = 0xffffffff) or noted.
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
  unsigned m = __match_any_sync(0xffffffffu, (int)(in[i] * 4.0f));
  unsigned b = __ballot_sync(0x1u, in[i] > 0.5f);
  unsigned a = __activemask();
  out[i] = in[(m + b + a + i) & (n - 1)];
}
