// matmul: C = A . B in fp32, row-major, from a thread per output to cuBLAS.
//
// The lesson: the same arithmetic runs at very different speeds depending on how the loads reach
// memory. naive puts threadIdx.x along C's columns, so a warp reads one row segment of B (4
// sectors per request) and one broadcast word of A; naive_uncoalesced swaps the mapping and every
// A load scatters over 32 rows (32 sectors). tiled stages 16x16 or 32x32 tiles of A and B in
// shared memory, so each global element is loaded once per tile instead of once per output;
// tiled_padded adds a word per tile row, which this kernel's access pattern does not need.
// Global memory panel: sectors per request of load A / load B in each variant, and how many
// requests the tiles save. Bank grid: the tile reads are broadcasts (A) and consecutive words (B),
// conflict-free; with 16x16 padded tiles the tile stores become 2-way. Occupancy: the tiles'
// shared memory (2 or 8 KiB per block) and the block size. Timings: GFLOP/s against cuBLAS, whose
// kernels the model cannot see.

#include "common.h"
#include "families.h"
#include "index/matmul.h"
#include "matmul_reference.h"
#if WL_DEVICE_CODE
#include "launch.cuh"

#include <cublas_v2.h>
#endif

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>

#include <dlfcn.h>

namespace wl {

#if WL_DEVICE_CODE
// One output per thread: the dot product of row `row` of A and column `col` of B.
__device__ void matmul_one_output(const float* a, const float* b, float* c, int m, int n, int k,
                                  int row, int col) {
  if (row >= m || col >= n)
    return;
  float sum = 0.0f;
  for (int p = 0; p < k; ++p) {
    const float from_a = a[matmul::row_major(row, p, k)]; // site: load A
    const float from_b = b[matmul::row_major(p, col, n)]; // site: load B
    sum += from_a * from_b;
  }
  c[matmul::row_major(row, col, n)] = sum; // site: store C
}

__global__ void matmul_naive(const float* a, const float* b, float* c, int m, int n, int k) {
  const int col = matmul::element(blockIdx.x, blockDim.x, threadIdx.x);
  const int row = matmul::element(blockIdx.y, blockDim.y, threadIdx.y);
  matmul_one_output(a, b, c, m, n, k, row, col);
}

__global__ void matmul_naive_uncoalesced(const float* a, const float* b, float* c, int m, int n,
                                         int k) {
  const int row = matmul::element(blockIdx.x, blockDim.x, threadIdx.x);
  const int col = matmul::element(blockIdx.y, blockDim.y, threadIdx.y);
  matmul_one_output(a, b, c, m, n, k, row, col);
}

// Both tiled variants: a kTile x kTile block computes a kTile x kTile tile of C. For each step
// along k, every thread stages one element of A's tile and one of B's (zero past the matrix
// edges, so a partial last step adds nothing), then reads a row of A's tile and a column of B's.
template <int kTile, int kPitch>
__device__ void matmul_through_tiles(const float* a, const float* b, float* c, int m, int n,
                                     int k) {
  // A's tile, then B's, in one array so the shared offsets the sites declare are the real ones.
  __shared__ float tiles[2 * kTile * kPitch];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = matmul::element(blockIdx.y, kTile, ty);
  const int col = matmul::element(blockIdx.x, kTile, tx);
  float sum = 0.0f;
  for (int step = 0; step < matmul::tile_count(k, kTile); ++step) {
    const int a_col = matmul::staged_k(step, kTile, tx), b_row = matmul::staged_k(step, kTile, ty);
    const float staged_a =
        row < m && a_col < k ? a[matmul::row_major(row, a_col, k)] : 0.0f; // site: load A
    const float staged_b =
        b_row < k && col < n ? b[matmul::row_major(b_row, col, n)] : 0.0f; // site: load B
    tiles[matmul::a_tile_word(ty, tx, kPitch)] = staged_a;                 // site: store A tile
    tiles[matmul::b_tile_word(ty, tx, kTile, kPitch)] = staged_b;          // site: store B tile
    __syncthreads();
    for (int q = 0; q < kTile; ++q) {
      const float from_a = tiles[matmul::a_tile_word(ty, q, kPitch)];        // site: load A tile
      const float from_b = tiles[matmul::b_tile_word(q, tx, kTile, kPitch)]; // site: load B tile
      sum += from_a * from_b;
    }
    __syncthreads(); // the next step overwrites the tiles
  }
  if (row < m && col < n)
    c[matmul::row_major(row, col, n)] = sum; // site: store C
}

template <int kTile>
__global__ void matmul_tiled(const float* a, const float* b, float* c, int m, int n, int k) {
  matmul_through_tiles<kTile, kTile>(a, b, c, m, n, k);
}

template <int kTile>
__global__ void matmul_tiled_padded(const float* a, const float* b, float* c, int m, int n, int k) {
  matmul_through_tiles<kTile, kTile + 1>(a, b, c, m, n, k);
}

// ---- the register-blocked rungs ----------------------------------------------------------------
// Each thread computes a tile of outputs from values it holds in registers, so a word read from
// shared memory feeds several multiply-adds. Past the matrices' edges the staged tiles hold
// zeros, so the inner loops need no guards.

// acc[i][j] += a_values[i] * b_values[j]: the outer product of a column of A's tile and a row of
// B's, rows x cols multiply-adds from rows + cols registers. Each row runs the other way from the
// one before (a serpentine): consecutive multiply-adds share a_values[i] along a row and
// b_values[j] at each turn. Measured on the H200, this order took the warp-tiled rungs from
// 83.2 to 84.7 % of cuBLAS (row by row) and a column-major order cost 5 %: the register file's
// banks and reuse cache see each instruction's operands.
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

// blocktile_1d (TN = 1) and blocktile_2d: a block of BM*BN/(TM*TN) threads computes a BM x BN
// tile of C, each thread a TM x TN tile of it. Every thread stages single floats of both tiles;
// for each of the BK columns of A's tile it reads TM values of A and TN of B into registers.
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__(BM* BN / (TM * TN))
    matmul_blocktile(const float* __restrict__ a, const float* __restrict__ b,
                     float* __restrict__ c, int m, int n, int k) {
  constexpr int kThreads = BM * BN / (TM * TN);
  constexpr int kAWords = BM * BK;
  __shared__ float tiles[kAWords + BK * BN]; // A's tile, BM x BK, then B's, BK x BN
  const int t = threadIdx.x;
  const int row0 = matmul::element(blockIdx.y, BM, 0), col0 = matmul::element(blockIdx.x, BN, 0);
  float acc[TM][TN] = {};
  for (int step = 0; step < matmul::tile_count(k, BK); ++step) {
#pragma unroll
    for (int r = 0; r < BM * BK / kThreads; ++r) {
      const int e = matmul::staged_element(t, r, kThreads);
      const int tile_row = matmul::staged_row(e, BK), tile_col = matmul::staged_col(e, BK, 1);
      const int row = row0 + tile_row, col = matmul::staged_k(step, BK, tile_col);
      const float staged =
          row < m && col < k ? a[matmul::row_major(row, col, k)] : 0.0f; // site: load A
      tiles[matmul::a_word(tile_row, tile_col, BK)] = staged;            // site: store A tile
    }
#pragma unroll
    for (int r = 0; r < BK * BN / kThreads; ++r) {
      const int e = matmul::staged_element(t, r, kThreads);
      const int tile_row = matmul::staged_row(e, BN), tile_col = matmul::staged_col(e, BN, 1);
      const int row = matmul::staged_k(step, BK, tile_row), col = col0 + tile_col;
      const float staged =
          row < k && col < n ? b[matmul::row_major(row, col, n)] : 0.0f; // site: load B
      tiles[matmul::b_word(kAWords, tile_row, tile_col, BN)] = staged;   // site: store B tile
    }
    __syncthreads();
#pragma unroll
    for (int dot = 0; dot < BK; ++dot) {
      float a_values[TM], b_values[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        const int word = matmul::a_word(matmul::block_tile_row(t, i, BN, TM, TN), dot, BK);
        a_values[i] = tiles[word]; // site: load A tile
      }
#pragma unroll
      for (int j = 0; j < TN; ++j) {
        const int word = matmul::b_word(kAWords, dot, matmul::block_tile_col(t, j, BN, TN), BN);
        b_values[j] = tiles[word]; // site: load B tile
      }
      multiply_add(acc, a_values, b_values);
    }
    __syncthreads(); // the next step overwrites the tiles
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int row = row0 + matmul::block_tile_row(t, i, BN, TM, TN);
      const int col = col0 + matmul::block_tile_col(t, j, BN, TN);
      if (row < m && col < n)
        c[matmul::row_major(row, col, n)] = acc[i][j]; // site: store C
    }
}

// The float4s one thread stages of one k-step: A's tile row by row, B's likewise, each 16 bytes
// along a row (k and n are multiples of 4, so every float4 is aligned). Held in registers between
// the load and the store, so the double-buffered rung loads the next step while it computes.
template <int BM, int BN, int BK, int kThreads> struct VectorStage {
  static constexpr int kARounds = BM * BK / 4 / kThreads, kBRounds = BK * BN / 4 / kThreads;
  float4 a[kARounds];
  float4 b[kBRounds];
};

template <int BM, int BN, int BK, int kThreads>
__device__ __forceinline__ void
load_vector_stage(VectorStage<BM, BN, BK, kThreads>& stage, const float* __restrict__ a,
                  const float* __restrict__ b, int m, int n, int k, int row0, int col0, int step) {
  const int t = threadIdx.x;
#pragma unroll
  for (int r = 0; r < stage.kARounds; ++r) {
    const int e = matmul::staged_element(t, r, kThreads);
    const int row = row0 + matmul::staged_row(e, BK / 4);
    const int col = matmul::staged_k(step, BK, matmul::staged_col(e, BK / 4, 4));
    const float* from = a + matmul::row_major(row, col, k);
    stage.a[r] =
        row < m && col < k ? *reinterpret_cast<const float4*>(from) : float4{}; // site: load A
  }
#pragma unroll
  for (int r = 0; r < stage.kBRounds; ++r) {
    const int e = matmul::staged_element(t, r, kThreads);
    const int row = matmul::staged_k(step, BK, matmul::staged_row(e, BN / 4));
    const int col = col0 + matmul::staged_col(e, BN / 4, 4);
    const float* from = b + matmul::row_major(row, col, n);
    stage.b[r] =
        row < k && col < n ? *reinterpret_cast<const float4*>(from) : float4{}; // site: load B
  }
}

// Stores a stage into shared memory: A's tile transposed (k-major, four 4-byte stores per float4)
// so that a thread's rows of A are consecutive words it reads as float4s; B's as it came.
template <int kPitch, int BM, int BN, int BK, int kThreads>
__device__ __forceinline__ void store_vector_stage(const VectorStage<BM, BN, BK, kThreads>& stage,
                                                   float* stage_tiles) {
  const int t = threadIdx.x;
#pragma unroll
  for (int r = 0; r < stage.kARounds; ++r) {
    const int e = matmul::staged_element(t, r, kThreads);
    const int tile_row = matmul::staged_row(e, BK / 4), tile_col = matmul::staged_col(e, BK / 4, 4);
    const float* values = &stage.a[r].x;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int word = matmul::a_word_transposed(tile_row, tile_col + q, kPitch);
      stage_tiles[word] = values[q]; // site: store A tile
    }
  }
#pragma unroll
  for (int r = 0; r < stage.kBRounds; ++r) {
    const int e = matmul::staged_element(t, r, kThreads);
    const int word = matmul::b_word(BK * kPitch, matmul::staged_row(e, BN / 4),
                                    matmul::staged_col(e, BN / 4, 4), BN);
    *reinterpret_cast<float4*>(&stage_tiles[word]) = stage.b[r]; // site: store B tile
  }
}

// Copies float4s into a row of registers: values[4q .. 4q+3] = from[q].
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

// Writes a thread's tile of C as float4s along its rows; row_of(i) and col_of(j) place its i-th
// row and j-th column in C.
template <int kRows, int kCols, typename RowOf, typename ColOf>
__device__ __forceinline__ void store_vector_tile(const float (&acc)[kRows][kCols], float* c, int m,
                                                  int n, RowOf row_of, ColOf col_of) {
#pragma unroll
  for (int i = 0; i < kRows; ++i)
#pragma unroll
    for (int q = 0; q < kCols / 4; ++q) {
      const int row = row_of(i), col = col_of(4 * q);
      const float4 values{acc[i][4 * q], acc[i][4 * q + 1], acc[i][4 * q + 2], acc[i][4 * q + 3]};
      if (row < m && col < n)
        *reinterpret_cast<float4*>(&c[matmul::row_major(row, col, n)]) = values; // site: store C
    }
}

// vectorized: blocktile_2d's thread tiles, with every global and shared access 16 bytes wide and
// A's tile stored transposed, so a thread's TM values of A are TM/4 float4 reads.
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__(BM* BN / (TM * TN))
    matmul_vectorized(const float* __restrict__ a, const float* __restrict__ b,
                      float* __restrict__ c, int m, int n, int k) {
  constexpr int kThreads = BM * BN / (TM * TN);
  constexpr int kAWords = BK * BM; // transposed, unpadded
  __shared__ __align__(16) float tiles[kAWords + BK * BN];
  const int t = threadIdx.x;
  const int row0 = matmul::element(blockIdx.y, BM, 0), col0 = matmul::element(blockIdx.x, BN, 0);
  float acc[TM][TN] = {};
  for (int step = 0; step < matmul::tile_count(k, BK); ++step) {
    VectorStage<BM, BN, BK, kThreads> stage;
    load_vector_stage(stage, a, b, m, n, k, row0, col0, step);
    store_vector_stage<BM>(stage, tiles);
    __syncthreads();
#pragma unroll
    for (int dot = 0; dot < BK; ++dot) {
      float4 a_quads[TM / 4], b_quads[TN / 4];
#pragma unroll
      for (int q = 0; q < TM / 4; ++q) {
        const int row = matmul::block_tile_row(t, 4 * q, BN, TM, TN);
        const int word = matmul::a_word_transposed(row, dot, BM);
        a_quads[q] = *reinterpret_cast<const float4*>(&tiles[word]); // site: load A tile
      }
#pragma unroll
      for (int q = 0; q < TN / 4; ++q) {
        const int word = matmul::b_word(kAWords, dot, matmul::block_tile_col(t, 4 * q, BN, TN), BN);
        b_quads[q] = *reinterpret_cast<const float4*>(&tiles[word]); // site: load B tile
      }
      float a_values[TM], b_values[TN];
      unpack<TM>(a_quads, a_values);
      unpack<TN>(b_quads, b_values);
      multiply_add(acc, a_values, b_values);
    }
    __syncthreads(); // the next step overwrites the tiles
  }
  store_vector_tile(
      acc, c, m, n, [&](int i) { return row0 + matmul::block_tile_row(t, i, BN, TM, TN); },
      [&](int j) { return col0 + matmul::block_tile_col(t, j, BN, TN); });
}

// The warp-tiled rungs' shape, from their template arguments. A's transposed tile rows are
// padded by a float4 (pitch BM + 4): the four words a thread stores down a column then fall on
// two banks' worth of rows apart, a 2-way conflict instead of 4-way, and every row stays 16-byte
// aligned for the float4 reads.
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN> struct WarpTiling {
  static constexpr int kThreads = BM / WM * (BN / WN) * 32;
  static constexpr int kWmIter = WM * WN / (32 * TM * TN * WNITER);
  static constexpr int kSubM = WM / kWmIter, kSubN = WN / WNITER;
  static constexpr int kRows = kWmIter * TM, kCols = WNITER * TN; // a thread's outputs
  static constexpr int kPitch = BM + 4, kAWords = BK * kPitch;
  static constexpr int kStageWords = matmul::stage_word(1, kAWords, BN, BK);
  __device__ static int row(int thread, int i) {
    return matmul::warp_tile_row(thread, i, BN, WM, WN, kSubM, kSubN, TM, TN);
  }
  __device__ static int col(int thread, int j) {
    return matmul::warp_tile_col(thread, j, BN, WN, kSubN, TN);
  }
};

// A thread's float4s of one column of A's tile (its rows) and of one row of B's (its columns).
template <typename Tiling> struct Fragments {
  float4 a[Tiling::kRows / 4];
  float4 b[Tiling::kCols / 4];
};

template <int BN, typename Tiling>
__device__ __forceinline__ void load_fragments(const float* stage_tiles, int dot,
                                               Fragments<Tiling>& into) {
  const int t = threadIdx.x;
#pragma unroll
  for (int q = 0; q < Tiling::kRows / 4; ++q) {
    const int word = matmul::a_word_transposed(Tiling::row(t, 4 * q), dot, Tiling::kPitch);
    into.a[q] = *reinterpret_cast<const float4*>(&stage_tiles[word]); // site: load A tile
  }
#pragma unroll
  for (int q = 0; q < Tiling::kCols / 4; ++q) {
    const int word = matmul::b_word(Tiling::kAWords, dot, Tiling::col(t, 4 * q), BN);
    into.b[q] = *reinterpret_cast<const float4*>(&stage_tiles[word]); // site: load B tile
  }
}

// One k-step of a warp-tiled block: for each column of A's tile, a thread reads its rows of A
// and its columns of B (float4s; the lanes of a warp read neighbouring words) and adds their
// outer product. The loop is unrolled, so the compiler issues a column's reads ahead of the
// previous column's multiply-adds (reading them into a second set of registers by hand measured
// no faster).
template <int BK, int BN, typename Tiling>
__device__ __forceinline__ void multiply_warp_tiles(const float* stage_tiles,
                                                    float (&acc)[Tiling::kRows][Tiling::kCols]) {
#pragma unroll
  for (int dot = 0; dot < BK; ++dot) {
    Fragments<Tiling> fragments;
    load_fragments<BN>(stage_tiles, dot, fragments);
    float a_values[Tiling::kRows], b_values[Tiling::kCols];
    unpack<Tiling::kRows>(fragments.a, a_values);
    unpack<Tiling::kCols>(fragments.b, b_values);
    multiply_add(acc, a_values, b_values);
  }
}

// warptile (kBuffers 1) and double_buffered (2): vectorized's loads, with each warp computing a
// WM x WN tile so that its lanes' shared reads fall on neighbouring words. With two buffers the
// next k-step's global loads are issued before this step's arithmetic and stored after it into
// the other buffer: one barrier per step, and the loads' latency hidden behind the math.
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int kBuffers>
__global__ void __launch_bounds__(WarpTiling<BM, BN, BK, WM, WN, WNITER, TM, TN>::kThreads)
    matmul_warptile(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                    int m, int n, int k, int group) {
  using Tiling = WarpTiling<BM, BN, BK, WM, WN, WNITER, TM, TN>;
  const int row0 = matmul::element(
      matmul::grouped_tile_row(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y, group), BM, 0);
  const int col0 = matmul::element(
      matmul::grouped_tile_col(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y, group), BN, 0);
  __shared__ __align__(16) float tiles[kBuffers * Tiling::kStageWords];
  float acc[Tiling::kRows][Tiling::kCols] = {};
  VectorStage<BM, BN, BK, Tiling::kThreads> stage;
  const int steps = matmul::tile_count(k, BK);
  if constexpr (kBuffers == 1) {
    for (int step = 0; step < steps; ++step) {
      load_vector_stage(stage, a, b, m, n, k, row0, col0, step);
      store_vector_stage<Tiling::kPitch>(stage, tiles);
      __syncthreads();
      multiply_warp_tiles<BK, BN, Tiling>(tiles, acc);
      __syncthreads(); // the next step overwrites the tiles
    }
  } else {
    load_vector_stage(stage, a, b, m, n, k, row0, col0, 0);
    store_vector_stage<Tiling::kPitch>(stage, tiles);
    __syncthreads();
    for (int step = 0; step < steps; ++step) {
      const bool more = step + 1 < steps;
      if (more)
        load_vector_stage(stage, a, b, m, n, k, row0, col0, step + 1);
      multiply_warp_tiles<BK, BN, Tiling>(
          tiles + matmul::stage_word(step % 2, Tiling::kAWords, BN, BK), acc);
      if (more)
        store_vector_stage<Tiling::kPitch>(
            stage, tiles + matmul::stage_word((step + 1) % 2, Tiling::kAWords, BN, BK));
      // One barrier: the stores above fill the buffer every thread finished reading a step ago.
      __syncthreads();
    }
  }
  const int t = threadIdx.x;
  store_vector_tile(
      acc, c, m, n, [&](int i) { return row0 + Tiling::row(t, i); },
      [&](int j) { return col0 + Tiling::col(t, j); });
}

// One cp.async: a float of A (through L1, where the warp's next copies find the same sectors) or
// a float4 of B (L2 only), global to shared; `inside` false reads nothing and writes zeros. The
// line table places each copy on its statement's last line, so the site markers are there; two
// helpers rather than one template, so that A's and B's copies each have a line for their sites.
__device__ __forceinline__ void copy_float_async(float* to, const float* from, bool inside) {
#if __CUDA_ARCH__ >= 800
  const auto shared = static_cast<unsigned>(__cvta_generic_to_shared(to));
  const int bytes = inside ? 4 : 0;
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(shared), "l"(from),
               "r"(bytes)); // sites: load A, store A tile
#endif
}
__device__ __forceinline__ void copy_float4_async(float* to, const float* from, bool inside) {
#if __CUDA_ARCH__ >= 800
  const auto shared = static_cast<unsigned>(__cvta_generic_to_shared(to));
  const int bytes = inside ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(shared), "l"(from),
               "r"(bytes)); // sites: load B, store B tile
#endif
}

// Starts copying one k-step's tiles from global to shared memory without passing through
// registers (cp.async, sm_80 and later), into the stage at `stage_tiles`. A goes 4 bytes at a
// time, so each float lands transposed where the warp tiles read it; a warp's 32 copies take 16
// consecutive floats of two rows (4 sectors; a warp of 4 rows x 8 floats, conflict-free by the
// banks, measured slower and took more wavefronts). B goes as 16-byte float4s along its rows.
// Past the matrices' edges a copy reads nothing and fills zeros (its source size is 0).
template <int BM, int BN, int BK, typename Tiling>
__device__ __forceinline__ void copy_stage_async(float* stage_tiles, const float* __restrict__ a,
                                                 const float* __restrict__ b, int m, int n, int k,
                                                 int row0, int col0, int step) {
  const int t = threadIdx.x;
#pragma unroll
  for (int r = 0; r < BM * BK / Tiling::kThreads; ++r) {
    const int e = matmul::staged_element(t, r, Tiling::kThreads);
    const int tile_row = matmul::staged_row(e, BK), tile_col = matmul::staged_col(e, BK, 1);
    const int row = row0 + tile_row, col = matmul::staged_k(step, BK, tile_col);
    const bool inside = row < m && col < k;
    const float* from = inside ? a + matmul::row_major(row, col, k) : a;
    copy_float_async(&stage_tiles[matmul::a_word_transposed(tile_row, tile_col, Tiling::kPitch)],
                     from, inside);
  }
#pragma unroll
  for (int r = 0; r < BK * BN / 4 / Tiling::kThreads; ++r) {
    const int e = matmul::staged_element(t, r, Tiling::kThreads);
    const int tile_row = matmul::staged_row(e, BN / 4), tile_col = matmul::staged_col(e, BN / 4, 4);
    const int row = matmul::staged_k(step, BK, tile_row), col = col0 + tile_col;
    const bool inside = row < k && col < n;
    const float* from = inside ? b + matmul::row_major(row, col, n) : b;
    copy_float4_async(&stage_tiles[matmul::b_word(Tiling::kAWords, tile_row, tile_col, BN)], from,
                      inside);
  }
}

// The copies a thread started since its last commit form one group; waiting leaves at most
// kPending of its newest groups in flight.
__device__ __forceinline__ void commit_copies() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;");
#endif
}
template <int kPending> __device__ __forceinline__ void wait_for_copies() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;" ::"n"(kPending));
#endif
}

// async_copy: warptile's warp tiles fed by kStages stages of shared tiles that cp.async fills
// kStages - 1 steps ahead. The copies need no registers to stage through (double_buffered's
// take 16 a thread at 128x128x8, 24 at 128x256x16), so the block tile and the step can grow;
// each step waits for its own stage, then one barrier both publishes it and frees the stage the
// next copy overwrites (every thread finished reading it a step ago).
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int kStages>
__global__ void __launch_bounds__(WarpTiling<BM, BN, BK, WM, WN, WNITER, TM, TN>::kThreads)
    matmul_async_copy(const float* __restrict__ a, const float* __restrict__ b,
                      float* __restrict__ c, int m, int n, int k, int group) {
  using Tiling = WarpTiling<BM, BN, BK, WM, WN, WNITER, TM, TN>;
  const int row0 = matmul::element(
      matmul::grouped_tile_row(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y, group), BM, 0);
  const int col0 = matmul::element(
      matmul::grouped_tile_col(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y, group), BN, 0);
  extern __shared__ float4 stage_float4s[]; // kStages stages, over 48 KiB: dynamic
  float* stages = reinterpret_cast<float*>(stage_float4s);
  const auto stage = [&](int step) {
    return stages + matmul::stage_word(step % kStages, Tiling::kAWords, BN, BK);
  };
  const int steps = matmul::tile_count(k, BK);
#pragma unroll
  for (int step = 0; step < kStages - 1; ++step) {
    if (step < steps)
      copy_stage_async<BM, BN, BK, Tiling>(stage(step), a, b, m, n, k, row0, col0, step);
    commit_copies(); // an empty group where there is no step: the wait below counts groups
  }
  float acc[Tiling::kRows][Tiling::kCols] = {};
  for (int step = 0; step < steps; ++step) {
    wait_for_copies<kStages - 2>();
    __syncthreads();
    const int ahead = step + kStages - 1;
    if (ahead < steps)
      copy_stage_async<BM, BN, BK, Tiling>(stage(ahead), a, b, m, n, k, row0, col0, ahead);
    commit_copies();
    multiply_warp_tiles<BK, BN, Tiling>(stage(step), acc);
  }
  const int t = threadIdx.x;
  store_vector_tile(
      acc, c, m, n, [&](int i) { return row0 + Tiling::row(t, i); },
      [&](int j) { return col0 + Tiling::col(t, j); });
}
#endif

namespace {

constexpr int kA = 0, kB = 1, kC = 2;
using Offset = std::optional<std::int64_t>;
using matmul_reference::Dims;

Dims dims(const Params& p) {
  return {static_cast<int>(p.at("m")), static_cast<int>(p.at("n")), static_cast<int>(p.at("k"))};
}

std::vector<BufferSpec> buffers() {
  const auto m_by_k = [](const Params& p) { return p.at("m") * p.at("k"); };
  const auto k_by_n = [](const Params& p) { return p.at("k") * p.at("n"); };
  const auto m_by_n = [](const Params& p) { return p.at("m") * p.at("n"); };
  return {{"a", ElementType::f32, BufferRole::input, m_by_k},
          {"b", ElementType::f32, BufferRole::input, k_by_n},
          {"c", ElementType::f32, BufferRole::output, m_by_n}};
}

Expected reference(const HostBuffers& in, const Params& p) {
  Expected e{common::outputs_like(in, buffers()), {}, ""};
  matmul_reference::product(in[kA].f32(), in[kB].f32(), e.values[kC].f32(), dims(p), e);
  return e;
}

#if WL_DEVICE_CODE
template <auto Kernel> void launch_kernel(const DeviceLaunch& l) {
  const Dims d = dims(l.shape.params);
  Kernel<<<to_dim3(l.shape.grid), to_dim3(l.shape.block), 0, stream_of(l)>>>(
      buffer<const float>(l, kA), buffer<const float>(l, kB), buffer<float>(l, kC), d.m, d.n, d.k);
}
#endif

// The descriptor fields all variants share.
KernelDesc base(std::string id, std::string title, std::string lesson) {
  KernelDesc k;
  k.id = std::move(id);
  k.title = std::move(title);
  k.lesson = std::move(lesson);
  // 16384 per side keeps every matrix below 2^31 elements: the kernels index with 32-bit ints.
  k.params = {
      {"m", "rows of A and C", 4096, 1, 16384, {}, true},
      {"n", "columns of B and C", 4096, 1, 16384, {}, true},
      {"k", "columns of A, rows of B: the length of each dot product", 4096, 1, 16384, {}, true}};
  k.buffers = buffers();
  k.reference = reference;
  // fp32 accumulation of k products of values in [-1, 1) against a double reference: the error
  // grows about linearly in k, not with |C| (a CPU simulation of the same FMA chain: rms 2.5e-5
  // at k = 4096, 1e-4 at 16384, the largest of 2e4 outputs at 16384 7.5e-4). 2e-3 covers k up
  // to 16384; a missing or doubled product (about 0.3 on average) is far above it.
  k.tolerance = {2e-3, 0.0};
  k.bytes_moved = [](const Params& p) {
    const Dims d = dims(p);
    return 4.0 * (double(d.m) * d.k + double(d.k) * d.n + double(d.m) * d.n);
  };
  k.flops = [](const Params& p) {
    const Dims d = dims(p);
    return 2.0 * d.m * d.n * d.k;
  };
  k.test_sizes = {{{"m", 67}, {"n", 45}, {"k", 83}},
                  {{"m", 33}, {"n", 129}, {"k", 47}},
                  {{"m", 100}, {"n", 31}, {"k", 257}},
                  {{"m", 64}, {"n", 64}, {"k", 64}},
                  {{"m", 1}, {"n", 1}, {"k", 1}}};
  return k;
}

// ---- naive and naive_uncoalesced ---------------------------------------------------------------

// What the sites' lanes read from the launch, read once. `tile` is 0 for the naive kernels.
struct Product {
  Dims d;
  BlockShape block;
  int tile = 0;
};
Product product(const LaunchShape& s) {
  const auto tile = s.params.find("tile");
  return {dims(s.params), s.block, tile == s.params.end() ? 0 : static_cast<int>(tile->second)};
}

// The C element (row, col) of thread t in block b: x along C's columns (naive) or rows.
std::optional<std::pair<int, int>> naive_output(const Product& s, Coord b, Coord t,
                                                bool x_along_columns) {
  const Dims& d = s.d;
  const int along_x = matmul::element(b.x, s.block.x, t.x);
  const int along_y = matmul::element(b.y, s.block.y, t.y);
  const int row = x_along_columns ? along_y : along_x;
  const int col = x_along_columns ? along_x : along_y;
  if (row >= d.m || col >= d.n)
    return std::nullopt;
  return std::pair{row, col};
}

// A site's offset from the element index `element_of(dims, row, col, p)` at loop step p.
template <typename ElementOf> auto naive_offset(bool x_along_columns, ElementOf element_of) {
  return common::bound_offsets(
      product, [=](const Product& s, Coord b, Coord t, std::int64_t p) -> Offset {
        const auto rc = naive_output(s, b, t, x_along_columns);
        if (!rc)
          return std::nullopt;
        return 4 * std::int64_t{element_of(s.d, rc->first, rc->second, static_cast<int>(p))};
      });
}

std::vector<Site> naive_sites(bool x_along_columns) {
  const auto k_steps = [](const LaunchShape& s) { return s.param("k"); };
  const auto width = common::fixed_width(4);
  return {{"load A", MemorySpace::global, AccessOp::load, kA, width, k_steps,
           naive_offset(x_along_columns, [](Dims d, int row, int,
                                            int p) { return matmul::row_major(row, p, d.k); })},
          {"load B", MemorySpace::global, AccessOp::load, kB, width, k_steps,
           naive_offset(x_along_columns, [](Dims d, int, int col,
                                            int p) { return matmul::row_major(p, col, d.n); })},
          {"store C", MemorySpace::global, AccessOp::store, kC, width, common::single_iteration(),
           naive_offset(x_along_columns, [](Dims d, int row, int col, int) {
             return matmul::row_major(row, col, d.n);
           })}};
}

KernelDesc naive_variant(std::string id, std::string title, std::string lesson,
                         bool x_along_columns) {
  KernelDesc k = base(std::move(id), std::move(title), std::move(lesson));
  k.block_rank = 2;
  k.default_block = {32, 8, 1};
  k.block_presets = {{32, 8, 1}, {16, 16, 1}, {32, 32, 1}, {8, 32, 1}};
  k.allowed_blocks = "any 2D block of 1 to 1024 threads";
  k.check_block = [](const BlockShape& b, const Params&) -> std::string {
    if (b.z != 1)
      return "a thread per output of a 2D matrix: the block is 2D (z must be 1)";
    if (b.threads() > 1024)
      return "a block holds at most 1024 threads";
    return "";
  };
  k.grid = [x_along_columns](const Params& p, const BlockShape& b, int) {
    const std::int64_t along_x = x_along_columns ? p.at("n") : p.at("m");
    const std::int64_t along_y = x_along_columns ? p.at("m") : p.at("n");
    return BlockShape{static_cast<int>(common::ceil_div(along_x, b.x)),
                      static_cast<int>(common::ceil_div(along_y, b.y)), 1};
  };
  k.sites = naive_sites(x_along_columns);
  return k;
}

KernelDesc naive() {
  KernelDesc k = naive_variant(
      "matmul/naive", "Matmul, one output per thread",
      "Each thread computes one element of C with a k-long loop. threadIdx.x runs along C's "
      "columns, so in each step a warp of a 32-wide block reads 32 consecutive floats of a row of "
      "B (4 sectors per request) and one float of A that all lanes share (1 sector, a broadcast), "
      "and at the end writes 32 consecutive floats of C. Global memory panel: load B at 4 sectors "
      "per request, load A at 1; every element of A and B is requested once per output that "
      "needs it, so the requests dwarf the matrices (the caches absorb most of them). Timings: "
      "compare GFLOP/s with tiled and cuBLAS.",
      true);
  k.symbol = [](const Params&) { return std::string("wl::matmul_naive"); };
#if WL_DEVICE_CODE
  k.function = [](const Params&) { return reinterpret_cast<const void*>(matmul_naive); };
  k.launch = launch_kernel<matmul_naive>;
#endif
  return k;
}

KernelDesc naive_uncoalesced() {
  KernelDesc k = naive_variant(
      "matmul/naive_uncoalesced", "Matmul, one output per thread, x along rows",
      "The same loop with threadIdx.x along C's rows instead. A warp now reads A down a column, "
      "32 floats k apart (32 sectors per request), shares one float of B, and writes C down a "
      "column (32 sectors). Global memory panel: load A at 32 sectors per request against "
      "naive's 4 on load B; the arithmetic is identical, only the thread-to-data mapping "
      "changed. Timings: several times slower than naive.",
      false);
  k.symbol = [](const Params&) { return std::string("wl::matmul_naive_uncoalesced"); };
#if WL_DEVICE_CODE
  k.function = [](const Params&) {
    return reinterpret_cast<const void*>(matmul_naive_uncoalesced);
  };
  k.launch = launch_kernel<matmul_naive_uncoalesced>;
#endif
  return k;
}

// ---- tiled and tiled_padded --------------------------------------------------------------------

int tile_of(const LaunchShape& s) { return static_cast<int>(s.param("tile")); }
std::int64_t k_steps(const LaunchShape& s) {
  return matmul::tile_count(static_cast<int>(s.param("k")), tile_of(s));
}
// Thread t of block b owns C[row][col]; in each step it stages A[row][...] and B[...][col].
int row_of(const Product& s, Coord b, Coord t) { return matmul::element(b.y, s.tile, t.y); }
int col_of(const Product& s, Coord b, Coord t) { return matmul::element(b.x, s.tile, t.x); }

Offset load_a(const Product& s, Coord b, Coord t, std::int64_t step) {
  const int row = row_of(s, b, t);
  const int a_col = matmul::staged_k(static_cast<int>(step), s.tile, t.x);
  if (row >= s.d.m || a_col >= s.d.k)
    return std::nullopt;
  return 4 * std::int64_t{matmul::row_major(row, a_col, s.d.k)};
}

Offset load_b(const Product& s, Coord b, Coord t, std::int64_t step) {
  const int col = col_of(s, b, t);
  const int b_row = matmul::staged_k(static_cast<int>(step), s.tile, t.y);
  if (b_row >= s.d.k || col >= s.d.n)
    return std::nullopt;
  return 4 * std::int64_t{matmul::row_major(b_row, col, s.d.n)};
}

Offset store_c(const Product& s, Coord b, Coord t, std::int64_t) {
  const int row = row_of(s, b, t), col = col_of(s, b, t);
  if (row >= s.d.m || col >= s.d.n)
    return std::nullopt;
  return 4 * std::int64_t{matmul::row_major(row, col, s.d.n)};
}

// Sites of the tiled kernels. The staging sites run once per k step (every thread stores into
// both tiles, a zero past the edges); the tile reads run kTile times per step, it = step*kTile+q.
std::vector<Site> tiled_sites(bool padded) {
  const auto reads = [](const LaunchShape& s) { return k_steps(s) * tile_of(s); };
  const auto width = common::fixed_width(4);
  const auto shared = MemorySpace::shared;
  const auto bound = [](auto offset) { return common::bound_offsets(product, offset); };
  const int pad = padded ? 1 : 0;
  return {{"load A", MemorySpace::global, AccessOp::load, kA, width, k_steps, bound(load_a)},
          {"load B", MemorySpace::global, AccessOp::load, kB, width, k_steps, bound(load_b)},
          {"store A tile", shared, AccessOp::store, -1, width, k_steps,
           bound([pad](const Product& s, Coord, Coord t, std::int64_t) -> Offset {
             return 4 * std::int64_t{matmul::a_tile_word(t.y, t.x, s.tile + pad)};
           })},
          {"store B tile", shared, AccessOp::store, -1, width, k_steps,
           bound([pad](const Product& s, Coord, Coord t, std::int64_t) -> Offset {
             return 4 * std::int64_t{matmul::b_tile_word(t.y, t.x, s.tile, s.tile + pad)};
           })},
          {"load A tile", shared, AccessOp::load, -1, width, reads,
           bound([pad](const Product& s, Coord, Coord t, std::int64_t it) -> Offset {
             const int q = static_cast<int>(it % s.tile);
             return 4 * std::int64_t{matmul::a_tile_word(t.y, q, s.tile + pad)};
           })},
          {"load B tile", shared, AccessOp::load, -1, width, reads,
           bound([pad](const Product& s, Coord, Coord t, std::int64_t it) -> Offset {
             const int q = static_cast<int>(it % s.tile);
             return 4 * std::int64_t{matmul::b_tile_word(q, t.x, s.tile, s.tile + pad)};
           })},
          {"store C", MemorySpace::global, AccessOp::store, kC, width, common::single_iteration(),
           bound(store_c)}};
}

KernelDesc tiled_variant(std::string id, std::string title, std::string lesson, bool padded) {
  KernelDesc k = base(std::move(id), std::move(title), std::move(lesson));
  k.params.push_back(
      {"tile", "side of the square shared tiles and of the block", 16, 16, 32, {16, 32}, false});
  k.test_sizes = {{{"m", 67}, {"n", 45}, {"k", 83}, {"tile", 16}},
                  {{"m", 67}, {"n", 45}, {"k", 83}, {"tile", 32}},
                  {{"m", 33}, {"n", 129}, {"k", 47}, {"tile", 16}},
                  {{"m", 100}, {"n", 31}, {"k", 257}, {"tile", 32}},
                  {{"m", 1}, {"n", 1}, {"k", 1}, {"tile", 16}}};
  k.block_rank = 2;
  k.default_block = {16, 16, 1};
  k.block_presets = {{16, 16, 1}, {32, 32, 1}};
  k.allowed_blocks = "tile x tile: 16x16 with tile=16, 32x32 with tile=32";
  k.check_block = [id = k.id](const BlockShape& b, const Params& p) -> std::string {
    const std::string tile = std::to_string(p.at("tile"));
    if (b.x != p.at("tile") || b.y != p.at("tile") || b.z != 1)
      return id + " needs a " + tile + "x" + tile + " block (tile=" + tile +
             "): each thread stages one element of each tile";
    return "";
  };
  k.grid = [](const Params& p, const BlockShape&, int) {
    const std::int64_t tile = p.at("tile");
    return BlockShape{static_cast<int>(common::ceil_div(p.at("n"), tile)),
                      static_cast<int>(common::ceil_div(p.at("m"), tile)), 1};
  };
  k.sites = tiled_sites(padded);
  return k;
}

KernelDesc tiled() {
  KernelDesc k = tiled_variant(
      "matmul/tiled", "Matmul with shared-memory tiles",
      "A tile x tile block computes a tile of C. For each step along k it stages one tile of A "
      "and one of B in shared memory (each thread loads one element of each, coalesced along "
      "rows), waits, and then every thread reads a row of A's tile and a column of B's. Each "
      "global element is now requested once per tile rather than once per output: tile times "
      "fewer requests. Global memory panel: load A and load B at 4 sectors per request. Bank "
      "grid: load A tile is a broadcast (the lanes of a tile row read one word), load B tile "
      "reads consecutive words, both 1 wavefront; the tile stores are 1 wavefront too. "
      "Occupancy: 2 KiB (tile=16) or 8 KiB (tile=32) of shared memory per block.",
      false);
  k.symbol = [](const Params& p) {
    return "wl::matmul_tiled<" + std::to_string(p.at("tile")) + ">";
  };
#if WL_DEVICE_CODE
  k.function = [](const Params& p) {
    return p.at("tile") == 32 ? reinterpret_cast<const void*>(matmul_tiled<32>)
                              : reinterpret_cast<const void*>(matmul_tiled<16>);
  };
  k.launch = [](const DeviceLaunch& l) {
    if (l.shape.param("tile") == 32)
      launch_kernel<matmul_tiled<32>>(l);
    else
      launch_kernel<matmul_tiled<16>>(l);
  };
#endif
  return k;
}

KernelDesc tiled_padded() {
  KernelDesc k = tiled_variant(
      "matmul/tiled_padded", "Matmul with padded shared-memory tiles",
      "The tiled kernel with one unused word after each tile row, the fix that rescued "
      "transpose. Here it buys nothing: the tile reads were already a broadcast (A) and "
      "consecutive words (B). With tile=16 it even costs: a warp stores two tile rows at once, "
      "and with rows 17 words apart lane 31's word lands on lane 0's bank, a 2-way conflict on "
      "the tile stores. Bank grid: compare store A tile and store B tile with matmul/tiled at "
      "tile=16. Padding also leaves the tile rows unaligned to 16 bytes, so the compiler cannot "
      "merge four reads of A's tile into one 16-byte load as it may in tiled. Pad for column "
      "reads, not by habit.",
      true);
  k.symbol = [](const Params& p) {
    return "wl::matmul_tiled_padded<" + std::to_string(p.at("tile")) + ">";
  };
#if WL_DEVICE_CODE
  k.function = [](const Params& p) {
    return p.at("tile") == 32 ? reinterpret_cast<const void*>(matmul_tiled_padded<32>)
                              : reinterpret_cast<const void*>(matmul_tiled_padded<16>);
  };
  k.launch = [](const DeviceLaunch& l) {
    if (l.shape.param("tile") == 32)
      launch_kernel<matmul_tiled_padded<32>>(l);
    else
      launch_kernel<matmul_tiled_padded<16>>(l);
  };
#endif
  return k;
}

// ---- the register-blocked rungs ----------------------------------------------------------------

// A rung's tunables: its block tile (bm x bn, bk deep), each thread's tile (tm x tn) and, for
// the warp-tiled rungs, each warp's (wm x wn, in wn_iter column steps). Each rung is built for the
// blockings its table lists; the parameters pick one.
struct Blocking {
  int bm = 0, bn = 0, bk = 0, tm = 0, tn = 1, wm = 0, wn = 0, wn_iter = 0;
  int stages = 0; // shared tiles in flight, where the rung has the parameter (async_copy)

  bool warp_tiled() const { return wm != 0; }
  // A's tile: row-major (blocktile), transposed (vectorized), transposed and padded by a float4
  // a row (the warp tiles; WarpTiling::kPitch in the kernels).
  int a_pitch() const { return warp_tiled() ? bm + 4 : bm; }
  int threads() const { return warp_tiled() ? bm / wm * (bn / wn) * 32 : bm * bn / (tm * tn); }
  int wm_iter() const { return warp_tiled() ? wm * wn / (32 * tm * tn * wn_iter) : 1; }
  int rows_per_thread() const { return wm_iter() * tm; }
  int cols_per_thread() const { return warp_tiled() ? wn_iter * tn : tn; }
  bool operator==(const Blocking&) const = default;
};

// What each rung changes, and so how its sites read the tiles.
enum class Rung { blocktile, vectorized, warptile, double_buffered, async_copy };

constexpr bool is_vector(Rung rung) { return rung != Rung::blocktile; }
// The stages of shared tiles a blocking of the rung keeps.
constexpr int buffers_of(Rung rung, const Blocking& g) {
  return rung == Rung::async_copy ? g.stages : rung == Rung::double_buffered ? 2 : 1;
}
// Floats per copy into A's tile: async_copy copies A float by float, transposing as it lands.
constexpr int a_unit_of(Rung rung) {
  return rung == Rung::async_copy ? 1 : is_vector(rung) ? 4 : 1;
}

// The blockings each rung is built for (the first is its default). blocktile_1d is blocktile_2d
// with one column per thread.
constexpr Blocking kBlocktile1d[] = {{64, 64, 8, 8, 1}, {128, 64, 8, 16, 1}};
constexpr Blocking kBlocktile2d[] = {{128, 128, 8, 8, 8}, {64, 64, 8, 4, 4}, {128, 128, 16, 8, 8}};
constexpr Blocking kVectorized[] = {{128, 128, 8, 8, 8}, {128, 128, 16, 8, 8}, {64, 64, 16, 4, 4}};
constexpr Blocking kWarpTiled[] = {{128, 128, 16, 8, 4, 64, 32, 2},
                                   {128, 128, 16, 8, 4, 64, 64, 4},
                                   {128, 128, 8, 8, 4, 64, 64, 4},
                                   {128, 256, 16, 8, 4, 64, 64, 4}};
constexpr Blocking kDoubleBuffered[] = {{128, 128, 8, 8, 4, 64, 64, 4},
                                        {128, 128, 16, 8, 4, 64, 32, 2},
                                        {128, 128, 16, 8, 4, 64, 64, 4},
                                        {128, 128, 8, 8, 4, 64, 32, 2}};
constexpr Blocking kAsyncCopy[] = {{128, 256, 16, 8, 4, 64, 64, 4, 3},
                                   {128, 256, 16, 8, 4, 64, 64, 4, 2},
                                   {128, 256, 16, 8, 4, 64, 64, 4, 4},
                                   {128, 128, 8, 8, 4, 64, 64, 4, 4}};

// The warp-tiled rungs' default launch order: 8 rows of block tiles at a time.
constexpr int kLaunchGroup = 8;

// The parameters of a blocking, in the order a rung declares them; tn, wm, wn and wn_iter only
// where the rung has them.
std::vector<std::pair<std::string, int>> blocking_params(const Blocking& g, bool has_tn) {
  std::vector<std::pair<std::string, int>> p = {
      {"bm", g.bm}, {"bn", g.bn}, {"bk", g.bk}, {"tm", g.tm}};
  if (has_tn)
    p.push_back({"tn", g.tn});
  if (g.warp_tiled()) {
    p.push_back({"wm", g.wm});
    p.push_back({"wn", g.wn});
    p.push_back({"wn_iter", g.wn_iter});
  }
  if (g.stages != 0)
    p.push_back({"stages", g.stages});
  return p;
}

Blocking blocking_of(const Params& p) {
  const auto get = [&](const char* name, int otherwise) {
    const auto found = p.find(name);
    return found == p.end() ? otherwise : static_cast<int>(found->second);
  };
  return {get("bm", 0), get("bn", 0), get("bk", 0),      get("tm", 0),    get("tn", 1),
          get("wm", 0), get("wn", 0), get("wn_iter", 0), get("stages", 0)};
}

std::string blocking_text(const Blocking& g) {
  const auto by = [](int a, int b) { return std::to_string(a) + "x" + std::to_string(b); };
  std::string text = by(g.bm, g.bn) + "x" + std::to_string(g.bk) + " tile, " +
                     (g.tn == 1 ? std::to_string(g.tm) + " down a column" : by(g.tm, g.tn)) +
                     " per thread";
  if (g.warp_tiled())
    text += ", " + by(g.wm, g.wn) + " per warp in " + std::to_string(g.wn_iter) + " steps";
  if (g.stages != 0)
    text += ", " + std::to_string(g.stages) + " stages";
  return text;
}

const char* const kBlockingHelp[][2] = {
    {"bm", "rows of C per block (the block tile's height)"},
    {"bn", "columns of C per block (the block tile's width)"},
    {"bk", "columns of A (rows of B) staged in shared memory per step"},
    {"tm", "rows of C per thread (per warp sub-tile in the warp-tiled rungs)"},
    {"tn", "columns of C per thread (per warp sub-tile in the warp-tiled rungs)"},
    {"wm", "rows of C per warp"},
    {"wn", "columns of C per warp"},
    {"wn_iter", "column steps a warp takes across its tile (sub-tiles wn / wn_iter wide)"},
    {"stages", "shared tiles in flight: the async copies fill stages - 1 steps ahead"}};

std::string blocking_help(const std::string& name) {
  for (const auto& [key, help] : kBlockingHelp)
    if (name == key)
      return help;
  return name;
}

// Each blocking parameter with the values its table holds; check_params refuses the
// combinations the table does not.
template <std::size_t kCount>
void add_blocking_params(KernelDesc& k, const Blocking (&table)[kCount], bool has_tn) {
  const auto first = blocking_params(table[0], has_tn);
  for (std::size_t p = 0; p < first.size(); ++p) {
    std::vector<std::int64_t> values;
    for (const Blocking& g : table)
      values.push_back(blocking_params(g, has_tn)[p].second);
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    k.params.push_back({first[p].first, blocking_help(first[p].first), first[p].second,
                        values.front(), values.back(), values, false});
  }
}

// The tile position of element e of a staged tile `units_per_row` accesses wide.
struct Staged {
  int row, col;
};
Staged staged(int e, int units_per_row, int unit) {
  return {matmul::staged_row(e, units_per_row), matmul::staged_col(e, units_per_row, unit)};
}

// What the sites' lanes read from the launch, read once.
struct Ladder {
  Dims d;
  Blocking g;
  Rung rung = Rung::blocktile;
  int threads = 0;
  int unit = 1;  // floats per access: 4 where the rung moves float4s
  int group = 1; // rows of block tiles launched together
  BlockShape grid;

  // The block tile block b computes: its row and column among the tiles.
  int tile_row(Coord b) const { return matmul::grouped_tile_row(b.x, b.y, grid.x, grid.y, group); }
  int tile_col(Coord b) const { return matmul::grouped_tile_col(b.x, b.y, grid.x, grid.y, group); }

  // The block tile's row of thread t's i-th output row, and column of its j-th output column.
  int row(int t, int i) const {
    if (!g.warp_tiled())
      return matmul::block_tile_row(t, i, g.bn, g.tm, g.tn);
    return matmul::warp_tile_row(t, i, g.bn, g.wm, g.wn, g.wm / g.wm_iter(), g.wn / g.wn_iter, g.tm,
                                 g.tn);
  }
  int col(int t, int j) const {
    if (!g.warp_tiled())
      return matmul::block_tile_col(t, j, g.bn, g.tn);
    return matmul::warp_tile_col(t, j, g.bn, g.wn, g.wn / g.wn_iter, g.tn);
  }
  int steps() const { return matmul::tile_count(d.k, g.bk); }
  int a_unit() const { return a_unit_of(rung); }                    // floats per copy into A's tile
  int a_rounds() const { return g.bm * g.bk / a_unit() / threads; } // staging accesses a thread
  // The tile position of staged element e of A's tile, taken row by row, a_unit() floats an
  // access.
  Staged a_staged(int e) const { return staged(e, g.bk / a_unit(), a_unit()); }
  int b_rounds() const { return g.bk * g.bn / unit / threads; }
  int a_words() const { return g.bk * g.a_pitch(); } // bm x bk either way, plus the padding
  // Staging iteration it: k-step it % steps of round it / steps, and the tile element thread t
  // stages then. Rounds run slowest: the guards at a partial tile differ by round, and the
  // model's even sample of a long loop then takes each round in proportion.
  int staged_step(std::int64_t it) const { return static_cast<int>(it % steps()); }
  int staged_element(Coord t, std::int64_t it) const {
    return matmul::staged_element(t.x, static_cast<int>(it / steps()), threads);
  }
  int stage_word(int step) const {
    return matmul::stage_word(step % buffers_of(rung, g), a_words(), g.bn, g.bk);
  }
};

std::function<Ladder(const LaunchShape&)> ladder_reader(Rung rung) {
  return [rung](const LaunchShape& s) {
    const Blocking g = blocking_of(s.params);
    const auto group = s.params.find("group");
    return Ladder{dims(s.params),
                  g,
                  rung,
                  g.threads(),
                  is_vector(rung) ? 4 : 1,
                  group == s.params.end() ? 1 : static_cast<int>(group->second),
                  s.grid};
  };
}

// A site's lane offsets from `Offset(ladder, block, thread, iteration)`.
template <auto Offset> auto ladder_offsets(Rung rung) {
  // Offset as a lambda's own type rather than a pointer the lambda calls: the model asks for
  // every lane's offset, and the index math then inlines into the call it makes.
  return common::bound_offsets(
      ladder_reader(rung),
      [](const Ladder& s, Coord b, Coord t, std::int64_t it) { return Offset(s, b, t, it); });
}

// Staging sites, iterations as Ladder::staged_step says (a vector rung's transposed store of A
// also splits each round in its four 4-byte stores).
Offset load_a_staged(const Ladder& s, Coord b, Coord t, std::int64_t it) {
  const Staged at = s.a_staged(s.staged_element(t, it));
  const int row = matmul::element(s.tile_row(b), s.g.bm, at.row);
  const int col = matmul::staged_k(s.staged_step(it), s.g.bk, at.col);
  if (row >= s.d.m || col >= s.d.k)
    return std::nullopt;
  return 4 * std::int64_t{matmul::row_major(row, col, s.d.k)};
}

Offset load_b_staged(const Ladder& s, Coord b, Coord t, std::int64_t it) {
  const Staged at = staged(s.staged_element(t, it), s.g.bn / s.unit, s.unit);
  const int row = matmul::staged_k(s.staged_step(it), s.g.bk, at.row);
  const int col = matmul::element(s.tile_col(b), s.g.bn, at.col);
  if (row >= s.d.k || col >= s.d.n)
    return std::nullopt;
  return 4 * std::int64_t{matmul::row_major(row, col, s.d.n)};
}

Offset store_a_tile(const Ladder& s, Coord, Coord t, std::int64_t it) {
  const int parts = s.a_unit(); // a float4 of A is stored as four words down the transposed tile
  const std::int64_t staging = it / parts;
  const int part = static_cast<int>(it % parts);
  const Staged at = s.a_staged(s.staged_element(t, staging));
  const int word = is_vector(s.rung)
                       ? matmul::a_word_transposed(at.row, at.col + part, s.g.a_pitch())
                       : matmul::a_word(at.row, at.col, s.g.bk);
  return 4 * std::int64_t{s.stage_word(s.staged_step(staging)) + word};
}

Offset store_b_tile(const Ladder& s, Coord, Coord t, std::int64_t it) {
  const Staged at = staged(s.staged_element(t, it), s.g.bn / s.unit, s.unit);
  return 4 * std::int64_t{s.stage_word(s.staged_step(it)) +
                          matmul::b_word(s.a_words(), at.row, at.col, s.g.bn)};
}

// Tile reads: in each of the bk columns of a step, a thread reads its rows of A (its columns of
// B), `unit` floats at a time; iteration it is read it % reads of column (it / reads) % bk.
Offset load_a_tile(const Ladder& s, Coord, Coord t, std::int64_t it) {
  const int reads = s.g.rows_per_thread() / s.unit;
  const int read = static_cast<int>(it % reads), dot = static_cast<int>(it / reads % s.g.bk);
  const int step = static_cast<int>(it / reads / s.g.bk);
  const int row = s.row(t.x, read * s.unit);
  const int word = is_vector(s.rung) ? matmul::a_word_transposed(row, dot, s.g.a_pitch())
                                     : matmul::a_word(row, dot, s.g.bk);
  return 4 * std::int64_t{s.stage_word(step) + word};
}

Offset load_b_tile(const Ladder& s, Coord, Coord t, std::int64_t it) {
  const int reads = s.g.cols_per_thread() / s.unit;
  const int read = static_cast<int>(it % reads), dot = static_cast<int>(it / reads % s.g.bk);
  const int step = static_cast<int>(it / reads / s.g.bk);
  const int word = matmul::b_word(s.a_words(), dot, s.col(t.x, read * s.unit), s.g.bn);
  return 4 * std::int64_t{s.stage_word(step) + word};
}

// Iteration it writes row it / writes of the thread's tile, `unit` columns at a time.
Offset store_c_tile(const Ladder& s, Coord b, Coord t, std::int64_t it) {
  const int writes = s.g.cols_per_thread() / s.unit;
  const int i = static_cast<int>(it / writes), j = static_cast<int>(it % writes) * s.unit;
  const int row = matmul::element(s.tile_row(b), s.g.bm, s.row(t.x, i));
  const int col = matmul::element(s.tile_col(b), s.g.bn, s.col(t.x, j));
  if (row >= s.d.m || col >= s.d.n)
    return std::nullopt;
  return 4 * std::int64_t{matmul::row_major(row, col, s.d.n)};
}

std::vector<Site> ladder_sites(Rung rung) {
  const int unit = is_vector(rung) ? 4 : 1;
  const auto ladder = ladder_reader(rung);
  const auto count = [ladder](auto per_launch) {
    return [ladder, per_launch](const LaunchShape& shape) -> std::int64_t {
      return per_launch(ladder(shape));
    };
  };
  const auto a_staging =
      count([](const Ladder& s) { return std::int64_t{s.steps()} * s.a_rounds(); });
  const auto b_staging =
      count([](const Ladder& s) { return std::int64_t{s.steps()} * s.b_rounds(); });
  const auto a_reads = count([](const Ladder& s) {
    return std::int64_t{s.steps()} * s.g.bk * (s.g.rows_per_thread() / s.unit);
  });
  const auto b_reads = count([](const Ladder& s) {
    return std::int64_t{s.steps()} * s.g.bk * (s.g.cols_per_thread() / s.unit);
  });
  const auto c_writes = count([](const Ladder& s) {
    return std::int64_t{s.g.rows_per_thread()} * (s.g.cols_per_thread() / s.unit);
  });
  const auto a_stores =
      count([](const Ladder& s) { return std::int64_t{s.steps()} * s.a_rounds() * s.a_unit(); });
  const auto width = common::fixed_width(4 * unit);
  const auto shared = MemorySpace::shared, global = MemorySpace::global;
  const auto a_width = common::fixed_width(4 * a_unit_of(rung));
  return {
      {"load A", global, AccessOp::load, kA, a_width, a_staging,
       ladder_offsets<load_a_staged>(rung)},
      {"load B", global, AccessOp::load, kB, width, b_staging, ladder_offsets<load_b_staged>(rung)},
      {"store A tile", shared, AccessOp::store, -1, common::fixed_width(4), a_stores,
       ladder_offsets<store_a_tile>(rung)},
      {"store B tile", shared, AccessOp::store, -1, width, b_staging,
       ladder_offsets<store_b_tile>(rung)},
      {"load A tile", shared, AccessOp::load, -1, width, a_reads,
       ladder_offsets<load_a_tile>(rung)},
      {"load B tile", shared, AccessOp::load, -1, width, b_reads,
       ladder_offsets<load_b_tile>(rung)},
      {"store C", global, AccessOp::store, kC, width, c_writes,
       ladder_offsets<store_c_tile>(rung)}};
}

#if WL_DEVICE_CODE
// The warp-tiled rungs take the launch order's group of tile rows too.
template <auto Kernel> void launch_grouped(const DeviceLaunch& l) {
  const Dims d = dims(l.shape.params);
  Kernel<<<to_dim3(l.shape.grid), to_dim3(l.shape.block), l.dynamic_smem, stream_of(l)>>>(
      buffer<const float>(l, kA), buffer<const float>(l, kB), buffer<float>(l, kC), d.m, d.n, d.k,
      static_cast<int>(l.shape.param("group")));
}

// A blocking's kernel: its function (for the attributes) and its launcher.
struct BuiltBlocking {
  Blocking blocking;
  const void* function = nullptr;
  void (*launch)(const DeviceLaunch&) = nullptr;
};

template <const auto& kTable, std::size_t kIndex, Rung kRung> BuiltBlocking built_blocking() {
  constexpr Blocking g = kTable[kIndex];
  if constexpr (kRung == Rung::blocktile) {
    constexpr auto kernel = matmul_blocktile<g.bm, g.bn, g.bk, g.tm, g.tn>;
    return {g, reinterpret_cast<const void*>(kernel), launch_kernel<kernel>};
  } else if constexpr (kRung == Rung::vectorized) {
    constexpr auto kernel = matmul_vectorized<g.bm, g.bn, g.bk, g.tm, g.tn>;
    return {g, reinterpret_cast<const void*>(kernel), launch_kernel<kernel>};
  } else if constexpr (kRung == Rung::async_copy) {
    constexpr auto kernel =
        matmul_async_copy<g.bm, g.bn, g.bk, g.wm, g.wn, g.wn_iter, g.tm, g.tn, g.stages>;
    return {g, reinterpret_cast<const void*>(kernel), launch_grouped<kernel>};
  } else {
    constexpr auto kernel =
        matmul_warptile<g.bm, g.bn, g.bk, g.wm, g.wn, g.wn_iter, g.tm, g.tn, buffers_of(kRung, g)>;
    return {g, reinterpret_cast<const void*>(kernel), launch_grouped<kernel>};
  }
}

template <const auto& kTable, Rung kRung, std::size_t... kIndex>
std::vector<BuiltBlocking> built_blockings(std::index_sequence<kIndex...>) {
  return {built_blocking<kTable, kIndex, kRung>()...};
}

// The kernel built for the launch's blocking; check_params has refused any other.
template <const auto& kTable, Rung kRung> const BuiltBlocking& built_for(const Params& p) {
  static const std::vector<BuiltBlocking> built =
      built_blockings<kTable, kRung>(std::make_index_sequence<std::size(kTable)>{});
  const Blocking g = blocking_of(p);
  for (const BuiltBlocking& b : built)
    if (b.blocking == g)
      return b;
  throw std::logic_error("matmul: no kernel is built for the blocking " + blocking_text(g));
}
#endif

// The kernel's name as ptxas reports it: "wl::matmul_warptile<128, 128, 16, 64, 64, 4, 8, 4, 1>".
std::string ladder_symbol(Rung rung, const Blocking& g) {
  std::vector<int> args = {g.bm, g.bn, g.bk};
  if (g.warp_tiled())
    args.insert(args.end(), {g.wm, g.wn, g.wn_iter});
  args.insert(args.end(), {g.tm, g.tn});
  if (g.warp_tiled())
    args.push_back(buffers_of(rung, g));
  const char* name = rung == Rung::blocktile    ? "wl::matmul_blocktile<"
                     : rung == Rung::vectorized ? "wl::matmul_vectorized<"
                     : rung == Rung::async_copy ? "wl::matmul_async_copy<"
                                                : "wl::matmul_warptile<";
  std::string symbol = name;
  for (std::size_t i = 0; i < args.size(); ++i)
    symbol += (i ? ", " : "") + std::to_string(args[i]);
  return symbol + ">";
}

std::string ladder_check(Rung rung, const std::vector<Blocking>& built, const Params& p) {
  const Blocking g = blocking_of(p);
  if (std::find(built.begin(), built.end(), g) == built.end()) {
    std::string list;
    for (const Blocking& b : built)
      list += (list.empty() ? "" : "; ") + blocking_text(b);
    // What is wrong first: in a sweep's table the list that follows is long.
    return blocking_text(g) + " was not built; built for these blockings: " + list +
           " (bm x bn x bk tile, " + (g.tn == 1 ? "tm" : "tm x tn") + " per thread" +
           (g.warp_tiled() ? ", wm x wn per warp in wn_iter steps)" : ")");
  }
  if (rung == Rung::async_copy && p.at("n") % 4 != 0)
    return "rows of B are copied and rows of C written as 16-byte float4s, so n is a multiple of "
           "4 (n=" +
           std::to_string(p.at("n")) + "); A is copied float by float, so k may be any";
  if (rung != Rung::async_copy && is_vector(rung) && (p.at("n") % 4 != 0 || p.at("k") % 4 != 0))
    return "rows of A and B are loaded as 16-byte float4s, so n and k are multiples of 4 (n=" +
           std::to_string(p.at("n")) + ", k=" + std::to_string(p.at("k")) + ")";
  return "";
}

// `params` with the blocking's parameters set.
Params with_blocking(Params params, const Blocking& g, bool has_tn) {
  for (const auto& [name, value] : blocking_params(g, has_tn))
    params[name] = value;
  return params;
}

// The built blocking with `changed` at its value in `p` that differs from p's blocking in the
// fewest parameters (the table's first of those), as parameters; p as it is where none has it.
Params nearest_blocking(const std::vector<Blocking>& built, bool has_tn, const Params& p,
                        const std::string& changed) {
  const auto values = [&](const Blocking& g) { return blocking_params(g, has_tn); };
  const auto differences = [&](const Blocking& g) {
    int count = 0;
    for (const auto& [name, value] : values(g))
      count += p.count(name) && p.at(name) != value ? 1 : 0;
    return count;
  };
  const Blocking* nearest = nullptr;
  for (const Blocking& g : built)
    for (const auto& [name, value] : values(g))
      if (name == changed && p.count(name) && p.at(name) == value &&
          (!nearest || differences(g) < differences(*nearest)))
        nearest = &g;
  return nearest ? with_blocking(p, *nearest, has_tn) : p;
}

// Sizes for the GPU's correctness sweep, each with every blocking: a partial tile on every side,
// several k-steps with a partial last one, and a single output. The vector rungs keep n and k
// multiples of 4.
std::vector<Params> ladder_test_sizes(Rung rung, const std::vector<Blocking>& built, bool has_tn) {
  // The vector rungs keep n (and, loading A in float4s, k) multiples of 4; async_copy takes
  // any k, and k = 1 leaves its pipeline more stages than steps.
  const std::vector<Params> sizes =
      rung == Rung::async_copy ? std::vector<Params>{{{"m", 67}, {"n", 44}, {"k", 83}},
                                                     {{"m", 129}, {"n", 132}, {"k", 20}},
                                                     {{"m", 1}, {"n", 4}, {"k", 1}}}
      : is_vector(rung)        ? std::vector<Params>{{{"m", 67}, {"n", 44}, {"k", 84}},
                                                     {{"m", 129}, {"n", 132}, {"k", 20}},
                                                     {{"m", 1}, {"n", 4}, {"k", 4}}}
                               : std::vector<Params>{{{"m", 67}, {"n", 45}, {"k", 83}},
                                                     {{"m", 129}, {"n", 131}, {"k", 20}},
                                                     {{"m", 1}, {"n", 1}, {"k", 1}}};
  std::vector<Params> tests;
  for (const Blocking& g : built)
    for (const Params& size : sizes)
      tests.push_back(with_blocking(size, g, has_tn));
  // Three rows of block tiles launched two at a time: a whole group, then a partial one.
  if (built.front().warp_tiled())
    tests.push_back(
        with_blocking({{"m", 300}, {"n", 132}, {"k", 20}, {"group", 2}}, built.front(), has_tn));
  return tests;
}

template <const auto& kTable, Rung kRung>
KernelDesc ladder_variant(std::string id, std::string title, std::string lesson, bool has_tn) {
  KernelDesc k = base(std::move(id), std::move(title), std::move(lesson));
  const std::vector<Blocking> built(std::begin(kTable), std::end(kTable));
  add_blocking_params(k, kTable, has_tn);
  if (kTable[0].warp_tiled())
    k.params.push_back({"group",
                        "rows of block tiles launched together (1: row by row); the blocks running "
                        "at once then share rows of A and columns of B in L2",
                        kLaunchGroup,
                        1,
                        16,
                        {1, 2, 4, 8, 16},
                        false});
  k.check_params = [built](const Params& p) { return ladder_check(kRung, built, p); };
  k.nearest_params = [built, has_tn](const Params& p, const std::string& changed) {
    return nearest_blocking(built, has_tn, p, changed);
  };
  for (const Blocking& g : built)
    k.built_combinations.push_back(with_blocking({}, g, has_tn));
  k.test_sizes = ladder_test_sizes(kRung, built, has_tn);
  k.block_rank = 1;
  k.default_block = {built.front().threads(), 1, 1};
  for (const Blocking& g : built)
    if (std::find(k.block_presets.begin(), k.block_presets.end(), BlockShape{g.threads(), 1, 1}) ==
        k.block_presets.end())
      k.block_presets.push_back({g.threads(), 1, 1});
  k.allowed_blocks = kTable[0].warp_tiled()
                         ? "a 1D block of 32 threads per warp tile: (bm / wm) x (bn / wn) x 32"
                     : has_tn ? "a 1D block of a thread per thread tile: (bm x bn) / (tm x tn)"
                              : "a 1D block of a thread per column of tm outputs: (bm x bn) / tm";
  k.check_block = [id = k.id](const BlockShape& b, const Params& p) -> std::string {
    const Blocking g = blocking_of(p);
    if (b == BlockShape{g.threads(), 1, 1})
      return "";
    return id + " with the blocking " + blocking_text(g) + " runs a 1D block of " +
           std::to_string(g.threads()) + " threads";
  };
  k.grid = [](const Params& p, const BlockShape&, int) {
    const Blocking g = blocking_of(p);
    return BlockShape{static_cast<int>(common::ceil_div(p.at("n"), g.bn)),
                      static_cast<int>(common::ceil_div(p.at("m"), g.bm)), 1};
  };
  k.sites = ladder_sites(kRung);
  k.symbol = [](const Params& p) { return ladder_symbol(kRung, blocking_of(p)); };
#if WL_DEVICE_CODE
  k.function = [](const Params& p) { return built_for<kTable, kRung>(p).function; };
  k.launch = [](const DeviceLaunch& l) { built_for<kTable, kRung>(l.shape.params).launch(l); };
#endif
  return k;
}

KernelDesc blocktile_1d() {
  return ladder_variant<kBlocktile1d, Rung::blocktile>(
      "matmul/blocktile_1d", "Matmul, 1D register blocking",
      "tiled's shared tiles, but each thread now computes tm outputs down a column of C (tm=8 in a "
      "64x64 block tile of 512 threads). For each column of A's tile a thread reads one value of "
      "B into a register and reuses it for tm multiply-adds, reading tm values of A; tiled read "
      "two shared words per multiply-add, this reads (tm + 1) / tm. Bank grid: load A tile is a "
      "broadcast (a warp's lanes share their rows), load B tile consecutive words, 1 wavefront "
      "each. Occupancy: 4 KiB of tiles per block. Timings: the first large step from tiled; the "
      "Roofline panel, measured on a GPU, shows the point moving right: the DRAM counters see "
      "fewer "
      "bytes per FLOP.",
      false);
}

KernelDesc blocktile_2d() {
  return ladder_variant<kBlocktile2d, Rung::blocktile>(
      "matmul/blocktile_2d", "Matmul, 2D register blocking",
      "Each thread computes a tm x tn tile of C (8x8 in a 128x128 block tile of 256 threads): per "
      "column of A's tile it reads tm values of A and tn of B and multiplies every pair, 64 "
      "multiply-adds from 16 shared reads. The shared-memory traffic per FLOP drops fourfold "
      "from blocktile_1d, and the bigger block tile halves the global loads per FLOP again. Bank "
      "grid: load A tile is 2-way (two thread rows of a warp, 64 words apart, share a bank) and "
      "load B tile 4-way (lanes 8 words apart); the compiler may merge a thread's consecutive "
      "reads into wider loads (the Source panel shows them). Global memory panel: store C writes "
      "4 bytes a lane 32 bytes apart, 32 sectors per request where 4 would do, once per output. "
      "Occupancy: about 128 registers a thread now limit the blocks.",
      true);
}

KernelDesc vectorized() {
  return ladder_variant<kVectorized, Rung::vectorized>(
      "matmul/vectorized", "Matmul, float4 loads and a transposed A tile",
      "blocktile_2d with every access 16 bytes wide. Global loads fetch float4s along the rows of "
      "A and B (one request brings 512 bytes, 16 sectors, a quarter of the requests). A's tile is "
      "stored transposed (k-major) so that a thread's tm values of A are consecutive words, read "
      "as tm/4 float4s; its tn values of B are read as float4s too. Global memory panel: 16 "
      "sectors per request on load A and load B. Bank grid: store A tile now writes four words "
      "down a column of the transposed tile, a 2-way conflict (4-way at bk=16) paid once per "
      "step; the tile reads are 16-byte accesses in half-warp transactions. Store C writes each "
      "thread's 8 columns as two float4s, lanes 32 bytes apart: 32 sectors per request where 16 "
      "would do. n and k must be "
      "multiples of 4.",
      true);
}

KernelDesc warptile() {
  return ladder_variant<kWarpTiled, Rung::warptile>(
      "matmul/warptile", "Matmul, warp tiles",
      "vectorized's loads, with the threads grouped by warp: each warp computes a wm x wn tile of "
      "the block's (64x32 of a 128x128 tile, 8 warps), in wn_iter sub-tiles across, and its lanes "
      "own tm x tn pieces of each, neighbouring lanes in pairs on one column. A warp's float4 "
      "reads of A's and B's tiles then fall on few neighbouring words, and every quad of lanes "
      "reads at most two addresses, which the hardware serves a half-warp per wavefront. Bank "
      "grid: load A tile and load B tile at 2 wavefronts, against vectorized's 8 on load B tile; "
      "A's transposed tile is padded by a float4 a row: its store conflict is 2-way, not 4-way, at "
      "bk=16. Store C writes a warp's float4s side by side, 16 sectors per request (vectorized "
      "wrote 32 where 16 would do). Parameters: "
      "the blocking (wm, wn, wn_iter, tm, tn) and `group`, the rows of block tiles launched "
      "together so that running blocks share A and B in L2; a sweep varies them. Occupancy: "
      "128 registers a thread, 2 blocks of 256 threads per SM.",
      true);
}

KernelDesc double_buffered() {
  return ladder_variant<kDoubleBuffered, Rung::double_buffered>(
      "matmul/double_buffered", "Matmul, warp tiles with double buffering",
      "warptile with two stages of shared tiles. Each step issues the next step's global loads "
      "into registers first, multiplies the current stage while they are in flight, then stores "
      "them into the other stage: the loads' latency hides behind the arithmetic, and one "
      "barrier per step replaces two. The default blocking is 128x128x8 with 64x64 warp tiles "
      "(128 threads, 128 outputs a thread, over 200 registers, 2 blocks per SM): the shallower "
      "step keeps two stages in 16 KiB. Timings: compare with warptile, async_copy and cuBLAS, "
      "and on the Roofline panel with the FP32 ceiling.",
      true);
}

KernelDesc async_copy() {
  KernelDesc k = ladder_variant<kAsyncCopy, Rung::async_copy>(
      "matmul/async_copy", "Matmul, warp tiles fed by asynchronous copies",
      "double_buffered's staging rebuilt on cp.async (compute capability 8.0 and later): the "
      "tiles go from global to shared memory without passing through registers, `stages` tiles "
      "in flight, each step waiting only for its own. Freed of the staging registers (24 a "
      "thread at this blocking), the block tile grows to 128x256 and the step to 16 columns: "
      "256 threads of 128 outputs, 73 KiB of shared memory for 3 stages, and a quarter of the "
      "barriers per multiply-add of a 128x128x8 tile. A is copied float by float so "
      "each float lands transposed; B as float4s. Global memory panel: load A at 4 sectors per "
      "request (a warp copies 16 floats of two rows), load B at 16. Shared memory panel: the "
      "copies' stores are the same instructions as the loads (LDGSTS, measured as both); store "
      "A tile is 2-way by the banks (columns 8 apart share one), and measured above that: an "
      "async copy writes shared memory as its global data arrives, so its wavefronts follow "
      "what it reads too. Occupancy: the registers allow one block an SM. "
      "Timings: the top of the climb, against cuBLAS; sweep `stages` (2, 3, 4) on a GPU to see "
      "the pipeline's depth (the models' figures do not change with it).",
      true);
  k.min_compute_capability = 80;
  k.needs_why = "its tiles are copied by cp.async";
  k.dynamic_smem = [](const Params& p, const BlockShape&) {
    const Blocking g = blocking_of(p);
    return std::int64_t{4} * g.stages * matmul::stage_word(1, g.bk * g.a_pitch(), g.bn, g.bk);
  };
  return k;
}

// ---- cuBLAS ------------------------------------------------------------------------------------

#if WL_DEVICE_CODE
// cuBLAS is opened on the first matmul/cublas launch rather than linked: loading it runs tens of
// milliseconds of static initialisation (cuBLASLt's), which every other command and every worker
// start would pay. The directory it was found in at build time is the fallback to the loader's
// search path.
struct CublasLibrary {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasSetMathMode) set_math_mode = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSgemm_v2) sgemm = nullptr;
  decltype(&cublasGetStatusString) status_string = nullptr;
};

void* open_cublas() {
  const std::string name = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
  if (void* library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL))
    return library;
  const std::string first_error = dlerror();
  if (void* library =
          dlopen((std::string(WL_CUBLAS_DIR) + "/" + name).c_str(), RTLD_NOW | RTLD_LOCAL))
    return library;
  throw std::runtime_error("matmul/cublas: cannot load " + name + ": " + first_error);
}

const CublasLibrary& cublas_library() {
  static const CublasLibrary library = [] {
    void* handle = open_cublas();
    const auto symbol = [handle](auto& function, const char* name) {
      function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(handle, name));
      if (!function)
        throw std::runtime_error(std::string("matmul/cublas: cuBLAS has no ") + name);
    };
    CublasLibrary l;
    symbol(l.create, "cublasCreate_v2");
    symbol(l.set_math_mode, "cublasSetMathMode");
    symbol(l.set_stream, "cublasSetStream_v2");
    symbol(l.sgemm, "cublasSgemm_v2");
    symbol(l.status_string, "cublasGetStatusString");
    return l;
  }();
  return library;
}

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("matmul/cublas: ") + what +
                             " failed: " + cublas_library().status_string(status));
}

// Created on the first launch, never at static initialisation, and never destroyed: destroying it
// at exit could run after the CUDA runtime has shut down.
cublasHandle_t cublas_handle() {
  static const cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    check_cublas(cublas_library().create(&h), "cublasCreate");
    // Full fp32: no TF32 tensor-core shortcut, so the comparison with the other kernels is fair.
    check_cublas(cublas_library().set_math_mode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    return h;
  }();
  return handle;
}

// cuBLAS is column-major. Row-major C (m x n) is column-major C^T (n x m), and C^T = B^T A^T,
// where row-major B and A read as column-major are exactly B^T (n x k, ld n) and A^T (k x m, ld k).
void launch_cublas(const DeviceLaunch& l) {
  const Dims d = dims(l.shape.params);
  const cublasHandle_t handle = cublas_handle();
  check_cublas(cublas_library().set_stream(handle, stream_of(l)), "cublasSetStream");
  const float alpha = 1.0f, beta = 0.0f; // beta 0: C is not read, so its poison does not matter
  check_cublas(cublas_library().sgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, d.n, d.m, d.k, &alpha,
                                      buffer<const float>(l, kB), d.n, buffer<const float>(l, kA),
                                      d.k, &beta, buffer<float>(l, kC), d.n),
               "cublasSgemm");
}
#endif

KernelDesc cublas() {
  KernelDesc k = base(
      "matmul/cublas", "Matmul by cuBLAS (cublasSgemm)",
      "cublasSgemm on the same row-major matrices, through the identity C^T = B^T A^T. cuBLAS "
      "picks its own kernels, tiles and block shapes (register blocking, multi-stage copies, "
      "sometimes several kernels), so WarpLens cannot see inside it: the memory panels stay empty "
      "and the occupancy panel has no block to describe. Timings: the yardstick for the "
      "hand-written variants, in full fp32 (the default math mode, no TF32).");
  k.kind = KernelKind::library;
  k.block_rank = 1;
  k.default_block = {1, 1, 1}; // a placeholder: the only "block" check_block accepts
  k.block_presets = {k.default_block};
  k.allowed_blocks = "none to choose: cuBLAS chooses its own kernels and block shapes";
  k.check_block = [](const BlockShape& b, const Params&) -> std::string {
    return b == BlockShape{1, 1, 1} ? "" : "cuBLAS chooses its own kernels and block shapes";
  };
  k.grid = [](const Params&, const BlockShape&, int) { return BlockShape{1, 1, 1}; }; // unknown
  k.symbol = [](const Params&) { return std::string(); };
#if WL_DEVICE_CODE
  k.function = [](const Params&) -> const void* { return nullptr; };
  k.launch = launch_cublas;
#endif
  return k;
}

} // namespace

std::vector<KernelDesc> matmul_kernels() {
  return {naive(),           naive_uncoalesced(), tiled(),      tiled_padded(),
          blocktile_1d(),    blocktile_2d(),      vectorized(), warptile(),
          double_buffered(), async_copy(),        cublas()};
}

} // namespace wl
