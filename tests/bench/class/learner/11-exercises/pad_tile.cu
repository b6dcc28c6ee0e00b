// Exercise: pad a transpose's tile. A block reads a 32x32 tile row by row into shared memory and
// writes it out column by column. The tile's columns are 32 words apart, so the 32 lanes reading
// a column all fall on one bank: each read is served one lane at a time. Change the tile so that
// no shared read waits on a conflict; the transpose must stay right.
//
// @warplens kernel transpose_tile
// @warplens size rows = 2048
// @warplens size cols = 2048
// @warplens arg in: in float[rows * cols] random(-1, 1)
// @warplens arg out: out float[rows * cols]
// @warplens arg rows: int = rows
// @warplens arg cols: int = cols
// @warplens block 32x8
// @warplens restrict block.x == 32 && 32 % block.y == 0
// @warplens grid ceil_div(cols, 32), ceil_div(rows, 32)
// @warplens check transpose_reference 0

__global__ void transpose_tile(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += blockDim.y)
    if (x < cols && y + j < rows)
      tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += blockDim.y)
    if (x < rows && y + j < cols)
      out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void transpose_reference(const float* in, float* out, int rows, int cols) {
  const long long threads = (long long)gridDim.x * gridDim.y * blockDim.x * blockDim.y;
  const long long first =
      ((long long)blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x * blockDim.y +
      threadIdx.y * blockDim.x + threadIdx.x;
  for (long long e = first; e < (long long)rows * cols; e += threads)
    out[(e % cols) * rows + e / cols] = in[e];
}
