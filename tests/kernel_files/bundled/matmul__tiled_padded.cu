// mirrors: matmul/tiled_padded
// compare at: --param m=32 --param n=32 --param k=32
// compare at: --param m=45 --param n=40 --param k=37
// compare at: --param m=32 --param n=33 --param k=20 --param tile=32 --block 32x32
// compare at: --param m=1 --param n=1 --param k=1
// rename: tile=TILE
// C = A . B through shared-memory tiles padded by a word a row: a TILE x TILE block stages one
// element of each tile per step along k, then reads a row of A's tile and a column of B's.
// @warplens kernel matmul_tiled_padded<TILE>
// @warplens size m = 4096
// @warplens size n = 4096
// @warplens size k = 4096
// @warplens tune TILE = 16, 32
// @warplens restrict block.x == TILE && block.y == TILE && block.z == 1
// @warplens arg a: in float[m * k] random(-1, 1)
// @warplens arg b: in float[k * n] random(-1, 1)
// @warplens arg c: out float[m * n]
// @warplens arg m: int = m
// @warplens arg n: int = n
// @warplens arg k: int = k
// @warplens block 16x16
// @warplens grid ceil_div(n, TILE), ceil_div(m, TILE)
// @warplens check none

template <int kTile>
__global__ void matmul_tiled_padded(const float* a, const float* b, float* c, int m, int n, int k) {
  constexpr int kPitch = kTile + 1;
  __shared__ float tiles[2 * kTile * kPitch]; // A's tile, then B's
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;
  const int col = blockIdx.x * kTile + tx;
  float sum = 0.0f;
  for (int step = 0; step < (k + kTile - 1) / kTile; ++step) {
    const int a_col = step * kTile + tx, b_row = step * kTile + ty;
    const float staged_a = row < m && a_col < k ? a[row * k + a_col] : 0.0f;
    const float staged_b = b_row < k && col < n ? b[b_row * n + col] : 0.0f;
    tiles[ty * kPitch + tx] = staged_a;
    tiles[kTile * kPitch + ty * kPitch + tx] = staged_b;
    __syncthreads();
    for (int q = 0; q < kTile; ++q) {
      const float from_a = tiles[ty * kPitch + q];
      const float from_b = tiles[kTile * kPitch + q * kPitch + tx];
      sum += from_a * from_b;
    }
    __syncthreads();
  }
  if (row < m && col < n)
    c[row * n + col] = sum;
}
