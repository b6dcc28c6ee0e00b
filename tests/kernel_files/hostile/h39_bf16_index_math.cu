// HOSTILE: index computed through bfloat16 (8 bits of mantissa): i rounded to bf16 then back, so runs of 2^k lanes share an element. GOOD: predicted with bf16 rounding: every lane of a warp rounds into 1-2 elements, about 1-2 sectors/req.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

#include <cuda_bf16.h>
__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  __nv_bfloat16 b = __float2bfloat16_rn((float)i);
  int j = (int)__bfloat162float(b) & (n - 1);
  out[i] = in[j];
}
