// HOSTILE: __shfl_sync with mask 0x55555555 (even lanes only) executed by all lanes, then used as an index: the odd lanes are not in the mask (undefined). GOOD: a note on the shuffle's line (lanes outside the mask), the loads whose addresses come from it unknown or noted; no crash.
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
  int j = __shfl_sync(0x55555555u, i * 7, 3);
  out[i] = in[j & (n - 1)];
}
