// mirrors: transpose/wide_tile
// compare at: --param rows=67 --param cols=45
// compare at: --param rows=130 --param cols=200
// compare at: --param rows=128 --param cols=128
// A 64 x 64 tile (65 words a row) for a 32 x 16 block: in step s a thread takes tile row
// ty + 16 (s / 2) and column tx + 32 (s % 2), eight loads in flight.
// @warplens kernel transpose_wide_tile
// @warplens size rows = 8192
// @warplens size cols = 8192
// @warplens restrict block.x == 32 && block.y == 16 && block.z == 1
// @warplens arg in: in float[rows * cols] random(-1, 1)
// @warplens arg out: out float[rows * cols]
// @warplens arg rows: int = rows
// @warplens arg cols: int = cols
// @warplens block 32x16
// @warplens grid ceil_div(cols, 64), ceil_div(rows, 64)
// @warplens check none

constexpr int kWideTile = 64, kWideRows = 16, kPitch = kWideTile + 1;
constexpr int kSteps = (kWideTile / kWideRows) * (kWideTile / 32);

__global__ void __launch_bounds__(kWideTile / 2 * kWideRows)
    transpose_wide_tile(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[kWideTile * kPitch];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = blockIdx.y * kWideTile, col0 = blockIdx.x * kWideTile;
  float values[kSteps];
#pragma unroll
  for (int step = 0; step < kSteps; ++step) {
    const int row = ty + kWideRows * (step / 2), col = tx + 32 * (step % 2);
    if (row0 + row < rows && col0 + col < cols)
      values[step] = in[(row0 + row) * cols + col0 + col];
  }
#pragma unroll
  for (int step = 0; step < kSteps; ++step) {
    const int row = ty + kWideRows * (step / 2), col = tx + 32 * (step % 2);
    if (row0 + row < rows && col0 + col < cols)
      tile[row * kPitch + col] = values[step];
  }
  __syncthreads();
#pragma unroll
  for (int step = 0; step < kSteps; ++step) {
    const int row = ty + kWideRows * (step / 2), col = tx + 32 * (step % 2);
    if (row0 + col < rows && col0 + row < cols)
      values[step] = tile[col * kPitch + row];
  }
#pragma unroll
  for (int step = 0; step < kSteps; ++step) {
    const int row = ty + kWideRows * (step / 2), col = tx + 32 * (step % 2);
    const int at = (col0 + row) * rows + row0 + col;
    if (row0 + col < rows && col0 + row < cols)
      out[at] = values[step];
  }
}
