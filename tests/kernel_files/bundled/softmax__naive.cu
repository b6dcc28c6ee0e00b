// mirrors: softmax/naive
// compare at: --param rows=256 --param cols=64
// compare at: --param rows=37 --param cols=100 --block 32
// compare at: --param rows=1000 --param cols=7 --block 64
// One thread per row, three passes over it (max, sum of exp, write).
// @warplens kernel softmax_naive
// @warplens size rows = 8192
// @warplens size cols = 8192
// @warplens arg x: in float[rows * cols] random(80, 100)
// @warplens arg y: out float[rows * cols]
// @warplens arg rows: long = rows
// @warplens arg cols: int = cols
// @warplens block 256
// @warplens grid ceil_div(rows, block.x)
// @warplens check none

__global__ void softmax_naive(const float* x, float* y, long long rows, int cols) {
  const long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows)
    return;
  float row_max = -INFINITY;
  for (int c = 0; c < cols; ++c) {
    const float value = x[row * cols + c];
    row_max = fmaxf(row_max, value);
  }
  float row_sum = 0.0f;
  for (int c = 0; c < cols; ++c) {
    const float value = x[row * cols + c];
    row_sum += expf(value - row_max);
  }
  for (int c = 0; c < cols; ++c) {
    const long long i = row * cols + c;
    const float value = x[i];
    y[i] = expf(value - row_max) / row_sum;
  }
}
