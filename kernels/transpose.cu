// transpose: out = in^T, a copy whose reads and writes want different orders.
//
// The lesson: a warp can read a row of the input in 4 sectors, but the same elements belong to a
// column of the output, 32 floats `rows` apart, so the naive copy writes 32 sectors per request.
// Staging a 32x32 tile in shared memory lets each warp read an input row and write an output row,
// both coalesced; the price moves into shared memory, where reading the tile down a column puts
// all 32 lanes on one bank (a 32-way conflict), until one word of padding per tile row (32x33)
// spreads the column across all 32 banks. Global memory panel: naive's store is 32 sectors per
// request, every global access of the tiled variants is 4. Bank grid: "load tile" is one bank
// hit 32 times in smem and a clean diagonal in smem_padded; "store tile" is conflict-free in
// both. Occupancy: the tile costs 4 KiB of shared memory per block, far from any limit. Timings:
// naive far below copy bandwidth, smem better, smem_padded close to a plain copy, and in_flight,
// whose loads are all issued before the tile is written, closer still.

#include "common.h"
#include "families.h"
#include "index/transpose.h"
#if WL_DEVICE_CODE
#include "launch.cuh"
#endif

namespace wl {

#if WL_DEVICE_CODE
__global__ void transpose_naive(const float* in, float* out, int rows, int cols) {
  const int col = transpose::element(blockIdx.x, blockDim.x, threadIdx.x);
  const int row = transpose::element(blockIdx.y, blockDim.y, threadIdx.y);
  if (row < rows && col < cols) {
    const float value = in[transpose::input_offset(row, col, cols)]; // site: load in
    out[transpose::output_offset(row, col, rows)] = value;           // site: store out
  }
}

// Both tiled variants: read a 32x32 input tile row by row into shared memory, then write it out
// column by column, so that both global passes walk consecutive addresses. The block is 32 wide
// (one warp per tile row) and blockDim.y rows tall; each thread copies 32 / blockDim.y rows.
template <int kPitch>
__device__ void transpose_through_tile(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[transpose::kTile * kPitch];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = transpose::tile_origin(blockIdx.y), col0 = transpose::tile_origin(blockIdx.x);
  const int passes = transpose::tile_passes(blockDim.y);

  for (int pass = 0; pass < passes; ++pass) {
    const int r = transpose::tile_row(ty, blockDim.y, pass); // the tile row this warp reads
    if (row0 + r < rows && col0 + tx < cols) {
      const float value = in[transpose::input_offset(row0 + r, col0 + tx, cols)]; // site: load in
      tile[transpose::tile_word(r, tx, kPitch)] = value; // site: store tile
    }
  }
  __syncthreads();
  for (int pass = 0; pass < passes; ++pass) {
    const int c = transpose::tile_row(ty, blockDim.y, pass); // the tile column this warp writes
    if (row0 + tx < rows && col0 + c < cols) {
      const float value = tile[transpose::tile_word(tx, c, kPitch)];    // site: load tile
      out[transpose::output_offset(row0 + tx, col0 + c, rows)] = value; // site: store out
    }
  }
}

__global__ void transpose_smem(const float* in, float* out, int rows, int cols) {
  transpose_through_tile<transpose::kTile>(in, out, rows, cols);
}

__global__ void transpose_smem_padded(const float* in, float* out, int rows, int cols) {
  transpose_through_tile<transpose::kTile + 1>(in, out, rows, cols);
}

// smem_padded's tile and passes with the block's height fixed when compiled (32 x 8): every
// pass's load is issued before the first store into the tile, so each thread has four loads in
// flight where smem_padded's loop of unknown length waits on each in turn.
__global__ void transpose_in_flight(const float* in, float* out, int rows, int cols) {
  constexpr int kBlockRows = transpose::kInFlightRows, kPitch = transpose::kTile + 1;
  constexpr int kPasses = transpose::tile_passes(kBlockRows);
  __shared__ float tile[transpose::kTile * kPitch];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = transpose::tile_origin(blockIdx.y), col0 = transpose::tile_origin(blockIdx.x);
  float values[kPasses];
#pragma unroll
  for (int pass = 0; pass < kPasses; ++pass) {
    const int r = transpose::tile_row(ty, kBlockRows, pass);
    if (row0 + r < rows && col0 + tx < cols)
      values[pass] = in[transpose::input_offset(row0 + r, col0 + tx, cols)]; // site: load in
  }
#pragma unroll
  for (int pass = 0; pass < kPasses; ++pass) {
    const int r = transpose::tile_row(ty, kBlockRows, pass);
    if (row0 + r < rows && col0 + tx < cols)
      tile[transpose::tile_word(r, tx, kPitch)] = values[pass]; // site: store tile
  }
  __syncthreads();
#pragma unroll
  for (int pass = 0; pass < kPasses; ++pass) {
    const int c = transpose::tile_row(ty, kBlockRows, pass);
    if (row0 + tx < rows && col0 + c < cols)
      values[pass] = tile[transpose::tile_word(tx, c, kPitch)]; // site: load tile
  }
#pragma unroll
  for (int pass = 0; pass < kPasses; ++pass) {
    const int c = transpose::tile_row(ty, kBlockRows, pass);
    if (row0 + tx < rows && col0 + c < cols)
      out[transpose::output_offset(row0 + tx, col0 + c, rows)] = values[pass]; // site: store out
  }
}

// in_flight's tile doubled each way (64 x 64) for a 32 x 16 block: each thread has eight loads in
// flight, and each block moves 16 KiB, four times in_flight's, for one barrier.
__global__ void __launch_bounds__(transpose::kWideTile / 2 * transpose::kWideRows)
    transpose_wide_tile(const float* in, float* out, int rows, int cols) {
  constexpr int kPitch = transpose::kWideTile + 1, kSteps = transpose::wide_steps();
  __shared__ float tile[transpose::kWideTile * kPitch];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = transpose::wide_tile_origin(blockIdx.y);
  const int col0 = transpose::wide_tile_origin(blockIdx.x);
  float values[kSteps];
#pragma unroll
  for (int step = 0; step < kSteps; ++step) {
    const transpose::TileSpot s = transpose::wide_spot(tx, ty, step);
    if (row0 + s.row < rows && col0 + s.col < cols)
      values[step] = in[transpose::input_offset(row0 + s.row, col0 + s.col, cols)]; // site: load in
  }
#pragma unroll
  for (int step = 0; step < kSteps; ++step) {
    const transpose::TileSpot s = transpose::wide_spot(tx, ty, step);
    if (row0 + s.row < rows && col0 + s.col < cols)
      tile[transpose::tile_word(s.row, s.col, kPitch)] = values[step]; // site: store tile
  }
  __syncthreads();
  // Written the other way: the spot's column is the output's column within the tile.
#pragma unroll
  for (int step = 0; step < kSteps; ++step) {
    const transpose::TileSpot s = transpose::wide_spot(tx, ty, step);
    if (row0 + s.col < rows && col0 + s.row < cols)
      values[step] = tile[transpose::tile_word(s.col, s.row, kPitch)]; // site: load tile
  }
#pragma unroll
  for (int step = 0; step < kSteps; ++step) {
    const transpose::TileSpot s = transpose::wide_spot(tx, ty, step);
    const int at = transpose::output_offset(row0 + s.col, col0 + s.row, rows);
    if (row0 + s.col < rows && col0 + s.row < cols)
      out[at] = values[step]; // site: store out
  }
}
#endif

namespace {

constexpr int kIn = 0, kOut = 1;
using Offset = std::optional<std::int64_t>;
using RowCol = std::optional<std::pair<int, int>>;

std::vector<BufferSpec> buffers() {
  const auto count = [](const Params& p) { return p.at("rows") * p.at("cols"); };
  return {{"in", ElementType::f32, BufferRole::input, count},
          {"out", ElementType::f32, BufferRole::output, count}};
}

Expected reference(const HostBuffers& in, const Params& p) {
  Expected e{common::outputs_like(in, buffers()), {}, ""};
  const int rows = static_cast<int>(p.at("rows")), cols = static_cast<int>(p.at("cols"));
  const float* src = in[kIn].f32();
  float* dst = e.values[kOut].f32();
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      dst[transpose::output_offset(r, c, rows)] = src[transpose::input_offset(r, c, cols)];
  return e;
}

int rows_of(const LaunchShape& s) { return static_cast<int>(s.param("rows")); }
int cols_of(const LaunchShape& s) { return static_cast<int>(s.param("cols")); }

// What the sites' lanes read from the launch, read once.
struct Matrix {
  int rows = 0, cols = 0;
  BlockShape block;
};
Matrix matrix(const LaunchShape& s) { return {rows_of(s), cols_of(s), s.block}; }

// The descriptor fields all three variants share.
KernelDesc base(std::string id, std::string title, std::string lesson) {
  KernelDesc k;
  k.id = std::move(id);
  k.title = std::move(title);
  k.lesson = std::move(lesson);
  // 32768 x 32768 stays below 2^31 elements, so the kernels' 32-bit indices never overflow.
  k.params = {{"rows", "rows of the input (columns of the output)", 8192, 1, 32768, {}, true},
              {"cols", "columns of the input (rows of the output)", 8192, 1, 32768, {}, true}};
  k.block_rank = 2;
  k.default_block = {32, 8, 1};
  k.buffers = buffers();
  k.reference = reference;
  k.tolerance = {0.0, 0.0}; // a copy: bit-identical
  k.bytes_moved = [](const Params& p) {
    return 8.0 * static_cast<double>(p.at("rows") * p.at("cols"));
  };
  k.test_sizes = {{{"rows", 67}, {"cols", 45}},
                  {{"rows", 100}, {"cols", 129}},
                  {{"rows", 1}, {"cols", 97}},
                  {{"rows", 64}, {"cols", 64}}};
  return k;
}

// naive's two sites touch the same element: its (row, col) when inside the matrix.
RowCol naive_element(const Matrix& s, Coord b, Coord t) {
  const int col = transpose::element(b.x, s.block.x, t.x);
  const int row = transpose::element(b.y, s.block.y, t.y);
  if (row >= s.rows || col >= s.cols)
    return std::nullopt;
  return std::pair{row, col};
}

KernelDesc naive() {
  KernelDesc k = base(
      "transpose/naive", "Transpose, one element per thread",
      "Each thread copies one element. threadIdx.x runs along an input row, so a warp reads 32 "
      "consecutive floats (4 sectors per request) but writes them down an output column, 32 "
      "floats `rows` apart: every store request touches 32 sectors and uses 4 of each 32 bytes "
      "fetched. Global memory panel: load in at 4 sectors per request, store out at 32. Timings: "
      "well below copy bandwidth; compare with transpose/smem_padded.");
  k.block_presets = {{32, 8, 1}, {32, 32, 1}, {16, 16, 1}, {64, 4, 1}};
  k.allowed_blocks = "any 2D block of 1 to 1024 threads";
  k.check_block = [](const BlockShape& b, const Params&) -> std::string {
    if (b.z != 1)
      return "transpose/naive maps x to input columns and y to input rows: its block is 2D";
    if (b.threads() > 1024)
      return "a block holds at most 1024 threads";
    return "";
  };
  k.grid = [](const Params& p, const BlockShape& b, int) {
    return BlockShape{static_cast<int>(common::ceil_div(p.at("cols"), b.x)),
                      static_cast<int>(common::ceil_div(p.at("rows"), b.y)), 1};
  };
  k.sites = {
      {"load in", MemorySpace::global, AccessOp::load, kIn, common::fixed_width(4),
       common::single_iteration(),
       common::bound_offsets(matrix,
                             [](const Matrix& s, Coord b, Coord t, std::int64_t) -> Offset {
                               const RowCol e = naive_element(s, b, t);
                               if (!e)
                                 return std::nullopt;
                               return 4 * std::int64_t{
                                              transpose::input_offset(e->first, e->second, s.cols)};
                             })},
      {"store out", MemorySpace::global, AccessOp::store, kOut, common::fixed_width(4),
       common::single_iteration(),
       common::bound_offsets(matrix, [](const Matrix& s, Coord b, Coord t, std::int64_t) -> Offset {
         const RowCol e = naive_element(s, b, t);
         if (!e)
           return std::nullopt;
         return 4 * std::int64_t{transpose::output_offset(e->first, e->second, s.rows)};
       })}};
  k.symbol = [](const Params&) { return std::string("wl::transpose_naive"); };
#if WL_DEVICE_CODE
  k.function = [](const Params&) { return reinterpret_cast<const void*>(transpose_naive); };
  k.launch = [](const DeviceLaunch& l) {
    transpose_naive<<<to_dim3(l.shape.grid), to_dim3(l.shape.block), 0, stream_of(l)>>>(
        buffer<const float>(l, kIn), buffer<float>(l, kOut), rows_of(l.shape), cols_of(l.shape));
  };
#endif
  return k;
}

// The tiled variants' tile coordinates. Read phase, pass `it`: thread (tx, ty) reads input
// element (row0 + r, col0 + tx) into tile[r][tx], r = tile_row(ty, it). Write phase, pass `it`:
// it writes tile[tx][c], input element (row0 + tx, col0 + c), c = tile_row(ty, it). Each returns
// the tile (row, col), or nullopt when the element lies outside the matrix.
RowCol read_phase(const Matrix& s, Coord b, Coord t, std::int64_t it) {
  const int r = transpose::tile_row(t.y, s.block.y, static_cast<int>(it));
  if (transpose::tile_origin(b.y) + r >= s.rows)
    return std::nullopt;
  if (transpose::tile_origin(b.x) + t.x >= s.cols)
    return std::nullopt;
  return std::pair{r, t.x};
}

RowCol write_phase(const Matrix& s, Coord b, Coord t, std::int64_t it) {
  const int c = transpose::tile_row(t.y, s.block.y, static_cast<int>(it));
  if (transpose::tile_origin(b.y) + t.x >= s.rows)
    return std::nullopt;
  if (transpose::tile_origin(b.x) + c >= s.cols)
    return std::nullopt;
  return std::pair{t.x, c};
}

// A tiled site's offsets: the tile (row, col) `Phase` gives thread t of block b in pass `it`,
// turned into a word index by `word_of(matrix, block, row, col)`. The phase is a template
// argument so that the compiler inlines it into every lane.
template <auto Phase, typename WordOf> auto phase_offsets(WordOf word_of) {
  return common::bound_offsets(matrix,
                               [=](const Matrix& s, Coord b, Coord t, std::int64_t it) -> Offset {
                                 const RowCol e = Phase(s, b, t, it);
                                 if (!e)
                                   return std::nullopt;
                                 return 4 * std::int64_t{word_of(s, b, e->first, e->second)};
                               });
}

// The four sites of a tiled variant whose tile rows are `pitch` words apart.
std::vector<Site> tiled_sites(int pitch) {
  const auto passes = [](const LaunchShape& s) {
    return std::int64_t{transpose::tile_passes(s.block.y)};
  };
  const auto width = common::fixed_width(4);
  const auto input = [](const Matrix& s, Coord b, int row, int col) {
    return transpose::input_offset(transpose::tile_origin(b.y) + row,
                                   transpose::tile_origin(b.x) + col, s.cols);
  };
  const auto output = [](const Matrix& s, Coord b, int row, int col) {
    return transpose::output_offset(transpose::tile_origin(b.y) + row,
                                    transpose::tile_origin(b.x) + col, s.rows);
  };
  const auto tile = [pitch](const Matrix&, Coord, int row, int col) {
    return transpose::tile_word(row, col, pitch);
  };
  return {{"load in", MemorySpace::global, AccessOp::load, kIn, width, passes,
           phase_offsets<read_phase>(input)},
          {"store tile", MemorySpace::shared, AccessOp::store, -1, width, passes,
           phase_offsets<read_phase>(tile)},
          {"load tile", MemorySpace::shared, AccessOp::load, -1, width, passes,
           phase_offsets<write_phase>(tile)},
          {"store out", MemorySpace::global, AccessOp::store, kOut, width, passes,
           phase_offsets<write_phase>(output)}};
}

KernelDesc tiled(std::string id, std::string title, std::string lesson, int pitch) {
  KernelDesc k = base(std::move(id), std::move(title), std::move(lesson));
  k.block_presets = {{32, 8, 1}, {32, 4, 1}, {32, 16, 1}, {32, 32, 1}};
  k.allowed_blocks = "32 x 1, 2, 4, 8, 16 or 32 (x is the tile width; y must divide 32)";
  k.check_block = [id = k.id](const BlockShape& b, const Params&) -> std::string {
    if (b.x != transpose::kTile || b.z != 1)
      return id + " needs a 2D block 32 wide: one warp reads or writes one 32-float tile row";
    if (b.y < 1 || b.y > transpose::kTile || transpose::kTile % b.y != 0)
      return id + " needs blockDim.y to divide 32 (1, 2, 4, 8, 16 or 32): each thread copies "
                  "32 / blockDim.y tile rows";
    return "";
  };
  k.grid = [](const Params& p, const BlockShape&, int) {
    return BlockShape{static_cast<int>(common::ceil_div(p.at("cols"), transpose::kTile)),
                      static_cast<int>(common::ceil_div(p.at("rows"), transpose::kTile)), 1};
  };
  k.sites = tiled_sites(pitch);
  return k;
}

#if WL_DEVICE_CODE
template <auto Kernel> void launch_tiled(const DeviceLaunch& l) {
  Kernel<<<to_dim3(l.shape.grid), to_dim3(l.shape.block), 0, stream_of(l)>>>(
      buffer<const float>(l, kIn), buffer<float>(l, kOut), rows_of(l.shape), cols_of(l.shape));
}
#endif

KernelDesc smem() {
  KernelDesc k = tiled(
      "transpose/smem", "Transpose through a 32x32 shared tile",
      "A block reads a 32x32 tile with each warp on an input row (coalesced), stores it in shared "
      "memory, then each warp writes an output row (coalesced) by reading a column of the tile. "
      "Global memory panel: load in and store out both at 4 sectors per request. Bank grid: store "
      "tile is one word per bank (1 wavefront); load tile reads words 32 apart, all on one bank: "
      "a 32-way conflict, 32 wavefronts per request. Timings: better than naive, but the "
      "shared-memory pipe now serialises.",
      transpose::kTile);
  k.symbol = [](const Params&) { return std::string("wl::transpose_smem"); };
#if WL_DEVICE_CODE
  k.function = [](const Params&) { return reinterpret_cast<const void*>(transpose_smem); };
  k.launch = launch_tiled<transpose_smem>;
#endif
  return k;
}

KernelDesc smem_padded() {
  KernelDesc k = tiled(
      "transpose/smem_padded", "Transpose through a padded 32x33 shared tile",
      "The same tile with one unused word at the end of each row (32x33): a tile column now steps "
      "33 words, and 33 mod 32 = 1 puts the 32 lanes on 32 different banks. Bank grid: load tile "
      "becomes a diagonal, 1 wavefront per request, like store tile. Global memory panel: "
      "unchanged from smem (4 sectors per request). Timings: close to a plain copy.",
      transpose::kTile + 1);
  k.symbol = [](const Params&) { return std::string("wl::transpose_smem_padded"); };
#if WL_DEVICE_CODE
  k.function = [](const Params&) { return reinterpret_cast<const void*>(transpose_smem_padded); };
  k.launch = launch_tiled<transpose_smem_padded>;
#endif
  return k;
}

KernelDesc in_flight() {
  KernelDesc k = tiled(
      "transpose/in_flight", "Transpose through a padded tile, every load in flight",
      "smem_padded's tile, addresses and sites, compiled for a 32 x 8 block, so each thread "
      "issues its four loads before its first store into the tile. smem_padded's loop, whose "
      "length is known only at run time, stores each value before loading the next: one load "
      "in flight per thread, too few to cover DRAM's latency at full bandwidth (Little's law: "
      "bandwidth x latency bytes must be on their way). Every panel but Timings shows the same "
      "as smem_padded; what changed is when the loads are issued. Timings: close to the copy "
      "bandwidth.",
      transpose::kTile + 1);
  k.block_presets = {{32, transpose::kInFlightRows, 1}};
  k.allowed_blocks = "32 x 8 (the block this variant is compiled for)";
  k.check_block = [](const BlockShape& b, const Params&) -> std::string {
    if (b.x == transpose::kTile && b.y == transpose::kInFlightRows && b.z == 1)
      return "";
    return "transpose/in_flight is compiled for a 32 x 8 block, four tile rows a thread, so that "
           "its loads can all be issued at once";
  };
  k.symbol = [](const Params&) { return std::string("wl::transpose_in_flight"); };
#if WL_DEVICE_CODE
  k.function = [](const Params&) { return reinterpret_cast<const void*>(transpose_in_flight); };
  k.launch = launch_tiled<transpose_in_flight>;
#endif
  return k;
}

// wide_tile's sites: step `it` of thread t of block b reads input element (row0 + row, col0 + col)
// into tile[row][col] and writes tile[col][row] to out, the spot (row, col) from wide_spot.
std::vector<Site> wide_tile_sites() {
  const auto steps = [](const LaunchShape&) { return std::int64_t{transpose::wide_steps()}; };
  const auto width = common::fixed_width(4);
  // The read (`read` true) or the write of a step: the input element's (row, col) within the
  // tile, or nullopt outside the matrix.
  const auto element = [](const Matrix& s, Coord b, Coord t, std::int64_t it, bool read) -> RowCol {
    const transpose::TileSpot spot = transpose::wide_spot(t.x, t.y, static_cast<int>(it));
    const int row = read ? spot.row : spot.col, col = read ? spot.col : spot.row;
    if (transpose::wide_tile_origin(b.y) + row >= s.rows ||
        transpose::wide_tile_origin(b.x) + col >= s.cols)
      return std::nullopt;
    return std::pair{row, col};
  };
  const auto site = [&](const char* name, MemorySpace space, AccessOp op, int buffer, bool read) {
    return Site{name,
                space,
                op,
                buffer,
                width,
                steps,
                common::bound_offsets(
                    matrix, [=](const Matrix& s, Coord b, Coord t, std::int64_t it) -> Offset {
                      const RowCol e = element(s, b, t, it, read);
                      if (!e)
                        return std::nullopt;
                      const int row = transpose::wide_tile_origin(b.y) + e->first;
                      const int col = transpose::wide_tile_origin(b.x) + e->second;
                      const int word =
                          space == MemorySpace::shared
                              ? transpose::tile_word(e->first, e->second, transpose::kWideTile + 1)
                          : read ? transpose::input_offset(row, col, s.cols)
                                 : transpose::output_offset(row, col, s.rows);
                      return 4 * std::int64_t{word};
                    })};
  };
  return {site("load in", MemorySpace::global, AccessOp::load, kIn, true),
          site("store tile", MemorySpace::shared, AccessOp::store, -1, true),
          site("load tile", MemorySpace::shared, AccessOp::load, -1, false),
          site("store out", MemorySpace::global, AccessOp::store, kOut, false)};
}

KernelDesc wide_tile() {
  KernelDesc k = base(
      "transpose/wide_tile", "Transpose through a 64x64 padded tile, eight loads in flight",
      "in_flight's tile doubled each way: a 64 x 64 tile (65 words a row) for a 32 x 16 block, "
      "so each thread reads two 32-wide halves of four tile rows, eight loads in flight where "
      "in_flight has four, and each block moves 16 KiB for its one barrier. Global memory panel: "
      "4 sectors per request, as before. Bank grid: store tile and load tile one wavefront per "
      "request (a column steps 65 words, 65 mod 32 = 1). Timings: against in_flight and the "
      "copy bandwidth.");
  k.default_block = {32, transpose::kWideRows, 1};
  k.block_presets = {{32, transpose::kWideRows, 1}};
  k.allowed_blocks = "32 x 16 (the block this variant is compiled for)";
  k.check_block = [](const BlockShape& b, const Params&) -> std::string {
    if (b.x == 32 && b.y == transpose::kWideRows && b.z == 1)
      return "";
    return "its eight loads a thread are laid out for 16 warps of 32 lanes";
  };
  k.grid = [](const Params& p, const BlockShape&, int) {
    return BlockShape{static_cast<int>(common::ceil_div(p.at("cols"), transpose::kWideTile)),
                      static_cast<int>(common::ceil_div(p.at("rows"), transpose::kWideTile)), 1};
  };
  k.sites = wide_tile_sites();
  k.symbol = [](const Params&) { return std::string("wl::transpose_wide_tile"); };
#if WL_DEVICE_CODE
  k.function = [](const Params&) { return reinterpret_cast<const void*>(transpose_wide_tile); };
  k.launch = launch_tiled<transpose_wide_tile>;
#endif
  return k;
}

} // namespace

std::vector<KernelDesc> transpose_kernels() {
  return {naive(), smem(), smem_padded(), in_flight(), wide_tile()};
}

} // namespace wl
