// mirrors: vec_add/vec4
// compare at: --param n=16384
// compare at: --param n=1000
// compare at: --param n=4004 --block 96
// c = a + b, one float4 per thread (n a multiple of 4).
// @warplens kernel vec_add_vec4
// @warplens size n = 1 << 24
// @warplens arg a: in float[n] random(-1, 1)
// @warplens arg b: in float[n] random(-1, 1)
// @warplens arg c: out float[n]
// @warplens arg n4: long = n / 4
// @warplens block 256
// @warplens grid ceil_div(n / 4, block.x)
// @warplens check none

__global__ void vec_add_vec4(const float4* a, const float4* b, float4* c, long long n4) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n4) {
    const float4 x = a[i];
    const float4 y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}
