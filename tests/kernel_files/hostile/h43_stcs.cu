// HOSTILE: __stcs (st.global.cs streaming store) and __ldcs / __ldlu cache hints. GOOD: predicted like ordinary loads and stores, 4 sectors/req each.
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
  float v = __ldcs(&in[i]) + __ldlu(&in[i ^ 32]);
  __stcs(&out[i], v);
}
