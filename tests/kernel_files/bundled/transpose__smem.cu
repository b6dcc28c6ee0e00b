// mirrors: transpose/smem
// compare at: --param rows=67 --param cols=45
// compare at: --param rows=100 --param cols=129 --block 32x4
// compare at: --param rows=64 --param cols=64 --block 32x32
// compare at: --param rows=97 --param cols=1 --block 32x2
// Transpose through a 32x32 shared tile (its columns on one bank): each warp reads an input row
// into the tile, then writes an output row from a tile column; 32 / blockDim.y passes each way.
// @warplens kernel transpose_smem
// @warplens size rows = 8192
// @warplens size cols = 8192
// @warplens restrict block.x == 32 && 32 % block.y == 0 && block.z == 1
// @warplens arg in: in float[rows * cols] random(-1, 1)
// @warplens arg out: out float[rows * cols]
// @warplens arg rows: int = rows
// @warplens arg cols: int = cols
// @warplens block 32x8
// @warplens grid ceil_div(cols, 32), ceil_div(rows, 32)
// @warplens check none

constexpr int kTile = 32, kPitch = 32;

__global__ void transpose_smem(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[kTile * kPitch];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  const int passes = kTile / blockDim.y;
  for (int pass = 0; pass < passes; ++pass) {
    const int r = ty + pass * blockDim.y;
    if (row0 + r < rows && col0 + tx < cols) {
      const float value = in[(row0 + r) * cols + col0 + tx];
      tile[r * kPitch + tx] = value;
    }
  }
  __syncthreads();
  for (int pass = 0; pass < passes; ++pass) {
    const int c = ty + pass * blockDim.y;
    if (row0 + tx < rows && col0 + c < cols) {
      const float value = tile[tx * kPitch + c];
      out[(col0 + c) * rows + row0 + tx] = value;
    }
  }
}
