#pragma once
// Index math of the softmax family: a rows x cols row-major matrix, each row normalised on its
// own. block_tree combines its threads through reduce_sum's sequential tree; the float4 variants
// (warp_registers, block_shared, block_online) move a row as cols / 4 packs of four columns.

#include "hd.h"
#include "reduce_sum.h"

#include <cstdint>

namespace wl::softmax {

inline constexpr int kWarp = 32;

// x[row][col], in elements.
WL_HD std::int64_t element(std::int64_t row, int cols, int col) { return row * cols + col; }

// naive: one thread per row, so neighbouring threads read rows `cols` elements apart.
WL_HD std::int64_t thread_row(int block, int block_dim, int thread) {
  return static_cast<std::int64_t>(block) * block_dim + thread;
}

// Several threads share a row: in step k, thread t of `stride` visits column t + k * stride, so
// neighbouring threads read neighbouring columns.
WL_HD int strided_col(int thread, int stride, int k) { return thread + k * stride; }
WL_HD int col_steps(int cols, int stride) { return (cols + stride - 1) / stride; }

// Warp per row: warp w of block b handles row b * (blockDim / 32) + w; its lanes share the row.
WL_HD int rows_per_block(int block_dim) { return block_dim / kWarp; }
WL_HD std::int64_t warp_row(int block, int block_dim, int thread) {
  return static_cast<std::int64_t>(block) * rows_per_block(block_dim) + thread / kWarp;
}
WL_HD int lane(int thread) { return thread % kWarp; }
WL_HD int warp_of(int thread) { return thread / kWarp; }

// The float4 variants: a row is cols / 4 packs (cols a multiple of 4, so every row starts on a
// 16-byte boundary). In step k, thread t of `stride` moves pack t + k * stride, columns
// 4 * pack to 4 * pack + 3: neighbouring threads move neighbouring 16 bytes.
inline constexpr int kPack = 4;
WL_HD int packs(int cols) { return cols / kPack; }
WL_HD int pack_steps(int cols, int stride) { return col_steps(packs(cols), stride); }
WL_HD int pack_col(int pack) { return pack * kPack; }

// warp_registers: a lane keeps its packs of the row in registers, at most kMaxLanePacks of them
// (32 floats), so a row has at most 32 * 4 * kMaxLanePacks = 1024 columns.
inline constexpr int kMaxLanePacks = 8;
inline constexpr int kMaxRegisterCols = kWarp * kPack * kMaxLanePacks;

// block_shared's dynamic shared memory: the cross-warp scratch (a float per warp, 32 at most)
// first, then the row's packs, so the row starts 128 bytes in, on a 16-byte boundary.
inline constexpr int kScratchWords = 32;
WL_HD std::int64_t shared_row_byte(int pack) { return 4 * kScratchWords + 16 * std::int64_t{pack}; }
WL_HD std::int64_t shared_row_bytes(int cols) { return shared_row_byte(packs(cols)); }

} // namespace wl::softmax
