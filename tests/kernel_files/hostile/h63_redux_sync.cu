// HOSTILE: __reduce_add_sync and __reduce_max_sync (redux.sync, sm_80+) feeding an index. GOOD: predicted (the same sum for every lane: 1 sector/req for that load) or the redux line noted.
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
  unsigned s = __reduce_add_sync(0xffffffffu, (unsigned)threadIdx.x);
  unsigned m = __reduce_max_sync(0xffffffffu, (unsigned)i);
  out[i] = in[(s + m) & (n - 1)];
}
