// mirrors: vec_add/grid_stride
// compare at: --param n=16384
// compare at: --param n=1000
// compare at: --param n=4004 --block 96
// A fixed grid of 2048 threads per SM loops over the vector in float4 steps of the whole grid.
// The bundled grid reads the device's SM count; `model` uses the H100 preset's 132 SMs, written
// here as a number (a kernel file's grid sees only its sizes, tunables and block).
// @warplens kernel vec_add_grid_stride
// @warplens size n = 1 << 24
// @warplens arg a: in float[n] random(-1, 1)
// @warplens arg b: in float[n] random(-1, 1)
// @warplens arg c: out float[n]
// @warplens arg n4: long = n / 4
// @warplens block 256
// @warplens grid min(132 * max(1, 2048 / block.x), max(1, ceil_div(n / 4, block.x)))
// @warplens check none

__global__ void vec_add_grid_stride(const float4* a, const float4* b, float4* c, long long n4) {
  for (long long k = 0;; ++k) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x +
                        k * static_cast<long long>(gridDim.x) * blockDim.x;
    if (i >= n4)
      break;
    const float4 x = a[i];
    const float4 y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}
