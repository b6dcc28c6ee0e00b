#pragma once
// Index math of the softmax family: a rows x cols row-major matrix, each row normalised on its
// own. The block-per-row variant combines its threads through reduce_sum's sequential tree.

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

} // namespace wl::softmax
