#pragma once
// Index math of the matmul family: C (m x n) = A (m x k) . B (k x n), all row-major. Offsets are
// in elements (global) or 4-byte words (shared).

#include "hd.h"

namespace wl::matmul {

// One output per thread along one axis: block b, thread t of a block of `block_dim`.
WL_HD int element(int block, int block_dim, int thread) { return block * block_dim + thread; }

// M[row][col] in a row-major matrix with `cols` columns: A is (row, p, k), B (p, col, n), C (row,
// col, n).
WL_HD int row_major(int row, int col, int cols) { return row * cols + col; }

// The tiled kernels walk k in steps of `tile`; the last step may be partial.
WL_HD int tile_count(int k, int tile) { return (k + tile - 1) / tile; }

// The k index a thread stages in k-tile `step`: thread x picks A's column, thread y B's row.
WL_HD int staged_k(int step, int tile, int thread) { return step * tile + thread; }

// Shared memory holds A's tile, then B's, each `tile` rows of `pitch` words (tile, or tile + 1
// when padded). Word of tile[row][col] in A's tile, and in B's tile.
WL_HD int a_tile_word(int row, int col, int pitch) { return row * pitch + col; }
WL_HD int b_tile_word(int row, int col, int tile, int pitch) {
  return tile * pitch + row * pitch + col;
}

} // namespace wl::matmul
