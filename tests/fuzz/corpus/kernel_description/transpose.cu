// A matrix transpose through a shared-memory tile, its side and padding tunable: with PAD 0 the
// tile's columns fall on one bank (32-way conflicts on the reads); PAD 1 spreads them over all 32.
// Try: warplens sweep examples/transpose.cu --param-range TILE=16,32 --param-range PAD=0,1 --block
// 32
//
// @warplens kernel transpose<TILE, PAD>
// @warplens size rows = 4096
// @warplens size cols = 4096
// @warplens tune TILE = 32, 16
// @warplens tune PAD = 1, 0
// @warplens restrict block.x == TILE && TILE % block.y == 0
// @warplens arg in: in float[rows * cols] random(-1, 1)
// @warplens arg out: out float[rows * cols]
// @warplens arg rows: int = rows
// @warplens arg cols: int = cols
// @warplens block 32x8
// @warplens grid ceil_div(cols, TILE), ceil_div(rows, TILE)
// @warplens check transpose_reference 0
// @warplens bytes 2 * rows * cols * 4

template <int Tile, int Pad>
__global__ void transpose(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[Tile][Tile + Pad];
  int x = blockIdx.x * Tile + threadIdx.x;
  int y = blockIdx.y * Tile + threadIdx.y;
  for (int j = 0; j < Tile; j += blockDim.y)
    if (x < cols && y + j < rows)
      tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * Tile + threadIdx.x; // the block's tile, written transposed
  y = blockIdx.x * Tile + threadIdx.y;
  for (int j = 0; j < Tile; j += blockDim.y)
    if (x < rows && y + j < cols)
      out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

// The naive way, one element per thread over the whole matrix whatever the launch's shape.
__global__ void transpose_reference(const float* in, float* out, int rows, int cols) {
  const long long threads = (long long)gridDim.x * gridDim.y * blockDim.x * blockDim.y;
  const long long first =
      ((long long)blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x * blockDim.y +
      threadIdx.y * blockDim.x + threadIdx.x;
  for (long long e = first; e < (long long)rows * cols; e += threads) {
    const long long r = e / cols, c = e % cols;
    out[c * rows + r] = in[e];
  }
}
