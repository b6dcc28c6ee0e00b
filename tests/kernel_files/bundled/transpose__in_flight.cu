// mirrors: transpose/in_flight
// compare at: --param rows=67 --param cols=45
// compare at: --param rows=100 --param cols=129
// compare at: --param rows=64 --param cols=64
// smem_padded's tile with the block's height fixed at 8: every pass's load is issued before the
// first store into the tile.
// @warplens kernel transpose_in_flight
// @warplens size rows = 8192
// @warplens size cols = 8192
// @warplens restrict block.x == 32 && block.y == 8 && block.z == 1
// @warplens arg in: in float[rows * cols] random(-1, 1)
// @warplens arg out: out float[rows * cols]
// @warplens arg rows: int = rows
// @warplens arg cols: int = cols
// @warplens block 32x8
// @warplens grid ceil_div(cols, 32), ceil_div(rows, 32)
// @warplens check none

constexpr int kTile = 32, kBlockRows = 8, kPitch = kTile + 1, kPasses = kTile / kBlockRows;

__global__ void transpose_in_flight(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[kTile * kPitch];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  float values[kPasses];
#pragma unroll
  for (int pass = 0; pass < kPasses; ++pass) {
    const int r = ty + pass * kBlockRows;
    if (row0 + r < rows && col0 + tx < cols)
      values[pass] = in[(row0 + r) * cols + col0 + tx];
  }
#pragma unroll
  for (int pass = 0; pass < kPasses; ++pass) {
    const int r = ty + pass * kBlockRows;
    if (row0 + r < rows && col0 + tx < cols)
      tile[r * kPitch + tx] = values[pass];
  }
  __syncthreads();
#pragma unroll
  for (int pass = 0; pass < kPasses; ++pass) {
    const int c = ty + pass * kBlockRows;
    if (row0 + tx < rows && col0 + c < cols)
      values[pass] = tile[tx * kPitch + c];
  }
#pragma unroll
  for (int pass = 0; pass < kPasses; ++pass) {
    const int c = ty + pass * kBlockRows;
    if (row0 + tx < rows && col0 + c < cols)
      out[(col0 + c) * rows + row0 + tx] = values[pass];
  }
}
