// mirrors: vec_add/scalar
// compare at: --param n=4096
// compare at: --param n=1000
// compare at: --param n=1500 --block 100
// c = a + b, one float per thread.
// @warplens kernel vec_add_scalar
// @warplens size n = 1 << 24
// @warplens arg a: in float[n] random(-1, 1)
// @warplens arg b: in float[n] random(-1, 1)
// @warplens arg c: out float[n]
// @warplens arg n: long = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void vec_add_scalar(const float* a, const float* b, float* c, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    const float x = a[i];
    const float y = b[i];
    c[i] = x + y;
  }
}
