// mirrors: transpose/naive
// compare at: --param rows=67 --param cols=45
// compare at: --param rows=60 --param cols=70 --block 16x16
// compare at: --param rows=64 --param cols=64
// One element per thread: x along an input row, so the store walks an output column.
// @warplens kernel transpose_naive
// @warplens size rows = 8192
// @warplens size cols = 8192
// @warplens arg in: in float[rows * cols] random(-1, 1)
// @warplens arg out: out float[rows * cols]
// @warplens arg rows: int = rows
// @warplens arg cols: int = cols
// @warplens block 32x8
// @warplens grid ceil_div(cols, block.x), ceil_div(rows, block.y)
// @warplens check none

__global__ void transpose_naive(const float* in, float* out, int rows, int cols) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) {
    const float value = in[row * cols + col];
    out[col * rows + row] = value;
  }
}
