// mirrors: matmul/async_copy
// compare at: --param m=128 --param n=256 --param k=16
// compare at: --param m=130 --param n=260 --param k=8 --param group=2
// rename: bm=BM, bn=BN, bk=BK, tm=TM, tn=TN, wm=WM, wn=WN, wn_iter=WN_ITER, stages=STAGES
// known: the file model does not run cp.async (its copies' global loads and shared stores are not
// known: counted: a note on their line says so); the bundled model counts both as sites.
// warptile's warp tiles fed by STAGES stages of shared tiles that cp.async fills STAGES - 1
// steps ahead; A copied float by float, landing transposed, B as float4s.
// @warplens kernel matmul_async_copy<BM, BN, BK, WM, WN, WN_ITER, TM, TN, STAGES>
// @warplens size m = 4096
// @warplens size n = 4096
// @warplens size k = 4096
// @warplens size group = 8
// @warplens tune BM = 128
// @warplens tune BN = 256, 128
// @warplens tune BK = 16, 8
// @warplens tune TM = 8
// @warplens tune TN = 4
// @warplens tune WM = 64
// @warplens tune WN = 64
// @warplens tune WN_ITER = 4
// @warplens tune STAGES = 3, 2, 4
// @warplens restrict block.x == BM / WM * (BN / WN) * 32 && block.y == 1 && block.z == 1
// @warplens arg a: in float[m * k] random(-1, 1)
// @warplens arg b: in float[k * n] random(-1, 1)
// @warplens arg c: out float[m * n]
// @warplens arg m: int = m
// @warplens arg n: int = n
// @warplens arg k: int = k
// @warplens arg group: int = group
// @warplens block 256
// @warplens grid ceil_div(n, BN), ceil_div(m, BM)
// @warplens shared 4 * STAGES * (BK * (BM + 4) + BK * BN)
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

// kernels/index/matmul.h: the launch order in groups of tile rows, and the warp tiles' lanes.
__device__ int grouped_first_row(int bx, int by, int grid_x, int group) {
  return (by * grid_x + bx) / (group * grid_x) * group;
}
__device__ int grouped_rows(int bx, int by, int grid_x, int grid_y, int group) {
  const int first = grouped_first_row(bx, by, grid_x, group);
  return grid_y - first < group ? grid_y - first : group;
}
__device__ int grouped_tile_row(int bx, int by, int grid_x, int grid_y, int group) {
  const int in_group = (by * grid_x + bx) % (group * grid_x);
  return grouped_first_row(bx, by, grid_x, group) +
         in_group % grouped_rows(bx, by, grid_x, grid_y, group);
}
__device__ int grouped_tile_col(int bx, int by, int grid_x, int grid_y, int group) {
  const int in_group = (by * grid_x + bx) % (group * grid_x);
  return in_group / grouped_rows(bx, by, grid_x, grid_y, group);
}
__device__ __forceinline__ int lane_row(int lane, int cols) {
  return lane % 2 + lane / (2 * cols) * 2;
}
__device__ __forceinline__ int lane_col(int lane, int cols) { return lane / 2 % cols; }

template <int kBM, int kBN, int kBK, int kWM, int kWN, int kWNIter, int kTM, int kTN>
struct WarpTiling {
  static constexpr int kThreads = kBM / kWM * (kBN / kWN) * 32;
  static constexpr int kWmIter = kWM * kWN / (32 * kTM * kTN * kWNIter);
  static constexpr int kSubM = kWM / kWmIter, kSubN = kWN / kWNIter;
  static constexpr int kRows = kWmIter * kTM, kCols = kWNIter * kTN;
  static constexpr int kPitch = kBM + 4, kAWords = kBK * kPitch;
  static constexpr int kStageWords = kAWords + kBK * kBN;
  __device__ static int row(int thread, int i) {
    const int warp = thread / 32, lane = thread % 32;
    return warp / (kBN / kWN) * kWM + i / kTM * kSubM + lane_row(lane, kSubN / kTN) * kTM + i % kTM;
  }
  __device__ static int col(int thread, int j) {
    const int warp = thread / 32, lane = thread % 32;
    return warp % (kBN / kWN) * kWN + j / kTN * kSubN + lane_col(lane, kSubN / kTN) * kTN + j % kTN;
  }
};

template <int kBK, int kBN, typename Tiling>
__device__ __forceinline__ void multiply_warp_tiles(const float* stage_tiles,
                                                    float (&acc)[Tiling::kRows][Tiling::kCols]) {
  const int t = threadIdx.x;
#pragma unroll
  for (int dot = 0; dot < kBK; ++dot) {
    float4 frag_a[Tiling::kRows / 4], frag_b[Tiling::kCols / 4];
#pragma unroll
    for (int q = 0; q < Tiling::kRows / 4; ++q) {
      const int word = dot * Tiling::kPitch + Tiling::row(t, 4 * q);
      frag_a[q] = *reinterpret_cast<const float4*>(&stage_tiles[word]);
    }
#pragma unroll
    for (int q = 0; q < Tiling::kCols / 4; ++q) {
      const int word = Tiling::kAWords + dot * kBN + Tiling::col(t, 4 * q);
      frag_b[q] = *reinterpret_cast<const float4*>(&stage_tiles[word]);
    }
    float a_values[Tiling::kRows], b_values[Tiling::kCols];
    unpack<Tiling::kRows>(frag_a, a_values);
    unpack<Tiling::kCols>(frag_b, b_values);
    multiply_add(acc, a_values, b_values);
  }
}

// One cp.async: a float of A (through L1) or a float4 of B (L2 only), global to shared; `inside`
// false reads nothing and writes zeros.
__device__ __forceinline__ void copy_float_async(float* to, const float* from, bool inside) {
  const auto shared = static_cast<unsigned>(__cvta_generic_to_shared(to));
  const int bytes = inside ? 4 : 0;
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(shared), "l"(from), "r"(bytes));
}
__device__ __forceinline__ void copy_float4_async(float* to, const float* from, bool inside) {
  const auto shared = static_cast<unsigned>(__cvta_generic_to_shared(to));
  const int bytes = inside ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(shared), "l"(from),
               "r"(bytes));
}

template <int kBM, int kBN, int kBK, typename Tiling>
__device__ __forceinline__ void copy_stage_async(float* stage_tiles, const float* __restrict__ a,
                                                 const float* __restrict__ b, int m, int n, int k,
                                                 int row0, int col0, int step) {
  const int t = threadIdx.x;
#pragma unroll
  for (int r = 0; r < kBM * kBK / Tiling::kThreads; ++r) {
    const int e = r * Tiling::kThreads + t;
    const int tile_row = e / kBK, tile_col = e % kBK;
    const int row = row0 + tile_row, col = step * kBK + tile_col;
    const bool inside = row < m && col < k;
    const float* from = inside ? a + row * k + col : a;
    copy_float_async(&stage_tiles[tile_col * Tiling::kPitch + tile_row], from, inside);
  }
#pragma unroll
  for (int r = 0; r < kBK * kBN / 4 / Tiling::kThreads; ++r) {
    const int e = r * Tiling::kThreads + t;
    const int tile_row = e / (kBN / 4), tile_col = e % (kBN / 4) * 4;
    const int row = step * kBK + tile_row, col = col0 + tile_col;
    const bool inside = row < k && col < n;
    const float* from = inside ? b + row * n + col : b;
    copy_float4_async(&stage_tiles[Tiling::kAWords + tile_row * kBN + tile_col], from, inside);
  }
}

__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;"); }
template <int kPending> __device__ __forceinline__ void wait_for_copies() {
  asm volatile("cp.async.wait_group %0;" ::"n"(kPending));
}

template <int kBM, int kBN, int kBK, int kWM, int kWN, int kWNIter, int kTM, int kTN, int kStages>
__global__ void __launch_bounds__(WarpTiling<kBM, kBN, kBK, kWM, kWN, kWNIter, kTM, kTN>::kThreads)
    matmul_async_copy(const float* __restrict__ a, const float* __restrict__ b,
                      float* __restrict__ c, int m, int n, int k, int group) {
  using Tiling = WarpTiling<kBM, kBN, kBK, kWM, kWN, kWNIter, kTM, kTN>;
  const int row0 = grouped_tile_row(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y, group) * kBM;
  const int col0 = grouped_tile_col(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y, group) * kBN;
  extern __shared__ float4 stage_float4s[];
  float* stages = reinterpret_cast<float*>(stage_float4s);
  const int steps = (k + kBK - 1) / kBK;
#pragma unroll
  for (int step = 0; step < kStages - 1; ++step) {
    if (step < steps)
      copy_stage_async<kBM, kBN, kBK, Tiling>(stages + step % kStages * Tiling::kStageWords, a, b,
                                              m, n, k, row0, col0, step);
    commit_copies();
  }
  float acc[Tiling::kRows][Tiling::kCols] = {};
  for (int step = 0; step < steps; ++step) {
    wait_for_copies<kStages - 2>();
    __syncthreads();
    const int ahead = step + kStages - 1;
    if (ahead < steps)
      copy_stage_async<kBM, kBN, kBK, Tiling>(stages + ahead % kStages * Tiling::kStageWords, a, b,
                                              m, n, k, row0, col0, ahead);
    commit_copies();
    multiply_warp_tiles<kBK, kBN, Tiling>(stages + step % kStages * Tiling::kStageWords, acc);
  }
  const int t = threadIdx.x;
#pragma unroll
  for (int i = 0; i < Tiling::kRows; ++i)
#pragma unroll
    for (int q = 0; q < Tiling::kCols / 4; ++q) {
      const int row = row0 + Tiling::row(t, i), col = col0 + Tiling::col(t, 4 * q);
      const float4 values{acc[i][4 * q], acc[i][4 * q + 1], acc[i][4 * q + 2], acc[i][4 * q + 3]};
      if (row < m && col < n)
        *reinterpret_cast<float4*>(&c[row * n + col]) = values;
    }
}
