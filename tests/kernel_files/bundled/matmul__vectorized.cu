// mirrors: matmul/vectorized
// compare at: --param m=128 --param n=128 --param k=16
// compare at: --param m=67 --param n=44 --param k=84 --param bk=16
// compare at: --param m=1 --param n=4 --param k=4
// compare at: --param m=129 --param n=132 --param k=20 --param bm=64 --param bn=64 --param bk=16 --param tm=4 --param tn=4 --block 256
// compare at: --param m=128 --param n=128 --param k=16 --arch a100
// known: at --arch a100 (sm_80), NVVM's PTX has one more access on the A tile read's line: after
// known: the first dot's first ld.shared.v4.f32 (marked `.pragma "used_bytes_mask 255"`) it reads
// known: bytes 8-15 again with an ld.shared.v2.f32, once per k-step. The file model counts that
// known: PTX access (16 B / 8 B site); the bundled model knows only the source's float4 reads.
// known: Whether the SASS keeps it is ptxas's choice (sm_90's PTX has no such load).
// rename: bm=BM, bn=BN, bk=BK, tm=TM, tn=TN
// blocktile_2d with every access 16 bytes wide: float4 loads of A and B, A's tile stored
// transposed (four 4-byte stores down a column), the tiles read as float4s, C written as float4s.
// @warplens kernel matmul_vectorized<BM, BN, BK, TM, TN>
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

template <int kCount>
__device__ __forceinline__ void unpack(const float4 (&from)[kCount / 4], float (&values)[kCount]) {
#pragma unroll
  for (int q = 0; q < kCount / 4; ++q) {
    values[4 * q] = from[q].x;
    values[4 * q + 1] = from[q].y;
    values[4 * q + 2] = from[q].z;
    values[4 * q + 3] = from[q].w;
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
    matmul_vectorized(const float* __restrict__ a, const float* __restrict__ b,
                      float* __restrict__ c, int m, int n, int k) {
  constexpr int kThreads = kBM * kBN / (kTM * kTN);
  constexpr int kAWords = kBK * kBM; // transposed, unpadded
  constexpr int kARounds = kBM * kBK / 4 / kThreads, kBRounds = kBK * kBN / 4 / kThreads;
  __shared__ __align__(16) float tiles[kAWords + kBK * kBN];
  const int t = threadIdx.x;
  const int row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;
  float acc[kTM][kTN] = {};
  for (int step = 0; step < (k + kBK - 1) / kBK; ++step) {
    float4 stage_a[kARounds], stage_b[kBRounds];
#pragma unroll
    for (int r = 0; r < kARounds; ++r) {
      const int e = r * kThreads + t;
      const int row = row0 + e / (kBK / 4);
      const int col = step * kBK + e % (kBK / 4) * 4;
      const float* from = a + row * k + col;
      stage_a[r] = row < m && col < k ? *reinterpret_cast<const float4*>(from) : float4{};
    }
#pragma unroll
    for (int r = 0; r < kBRounds; ++r) {
      const int e = r * kThreads + t;
      const int row = step * kBK + e / (kBN / 4);
      const int col = col0 + e % (kBN / 4) * 4;
      const float* from = b + row * n + col;
      stage_b[r] = row < k && col < n ? *reinterpret_cast<const float4*>(from) : float4{};
    }
#pragma unroll
    for (int r = 0; r < kARounds; ++r) {
      const int e = r * kThreads + t;
      const int tile_row = e / (kBK / 4), tile_col = e % (kBK / 4) * 4;
      const float* values = &stage_a[r].x;
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const int word = (tile_col + q) * kBM + tile_row;
        tiles[word] = values[q];
      }
    }
#pragma unroll
    for (int r = 0; r < kBRounds; ++r) {
      const int e = r * kThreads + t;
      const int word = kAWords + e / (kBN / 4) * kBN + e % (kBN / 4) * 4;
      *reinterpret_cast<float4*>(&tiles[word]) = stage_b[r];
    }
    __syncthreads();
#pragma unroll
    for (int dot = 0; dot < kBK; ++dot) {
      float4 a_quads[kTM / 4], b_quads[kTN / 4];
#pragma unroll
      for (int q = 0; q < kTM / 4; ++q) {
        const int row = block_tile_row(t, 4 * q, kBN, kTM, kTN);
        const int word = dot * kBM + row;
        a_quads[q] = *reinterpret_cast<const float4*>(&tiles[word]);
      }
#pragma unroll
      for (int q = 0; q < kTN / 4; ++q) {
        const int word = kAWords + dot * kBN + block_tile_col(t, 4 * q, kBN, kTN);
        b_quads[q] = *reinterpret_cast<const float4*>(&tiles[word]);
      }
      float a_values[kTM], b_values[kTN];
      unpack<kTM>(a_quads, a_values);
      unpack<kTN>(b_quads, b_values);
      multiply_add(acc, a_values, b_values);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kTM; ++i)
#pragma unroll
    for (int q = 0; q < kTN / 4; ++q) {
      const int row = row0 + block_tile_row(t, i, kBN, kTM, kTN);
      const int col = col0 + block_tile_col(t, 4 * q, kBN, kTN);
      const float4 values{acc[i][4 * q], acc[i][4 * q + 1], acc[i][4 * q + 2], acc[i][4 * q + 3]};
      if (row < m && col < n)
        *reinterpret_cast<float4*>(&c[row * n + col]) = values;
    }
}
