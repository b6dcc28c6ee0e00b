#pragma once
// Index math of the bank_conflicts family. Each block copies a tile from global memory into
// shared memory, then every thread makes kReads patterned reads of the tile, sums them and writes
// the sum. Indices count elements of the access width (float, float2 or float4), so every shared
// access is aligned to its width. The patterns use the thread's position in the whole grid, not
// in its block, so the results do not depend on the block shape; within a warp (of a block that
// is a multiple of 32 threads) that is the same pattern shifted, which keeps the banks' load the
// same.

#include "hd.h"

namespace wl::bank_conflicts {

inline constexpr int kTileBytes = 4096; // stride and broadcast: 1024 words, 32 rows of 128 bytes
inline constexpr int kRowBytes = 128;   // 32 banks x 4 bytes: one pass over every bank
inline constexpr int kReads = 32;       // patterned reads per thread
inline constexpr int kSide = 32;        // padded: a 32 x 32 tile, rows followed by `pad` elements

// Every pattern repeats after this many threads (the tile's element count divides it), so a
// reference can compute one period and copy it.
inline constexpr int kPatternPeriod = 1024;

WL_HD constexpr int tile_elements(int width) { return kTileBytes / width; }
WL_HD constexpr int row_elements(int width) { return kRowBytes / width; }

// The thread's position in the 1D grid: the output element it writes.
WL_HD int thread_element(int block, int block_dim, int thread) {
  return block * block_dim + thread;
}

// Filling the tile: in pass p each thread copies element thread + p * block_dim (while that is
// inside the tile), so any block size fills the whole tile.
WL_HD int fill_element(int thread, int block_dim, int pass) { return thread + pass * block_dim; }

// stride: in read r, thread g reads element (g * stride + r * row) mod tile. Each read shifts the
// whole pattern by one 128-byte row, which keeps every bank's load the same and stops the
// compiler from hoisting a loop-invariant load out of the loop.
WL_HD int strided_element(int thread, int stride, int read, int width) {
  const int elements = tile_elements(width);
  return ((thread % elements) * stride + read * row_elements(width)) % elements;
}

// broadcast: in read r every thread reads the same element, the first of row r.
WL_HD int broadcast_element(int read, int width) {
  return (read * row_elements(width)) % tile_elements(width);
}

// padded: a 32 x 32 tile whose rows are kSide + pad elements apart.
WL_HD int padded_pitch(int pad) { return kSide + pad; }
WL_HD int padded_tile_elements(int pad) { return kSide * padded_pitch(pad); }
WL_HD int padded_element(int row, int column, int pad) { return row * padded_pitch(pad) + column; }

// Where logical element e of the 32 x 32 tile (row-major, as stored in global memory) lives.
WL_HD int padded_fill_element(int logical, int pad) {
  return padded_element(logical / kSide, logical % kSide, pad);
}

// A column read: thread g reads row g mod 32 (its lane) of column (g / 32 + read) mod 32, so the
// 32 lanes of a warp walk down one column together and over 32 reads each thread covers its row.
WL_HD int column_read_element(int thread, int read, int pad) {
  return padded_element(thread % kSide, (thread / kSide + read) % kSide, pad);
}

} // namespace wl::bank_conflicts
