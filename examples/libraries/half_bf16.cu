// Half and bfloat16 arithmetic: y = a x + y with x rounded to __half and to __nv_bfloat16, the
// products in each type (__hmul, and bfloat16's operators), summed in float. The buffers stay
// float (a kernel file's args are float, double, int or unsigned); the conversions are on the
// lines of the Source panel.
//
// @warplens kernel mixed_axpy
// @warplens size n = 1 << 22
// @warplens restrict block.y == 1 && block.z == 1
// @warplens arg x: in float[n] random(-1, 1)
// @warplens arg y: inout float[n] random(-1, 1)
// @warplens arg a: float = 0.5
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check mixed_axpy_reference 1e-6
// @warplens bytes n * 4 * 3
// @warplens flops 3 * n

#include <cuda_bf16.h>
#include <cuda_fp16.h>

__global__ void mixed_axpy(const float* x, float* y, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const __half in_half = __float2half(x[i]);
  const __nv_bfloat16 in_bf16 = __float2bfloat16(x[i]);
  const __half product_half = __hmul(__float2half(a), in_half);
  const __nv_bfloat16 product_bf16 = __float2bfloat16(a) * in_bf16;
  y[i] += __half2float(product_half) + __bfloat162float(product_bf16);
}

// The same roundings written with the conversions alone, in the same order.
__global__ void mixed_axpy_reference(const float* x, float* y, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const float from_half =
      __half2float(__float2half(__half2float(__float2half(a)) * __half2float(__float2half(x[i]))));
  const float from_bf16 = __bfloat162float(__float2bfloat16(
      __bfloat162float(__float2bfloat16(a)) * __bfloat162float(__float2bfloat16(x[i]))));
  y[i] += from_half + from_bf16;
}
