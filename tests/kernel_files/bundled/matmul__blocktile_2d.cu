// mirrors: matmul/blocktile_2d
// compare at: --param m=128 --param n=128 --param k=16
// compare at: --param m=129 --param n=131 --param k=8
// compare at: --param m=1 --param n=1 --param k=1
// compare at: --param m=67 --param n=45 --param k=20 --param bm=64 --param bn=64 --param tm=4 --param tn=4 --block 256
// rename: bm=BM, bn=BN, bk=BK, tm=TM, tn=TN
// blocktile_2d: each thread computes a TM x TN tile of C. A block of BM * BN / (TM * TN) threads computes a BM x BN tile of
// C, BK columns of A (rows of B) staged in shared memory a step, single floats; each thread reads
// TM values of A and TN of B per column of the tile into registers.
// @warplens kernel matmul_blocktile<BM, BN, BK, TM, TN>
// @warplens size m = 4096
// @warplens size n = 4096
// @warplens size k = 4096
// @warplens tune BM = 128, 64
// @warplens tune BN = 128, 64
// @warplens tune BK = 8, 16
// @warplens tune TM = 8, 4
// @warplens tune TN = 8, 4
// @warplens restrict block.x == BM * BN / (TM * TN) && block.y == 1 && block.z == 1
// @warplens arg a: in float[m * k] random(-1, 1)
// @warplens arg b: in float[k * n] random(-1, 1)
// @warplens arg c: out float[m * n]
// @warplens arg m: int = m
// @warplens arg n: int = n
// @warplens arg k: int = k
// @warplens block 256
// @warplens grid ceil_div(n, BN), ceil_div(m, BM)
// @warplens check none

template <int kRows, int kCols>
__device__ __forceinline__ void multiply_add(float (&acc)[kRows][kCols],
                                             const float (&a_values)[kRows],
                                             const float (&b_values)[kCols]) {
#pragma unroll
  for (int i = 0; i < kRows; ++i)
#pragma unroll
    for (int jj = 0; jj < kCols; ++jj) {
      const int j = i % 2 ? kCols - 1 - jj : jj;
      acc[i][j] += a_values[i] * b_values[j];
    }
}

__device__ __forceinline__ int block_tile_row(int thread, int i, int bn, int tm, int tn) {
  return thread / (bn / tn) * tm + i;
}
__device__ __forceinline__ int block_tile_col(int thread, int j, int bn, int tn) {
  return thread % (bn / tn) * tn + j;
}

template <int kBM, int kBN, int kBK, int kTM, int kTN>
__global__ void __launch_bounds__(kBM* kBN / (kTM * kTN))
    matmul_blocktile(const float* __restrict__ a, const float* __restrict__ b,
                     float* __restrict__ c, int m, int n, int k) {
  constexpr int kThreads = kBM * kBN / (kTM * kTN);
  constexpr int kAWords = kBM * kBK;
  __shared__ float tiles[kAWords + kBK * kBN]; // A's tile, BM x BK, then B's, BK x BN
  const int t = threadIdx.x;
  const int row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;
  float acc[kTM][kTN] = {};
  for (int step = 0; step < (k + kBK - 1) / kBK; ++step) {
#pragma unroll
    for (int r = 0; r < kBM * kBK / kThreads; ++r) {
      const int e = r * kThreads + t;
      const int tile_row = e / kBK, tile_col = e % kBK;
      const int row = row0 + tile_row, col = step * kBK + tile_col;
      const float staged = row < m && col < k ? a[row * k + col] : 0.0f;
      tiles[tile_row * kBK + tile_col] = staged;
    }
#pragma unroll
    for (int r = 0; r < kBK * kBN / kThreads; ++r) {
      const int e = r * kThreads + t;
      const int tile_row = e / kBN, tile_col = e % kBN;
      const int row = step * kBK + tile_row, col = col0 + tile_col;
      const float staged = row < k && col < n ? b[row * n + col] : 0.0f;
      tiles[kAWords + tile_row * kBN + tile_col] = staged;
    }
    __syncthreads();
#pragma unroll
    for (int dot = 0; dot < kBK; ++dot) {
      float a_values[kTM], b_values[kTN];
#pragma unroll
      for (int i = 0; i < kTM; ++i) {
        const int word = block_tile_row(t, i, kBN, kTM, kTN) * kBK + dot;
        a_values[i] = tiles[word];
      }
#pragma unroll
      for (int j = 0; j < kTN; ++j) {
        const int word = kAWords + dot * kBN + block_tile_col(t, j, kBN, kTN);
        b_values[j] = tiles[word];
      }
      multiply_add(acc, a_values, b_values);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kTM; ++i)
#pragma unroll
    for (int j = 0; j < kTN; ++j) {
      const int row = row0 + block_tile_row(t, i, kBN, kTM, kTN);
      const int col = col0 + block_tile_col(t, j, kBN, kTN);
      if (row < m && col < n)
        c[row * n + col] = acc[i][j];
    }
}
