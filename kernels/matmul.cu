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

#include <stdexcept>
#include <string>

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
  return {naive(), naive_uncoalesced(), tiled(), tiled_padded(), cublas()};
}

} // namespace wl
