#pragma once
// Index math of the transpose family. The input is rows x cols, row-major; the output is
// cols x rows, row-major, and in[r][c] lands at out[c][r]. Offsets are in elements.

#include "hd.h"

namespace wl::transpose {

// The side of the square tile the shared-memory variants stage through.
inline constexpr int kTile = 32;

// One element per thread along one axis: block b, thread t of a block of `block_dim`.
WL_HD int element(int block, int block_dim, int thread) { return block * block_dim + thread; }

// in[row][col] in the rows x cols input.
WL_HD int input_offset(int row, int col, int cols) { return row * cols + col; }

// Where in[row][col] goes: out[col][row] in the cols x rows output.
WL_HD int output_offset(int row, int col, int rows) { return col * rows + row; }

// The first input row (or column) of a block's tile.
WL_HD int tile_origin(int block) { return block * kTile; }

// A 32-wide block of `block_dim_y` rows covers the tile in kTile / block_dim_y passes; in pass
// `pass` thread row `thread_y` handles tile row thread_y + pass * block_dim_y.
WL_HD int tile_row(int thread_y, int block_dim_y, int pass) {
  return thread_y + pass * block_dim_y;
}

WL_HD constexpr int tile_passes(int block_dim_y) { return kTile / block_dim_y; }

// in_flight's block height, fixed when compiled so that its passes unroll.
inline constexpr int kInFlightRows = 8;

// wide_tile: a 64 x 64 tile for a 32 x 16 block, each thread eight elements: in step `step`,
// tile row ty + 16 (step / 2) and column tx + 32 (step % 2), so each warp's step covers 32
// neighbouring floats of one row (the read) or of one tile column (the write).
inline constexpr int kWideTile = 64, kWideRows = 16;
WL_HD int wide_tile_origin(int block) { return block * kWideTile; }
WL_HD constexpr int wide_steps() { return (kWideTile / kWideRows) * (kWideTile / 32); }
struct TileSpot {
  int row, col;
};
WL_HD TileSpot wide_spot(int thread_x, int thread_y, int step) {
  return {thread_y + kWideRows * (step / 2), thread_x + 32 * (step % 2)};
}

// Word index of tile[row][col] in a tile whose rows are `pitch` words apart (32, or 33 padded).
WL_HD int tile_word(int row, int col, int pitch) { return row * pitch + col; }

} // namespace wl::transpose
