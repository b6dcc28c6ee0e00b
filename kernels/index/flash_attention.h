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

} // namespace wl::flash_attention
