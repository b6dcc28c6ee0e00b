#pragma once
// Index math of the flash_attention family. Q, K, V and O are [heads][seq][d] float arrays read
// and written as float4s. A block of threads owns one query row per thread (blockIdx.x picks the
// slice of queries, blockIdx.y the head) and walks the keys in tiles of kKeysPerTile rows: the
// block copies each K and V tile into shared memory, then every thread reads the whole tile.

#include "hd.h"

#include <cstdint>

namespace wl::flash_attention {

inline constexpr int kKeysPerTile = 32;

// The query row (within its head) that a thread owns.
WL_HD int query_row(int block_x, int block_dim, int thread) { return block_x * block_dim + thread; }

// Float4 index of the start of row `row` of head `head` in Q, K, V or O.
WL_HD std::int64_t row_float4(int head, int row, int seq, int d) {
  return (static_cast<std::int64_t>(head) * seq + row) * (d / 4);
}

WL_HD int key_tile_count(int seq) { return (seq + kKeysPerTile - 1) / kKeysPerTile; }

// Keys in tile `tile`: kKeysPerTile except in a last, partial tile.
WL_HD int keys_in_tile(int tile, int seq) {
  const int left = seq - tile * kKeysPerTile;
  return left < kKeysPerTile ? left : kKeysPerTile;
}

// Float4s in one shared K (or V) tile, and the copy steps each thread takes to fill one.
WL_HD int tile_float4s(int d) { return kKeysPerTile * d / 4; }
WL_HD int copies_per_thread(int d, int block_dim) {
  return (tile_float4s(d) + block_dim - 1) / block_dim;
}

// The float4 of the tile (counted from its first key's row) that a thread copies in step `copy`:
// consecutive threads copy consecutive float4s, so each warp moves one contiguous 512-byte run.
WL_HD int copied_float4(int thread, int block_dim, int copy) { return thread + copy * block_dim; }

// Whether that float4 lies inside the tile (a last, partial tile holds fewer keys).
WL_HD bool copies_inside_tile(int float4_in_tile, int tile, int seq, int d) {
  return float4_in_tile < keys_in_tile(tile, seq) * (d / 4);
}

// Float4 index, in the block's shared memory, of float4 `part` of key `key`'s row: the K tile
// comes first, the V tile right after it.
WL_HD int shared_k_float4(int key, int part, int d) { return key * (d / 4) + part; }
WL_HD int shared_v_float4(int key, int part, int d) {
  return tile_float4s(d) + key * (d / 4) + part;
}

// The tensor-core variants: a block of kWarps warps takes kQueriesPerBlock query rows of one head,
// each warp 16 of them, and walks the keys in tiles of `keys` (a template constant of the kernel).
// Inside a warp, mma.sync's m16n8k8 fragments give lane (group, thread) = (lane / 4, lane % 4)
// rows `group` and `group + 8` of the 16 and, of each 8 columns, `thread` and `thread + 4` (the A
// operand), or two neighbouring columns `2 thread` and `2 thread + 1` (the results).
namespace tensor {

inline constexpr int kWarps = 4, kRowsPerWarp = 16;
inline constexpr int kThreads = kWarps * 32, kQueriesPerBlock = kWarps * kRowsPerWarp;

WL_HD int group(int lane) { return lane / 4; }
WL_HD int thread_in_group(int lane) { return lane % 4; }

// The query row (within its head) of row `row` (0 to 15) of warp `warp`; rows past the end of
// the sequence read the last row (their results are never stored).
WL_HD int query_row(int block_x, int warp, int row) {
  return block_x * kQueriesPerBlock + warp * kRowsPerWarp + row;
}
WL_HD int clamped_row(int row, int seq) { return row < seq ? row : seq - 1; }

// Element `col` of row `row` of head `head` in Q, K, V or O, counted in floats.
WL_HD std::int64_t element(int head, int row, int col, int seq, int d) {
  return (static_cast<std::int64_t>(head) * seq + row) * d + col;
}

WL_HD int tile_count(int seq, int keys) { return (seq + keys - 1) / keys; }
WL_HD int keys_in(int tile, int seq, int keys) {
  const int left = seq - tile * keys;
  return left < keys ? left : keys;
}

// The tile copy: consecutive threads take consecutive float4s of the tile's rows; a key past the
// end of the sequence copies the last key (its scores are masked to -inf, so its weight is 0).
WL_HD int copies_per_thread(int d, int keys) { return keys * d / 4 / kThreads; }
struct TileFloat4 {
  int key, part; // the key within the tile, and which float4 of its row
};
WL_HD TileFloat4 copied(int thread, int copy, int d) {
  const int f = thread + copy * kThreads;
  return {f / (d / 4), f % (d / 4)};
}
WL_HD int copied_key_row(int tile, int key, int seq, int keys) {
  return clamped_row(tile * keys + key, seq);
}

// Words (floats) of the block's shared memory: the K tile (rows padded by 4 words, so a fragment
// read's 8 keys x 4 columns fall on 32 banks), then the V tile (padded by 8: 4 keys x 8 columns),
// then each warp's 16 rows of weights P (padded by 4), then the block's 64 query rows (padded by
// 4, read as K is).
WL_HD int k_word(int key, int col, int d) { return key * (d + 4) + col; }
WL_HD int v_word(int key, int col, int d, int keys) { return keys * (d + 4) + key * (d + 8) + col; }
WL_HD int p_word(int warp, int row, int key, int d, int keys) {
  return keys * (d + 4) + keys * (d + 8) + (warp * kRowsPerWarp + row) * (keys + 4) + key;
}
WL_HD int q_word(int row, int col, int d, int keys) {
  return p_word(kWarps, 0, 0, d, keys) + row * (d + 4) + col;
}
WL_HD int shared_words(int d, int keys) { return q_word(kQueriesPerBlock, 0, d, keys); }

// The query copy: the block's rows as the tile copy's keys, d / 8 float4s a thread.
WL_HD int query_copies_per_thread(int d) { return kQueriesPerBlock * d / 4 / kThreads; }

} // namespace tensor

} // namespace wl::flash_attention
