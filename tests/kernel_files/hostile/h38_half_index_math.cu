// HOSTILE: index computed through __half arithmetic: (int)__half2float(__int2half_rn(i & 2047) * 2) (half loses precision above 2048), used as an index. GOOD: predicted with half rounding; about 8 sectors/req, or notes.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

#include <cuda_fp16.h>
__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  __half h = __hmul(__int2half_rn(i & 4095), __float2half(2.0f));
  int j = (int)__half2float(h);
  out[i] = in[j];
}
