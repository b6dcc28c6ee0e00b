// mirrors: matmul/double_buffered
// compare at: --param m=128 --param n=128 --param k=16
// compare at: --param m=300 --param n=132 --param k=8 --param group=2
// compare at: --param m=67 --param n=44 --param k=20 --param group=1
// compare at: --param m=128 --param n=128 --param k=16 --param bk=16 --param wn=32 --param wn_iter=2 --block 256
// rename: bm=BM, bn=BN, bk=BK, tm=TM, tn=TN, wm=WM, wn=WN, wn_iter=WN_ITER
// compiler may add: line 163: shared load, 8 B (NVRTC 13.0's code varies with its heap layout)
// warptile with two stages of shared tiles: the next step's loads are issued before this step's
// arithmetic and stored after it into the other stage. Blocks take their C tiles in groups of
// `group` tile rows (down each column of a group first).
// @warplens kernel matmul_warptile<BM, BN, BK, WM, WN, WN_ITER, TM, TN, 2>
// @warplens size m = 4096
// @warplens size n = 4096
// @warplens size k = 4096
// @warplens size group = 8
// @warplens tune BM = 128
// @warplens tune BN = 128
// @warplens tune BK = 8, 16
// @warplens tune TM = 8
// @warplens tune TN = 4
// @warplens tune WM = 64
// @warplens tune WN = 64, 32
// @warplens tune WN_ITER = 4, 2
// @warplens restrict block.x == BM / WM * (BN / WN) * 32 && block.y == 1 && block.z == 1
// @warplens arg a: in float[m * k] random(-1, 1)
// @warplens arg b: in float[k * n] random(-1, 1)
// @warplens arg c: out float[m * n]
// @warplens arg m: int = m
// @warplens arg n: int = n
// @warplens arg k: int = k
// @warplens arg group: int = group
// @warplens block 128
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

// The float4s one thread stages of one k-step, held in registers between the load and the store.
template <int kBM, int kBN, int kBK, int kThreads> struct VectorStage {
  static constexpr int kARounds = kBM * kBK / 4 / kThreads, kBRounds = kBK * kBN / 4 / kThreads;
  float4 a[kARounds];
  float4 b[kBRounds];
};

template <int kBM, int kBN, int kBK, int kThreads>
__device__ __forceinline__ void
load_vector_stage(VectorStage<kBM, kBN, kBK, kThreads>& stage, const float* __restrict__ a,
                  const float* __restrict__ b, int m, int n, int k, int row0, int col0, int step) {
  const int t = threadIdx.x;
#pragma unroll
  for (int r = 0; r < stage.kARounds; ++r) {
    const int e = r * kThreads + t;
    const int row = row0 + e / (kBK / 4);
    const int col = step * kBK + e % (kBK / 4) * 4;
    const float* from = a + row * k + col;
    stage.a[r] = row < m && col < k ? *reinterpret_cast<const float4*>(from) : float4{};
  }
#pragma unroll
  for (int r = 0; r < stage.kBRounds; ++r) {
    const int e = r * kThreads + t;
    const int row = step * kBK + e / (kBN / 4);
    const int col = col0 + e % (kBN / 4) * 4;
    const float* from = b + row * n + col;
    stage.b[r] = row < k && col < n ? *reinterpret_cast<const float4*>(from) : float4{};
  }
}

template <int kPitch, int kBM, int kBN, int kBK, int kThreads>
__device__ __forceinline__ void
store_vector_stage(const VectorStage<kBM, kBN, kBK, kThreads>& stage, float* stage_tiles) {
  const int t = threadIdx.x;
#pragma unroll
  for (int r = 0; r < stage.kARounds; ++r) {
    const int e = r * kThreads + t;
    const int tile_row = e / (kBK / 4), tile_col = e % (kBK / 4) * 4;
    const float* values = &stage.a[r].x;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int word = (tile_col + q) * kPitch + tile_row;
      stage_tiles[word] = values[q];
    }
  }
#pragma unroll
  for (int r = 0; r < stage.kBRounds; ++r) {
    const int e = r * kThreads + t;
    const int word = kBK * kPitch + e / (kBN / 4) * kBN + e % (kBN / 4) * 4;
    *reinterpret_cast<float4*>(&stage_tiles[word]) = stage.b[r];
  }
}

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

template <int kBM, int kBN, int kBK, int kWM, int kWN, int kWNIter, int kTM, int kTN, int kBuffers>
__global__ void __launch_bounds__(WarpTiling<kBM, kBN, kBK, kWM, kWN, kWNIter, kTM, kTN>::kThreads)
    matmul_warptile(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                    int m, int n, int k, int group) {
  using Tiling = WarpTiling<kBM, kBN, kBK, kWM, kWN, kWNIter, kTM, kTN>;
  const int row0 = grouped_tile_row(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y, group) * kBM;
  const int col0 = grouped_tile_col(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y, group) * kBN;
  __shared__ __align__(16) float tiles[kBuffers * Tiling::kStageWords];
  float acc[Tiling::kRows][Tiling::kCols] = {};
  VectorStage<kBM, kBN, kBK, Tiling::kThreads> stage;
  const int steps = (k + kBK - 1) / kBK;
  if constexpr (kBuffers == 1) {
    for (int step = 0; step < steps; ++step) {
      load_vector_stage(stage, a, b, m, n, k, row0, col0, step);
      store_vector_stage<Tiling::kPitch>(stage, tiles);
      __syncthreads();
      multiply_warp_tiles<kBK, kBN, Tiling>(tiles, acc);
      __syncthreads();
    }
  } else {
    load_vector_stage(stage, a, b, m, n, k, row0, col0, 0);
    store_vector_stage<Tiling::kPitch>(stage, tiles);
    __syncthreads();
    for (int step = 0; step < steps; ++step) {
      const bool more = step + 1 < steps;
      if (more)
        load_vector_stage(stage, a, b, m, n, k, row0, col0, step + 1);
      multiply_warp_tiles<kBK, kBN, Tiling>(tiles + (step % 2) * Tiling::kStageWords, acc);
      if (more)
        store_vector_stage<Tiling::kPitch>(stage, tiles + ((step + 1) % 2) * Tiling::kStageWords);
      __syncthreads();
    }
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
