// mirrors: matmul/naive
// compare at: --param m=24 --param n=40 --param k=20
// compare at: --param m=33 --param n=20 --param k=17 --block 16x16
// compare at: --param m=64 --param n=16 --param k=8
// compare at: --param m=1 --param n=1 --param k=1
// C = A . B, one output per thread, threadIdx.x along C's columns.
// @warplens kernel matmul_naive
// @warplens size m = 4096
// @warplens size n = 4096
// @warplens size k = 4096
// @warplens restrict block.z == 1
// @warplens arg a: in float[m * k] random(-1, 1)
// @warplens arg b: in float[k * n] random(-1, 1)
// @warplens arg c: out float[m * n]
// @warplens arg m: int = m
// @warplens arg n: int = n
// @warplens arg k: int = k
// @warplens block 32x8
// @warplens grid ceil_div(n, block.x), ceil_div(m, block.y)
// @warplens check none

__global__ void matmul_naive(const float* a, const float* b, float* c, int m, int n, int k) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n)
    return;
  float sum = 0.0f;
  for (int p = 0; p < k; ++p) {
    const float from_a = a[row * k + p];
    const float from_b = b[p * n + col];
    sum += from_a * from_b;
  }
  c[row * n + col] = sum;
}
