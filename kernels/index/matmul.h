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

// ---- the register-blocked rungs ----------------------------------------------------------------
// A block computes a bm x bn tile of C, bk columns of A and rows of B at a time; each thread owns
// rows and columns of that tile. Shared memory holds A's tile, then B's (bk x bn): A's is bm x bk
// row-major, or stored transposed, bk rows of `pitch` words (bm, or bm + 4 where padded). A
// double-buffered kernel keeps two such stages, each `a_words` + bk x bn words.

// Element `round * threads + thread` of a tile: what the block's threads stage in turn.
WL_HD int staged_element(int thread, int round, int threads) { return round * threads + thread; }
// Its row and first column in a tile of `units_per_row` units of `unit` elements (4 for float4).
WL_HD int staged_row(int element, int units_per_row) { return element / units_per_row; }
WL_HD int staged_col(int element, int units_per_row, int unit) {
  return element % units_per_row * unit;
}

// First word of stage `buffer`, and the words of A's tile (row-major or transposed) and B's in it.
WL_HD constexpr int stage_word(int buffer, int a_words, int bn, int bk) {
  return buffer * (a_words + bk * bn);
}
WL_HD int a_word(int row, int col, int bk) { return row * bk + col; }
WL_HD int a_word_transposed(int row, int col, int pitch) { return col * pitch + row; }
WL_HD int b_word(int a_words, int row, int col, int bn) { return a_words + row * bn + col; }

// The block tile that block (bx, by) of a grid_x x grid_y grid computes, launched `group` rows of
// tiles at a time: down each column of a group before the next column, so the blocks running at
// once share rows of A and columns of B in L2. group 1 is plain row-major order (by, bx).
WL_HD int grouped_first_row(int bx, int by, int grid_x, int group) {
  return (by * grid_x + bx) / (group * grid_x) * group;
}
WL_HD int grouped_rows(int bx, int by, int grid_x, int grid_y, int group) {
  const int first = grouped_first_row(bx, by, grid_x, group);
  return grid_y - first < group ? grid_y - first : group;
}
WL_HD int grouped_tile_row(int bx, int by, int grid_x, int grid_y, int group) {
  const int in_group = (by * grid_x + bx) % (group * grid_x);
  return grouped_first_row(bx, by, grid_x, group) +
         in_group % grouped_rows(bx, by, grid_x, grid_y, group);
}
WL_HD int grouped_tile_col(int bx, int by, int grid_x, int grid_y, int group) {
  const int in_group = (by * grid_x + bx) % (group * grid_x);
  return in_group / grouped_rows(bx, by, grid_x, grid_y, group);
}

// Thread tiles laid row by row over the block tile: the block tile's row of thread t's i-th row
// (of tm), and its column of the thread's j-th column (of tn).
WL_HD int block_tile_row(int thread, int i, int bn, int tm, int tn) {
  return thread / (bn / tn) * tm + i;
}
WL_HD int block_tile_col(int thread, int j, int bn, int tn) { return thread % (bn / tn) * tn + j; }

// A warp's lanes over a sub-tile `cols` thread tiles wide, in pairs: lanes 2i and 2i+1 take one
// column, so their 16-byte reads of B's tile are one address and a half-warp reads it in one
// transaction (two where the pairs differ). Rows of A cost the quarter-warp split instead, and
// a thread reads fewer of them: it holds more columns than rows.
WL_HD int lane_row(int lane, int cols) { return lane % 2 + lane / (2 * cols) * 2; }
WL_HD int lane_col(int lane, int cols) { return lane / 2 % cols; }

// Warp tiles: warp w holds a wm x wn tile of the block's, split into wm_iter x wn_iter sub-tiles
// (wsubm x wsubn each) that its 32 lanes cover tm x tn apiece. Row i of a thread counts tm rows
// per sub-tile (i / tm picks the sub-tile); column j likewise with tn.
WL_HD int warp_tile_row(int thread, int i, int bn, int wm, int wn, int wsubm, int wsubn, int tm,
                        int tn) {
  const int warp = thread / 32, lane = thread % 32;
  return warp / (bn / wn) * wm + i / tm * wsubm + lane_row(lane, wsubn / tn) * tm + i % tm;
}
WL_HD int warp_tile_col(int thread, int j, int bn, int wn, int wsubn, int tn) {
  const int warp = thread / 32, lane = thread % 32;
  return warp % (bn / wn) * wn + j / tn * wsubn + lane_col(lane, wsubn / tn) * tn + j % tn;
}

} // namespace wl::matmul
