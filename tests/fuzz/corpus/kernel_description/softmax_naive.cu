// softmax/naive written as a person's kernel file: one thread per row, three passes over it.
// @warplens kernel softmax_naive
// @warplens size rows = 8192
// @warplens size cols = 8192
// @warplens arg x: in float[rows * cols] random(80, 100)
// @warplens arg y: out float[rows * cols]
// @warplens arg rows: long = rows
// @warplens arg cols: int = cols
// @warplens block 256
// @warplens grid ceil_div(rows, block.x)
// @warplens check softmax_reference 1e-4
// @warplens bytes 8 * rows * cols

__global__ void softmax_naive(const float* x, float* y, long long rows, int cols) {
  const long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows)
    return;
  float row_max = -INFINITY;
  for (int c = 0; c < cols; ++c)
    row_max = fmaxf(row_max, x[row * cols + c]);
  float row_sum = 0.0f;
  for (int c = 0; c < cols; ++c)
    row_sum += expf(x[row * cols + c] - row_max);
  for (int c = 0; c < cols; ++c) {
    const long long i = row * cols + c;
    const float value = x[i];
    y[i] = expf(value - row_max) / row_sum;
  }
}

// Each row by one thread, rows strided over the whole launch, summing in double.
__global__ void softmax_reference(const float* x, float* y, long long rows, int cols) {
  for (long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x; row < rows;
       row += (long long)gridDim.x * blockDim.x) {
    double row_max = -INFINITY, row_sum = 0;
    for (int c = 0; c < cols; ++c)
      row_max = fmax(row_max, (double)x[row * cols + c]);
    for (int c = 0; c < cols; ++c)
      row_sum += exp((double)x[row * cols + c] - row_max);
    for (int c = 0; c < cols; ++c)
      y[row * cols + c] = (float)(exp((double)x[row * cols + c] - row_max) / row_sum);
  }
}
