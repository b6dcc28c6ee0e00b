// vec_add/scalar written as a person's kernel file: the same loads, store and launch, so its
// measured counters and time can be set beside the bundled kernel's (tests/bench/seed_files.sh).
// @warplens kernel vec_add
// @warplens size n = 1 << 24
// @warplens arg a: in float[n] random(-1, 1)
// @warplens arg b: in float[n] random(-1, 1)
// @warplens arg c: out float[n]
// @warplens arg n: long = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check vec_add_reference 0
// @warplens flops n

__global__ void vec_add(const float* a, const float* b, float* c, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float x = a[i];
    const float y = b[i];
    c[i] = x + y;
  }
}

__global__ void vec_add_reference(const float* a, const float* b, float* c, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    c[i] = a[i] + b[i];
}
