// flash_attention: O = softmax(Q K^T / sqrt(d)) V for every head, one query row per thread.
//
// The lesson is register pressure. Each thread keeps its query row, a score per key of the tile
// and its whole output row (`acc[d]`) in registers while it streams K and V tiles through shared
// memory and rescales with the online softmax (running max and running sum), so the S x S score
// matrix never exists. At d = 64 that fits in the 255 registers a thread may have; at d = 128 it
// cannot, and the compiler spills to local memory. Occupancy panel: registers per thread and
// local bytes per thread from the attributes, and the register limit capping resident warps.
// Global memory panel: the K and V tile copies are ideal (16 sectors per request), while the
// query loads and output stores take 32 sectors per request (each lane its own row, half of every
// sector used) but happen only once per thread. Shared memory / bank grid: every lane reads the
// same K or V float4, a broadcast with no conflicts (one wavefront per half-warp transaction).
// Timings: compare d64 and d128 in FLOP/s; the spilled version pays for its local traffic.

#include "common.h"
#include "families.h"
#include "index/flash_attention.h"
#if WL_DEVICE_CODE
#include "launch.cuh"
#endif

#include <algorithm>
#include <cmath>

namespace wl {

namespace {

using namespace flash_attention;

constexpr int kMaxBlockThreads = 256; // 256 threads x 255 registers fill the 64K-register file

#if WL_DEVICE_CODE

template <int D>
__device__ __forceinline__ void attention_rows(const float4* q, const float4* k, const float4* v,
                                               float4* o, int seq) {
  static_assert(D % 4 == 0, "rows are moved as float4s");
  constexpr int kParts = D / 4;
  __shared__ float4 tiles[2 * kKeysPerTile * kParts]; // the K tile, then the V tile

  const int head = blockIdx.y;
  const int row = query_row(blockIdx.x, blockDim.x, threadIdx.x);
  const bool owns_row = row < seq; // threads past the end still help copy tiles
  const float scale = 1.0f / sqrtf(static_cast<float>(D)); // folded at compile time

  float query[D]; // pre-scaled by 1 / sqrt(d); zeros for threads past the end
#pragma unroll
  for (int p = 0; p < kParts; ++p) {
    const float4 x = owns_row ? q[row_float4(head, row, seq, D) + p] // site: load q row
                              : make_float4(0, 0, 0, 0);
    query[4 * p] = x.x * scale, query[4 * p + 1] = x.y * scale;
    query[4 * p + 2] = x.z * scale, query[4 * p + 3] = x.w * scale;
  }

  float acc[D] = {};             // the output row, unnormalised
  float running_max = -INFINITY; // largest score so far
  float running_sum = 0.0f;      // sum of exp(score - running_max) so far

  for (int tile = 0; tile < key_tile_count(seq); ++tile) {
    const std::int64_t tile_start = row_float4(head, tile * kKeysPerTile, seq, D);
    for (int copy = 0; copy < copies_per_thread(D, blockDim.x); ++copy) {
      const int f = copied_float4(threadIdx.x, blockDim.x, copy);
      if (!copies_inside_tile(f, tile, seq, D))
        continue;
      const int key_word = shared_k_float4(f / kParts, f % kParts, D);
      tiles[key_word] = k[tile_start + f]; // sites: load k tile, store k tile
      const int value_word = shared_v_float4(f / kParts, f % kParts, D);
      tiles[value_word] = v[tile_start + f]; // sites: load v tile, store v tile
    }
    __syncthreads();

    const int keys = keys_in_tile(tile, seq);
    float score[kKeysPerTile];
    float tile_max = running_max;
#pragma unroll
    for (int key = 0; key < kKeysPerTile; ++key) {
      if (key >= keys)
        continue;
      float s = 0.0f;
#pragma unroll
      for (int p = 0; p < kParts; ++p) {
        // The same address in every lane: a broadcast.
        const float4 kk = tiles[shared_k_float4(key, p, D)]; // site: read k from tile
        s += query[4 * p] * kk.x + query[4 * p + 1] * kk.y + query[4 * p + 2] * kk.z +
             query[4 * p + 3] * kk.w;
      }
      score[key] = s;
      tile_max = fmaxf(tile_max, s);
    }

    // Rescale what came before to the new maximum, once per tile (exp(-inf) = 0 on the first).
    const float correction = expf(running_max - tile_max);
    running_sum *= correction;
#pragma unroll
    for (int i = 0; i < D; ++i)
      acc[i] *= correction;

#pragma unroll
    for (int key = 0; key < kKeysPerTile; ++key) {
      if (key >= keys)
        continue;
      const float weight = expf(score[key] - tile_max);
      running_sum += weight;
#pragma unroll
      for (int p = 0; p < kParts; ++p) {
        const float4 vv = tiles[shared_v_float4(key, p, D)]; // site: read v from tile
        acc[4 * p] += weight * vv.x, acc[4 * p + 1] += weight * vv.y;
        acc[4 * p + 2] += weight * vv.z, acc[4 * p + 3] += weight * vv.w;
      }
    }
    running_max = tile_max;
    __syncthreads(); // the next copy overwrites the tiles
  }

  if (!owns_row)
    return;
  const float inverse_sum = 1.0f / running_sum;
#pragma unroll
  for (int p = 0; p < kParts; ++p) {
    const float4 out = make_float4(acc[4 * p] * inverse_sum, acc[4 * p + 1] * inverse_sum,
                                   acc[4 * p + 2] * inverse_sum, acc[4 * p + 3] * inverse_sum);
    o[row_float4(head, row, seq, D) + p] = out; // site: store o row
  }
}

#endif
} // namespace

#if WL_DEVICE_CODE
__global__ void __launch_bounds__(kMaxBlockThreads)
    flash_attention_d64(const float4* q, const float4* k, const float4* v, float4* o, int seq) {
  attention_rows<64>(q, k, v, o, seq);
}

__global__ void __launch_bounds__(kMaxBlockThreads)
    flash_attention_d128(const float4* q, const float4* k, const float4* v, float4* o, int seq) {
  attention_rows<128>(q, k, v, o, seq);
}
#endif

namespace {

constexpr int kQ = 0, kK = 1, kV = 2, kO = 3;

// A reference that touches every output costs heads * seq^2 * d multiply-adds in double; above
// this many it checks a sample of whole rows instead.
constexpr std::int64_t kFullReferenceLimit = std::int64_t{1} << 26;

std::int64_t elements(const Params& p, int d) { return p.at("heads") * p.at("seq") * d; }

std::vector<BufferSpec> buffers(int d) {
  const auto count = [d](const Params& p) { return elements(p, d); };
  return {{"q", ElementType::f32, BufferRole::input, count},
          {"k", ElementType::f32, BufferRole::input, count},
          {"v", ElementType::f32, BufferRole::input, count},
          {"o", ElementType::f32, BufferRole::output, count}};
}

// One output row in double: the scores, their softmax, and the weighted sum of V's rows.
void reference_row(const HostBuffers& in, float* o, int head, int row, int seq, int d) {
  const std::int64_t head_start = static_cast<std::int64_t>(head) * seq * d;
  const float* q = in[kQ].f32() + head_start + static_cast<std::int64_t>(row) * d;
  const float* k = in[kK].f32() + head_start;
  const float* v = in[kV].f32() + head_start;
  std::vector<double> score(seq);
  double max_score = -INFINITY;
  for (int key = 0; key < seq; ++key) {
    double s = 0;
    for (int i = 0; i < d; ++i)
      s += double(q[i]) * k[static_cast<std::int64_t>(key) * d + i];
    score[key] = s / std::sqrt(double(d));
    max_score = std::max(max_score, score[key]);
  }
  std::vector<double> out(d, 0.0);
  double sum = 0;
  for (int key = 0; key < seq; ++key) {
    const double weight = std::exp(score[key] - max_score);
    sum += weight;
    for (int i = 0; i < d; ++i)
      out[i] += weight * v[static_cast<std::int64_t>(key) * d + i];
  }
  float* out_row = o + head_start + static_cast<std::int64_t>(row) * d;
  for (int i = 0; i < d; ++i)
    out_row[i] = static_cast<float>(out[i] / sum);
}

// The rows checked at a large size: both ends of every head, and in the first, middle and last
// head also the rows on either side of 32-, 64- and 128-row boundaries and the middle.
std::vector<std::pair<int, int>> sampled_rows(int heads, int seq) {
  std::vector<std::pair<int, int>> rows;
  for (int head = 0; head < heads; ++head)
    rows.push_back({head, 0}), rows.push_back({head, seq - 1});
  for (int head : {0, heads / 2, heads - 1})
    for (int row :
         {1, 31, 32, 63, 64, 127, 128, seq / 2, seq - 65, seq - 64, seq - 33, seq - 32, seq - 2})
      if (row >= 0 && row < seq)
        rows.push_back({head, row});
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

Expected reference(const HostBuffers& in, const Params& p, int d) {
  Expected e{common::outputs_like(in, buffers(d)), {}, ""};
  const int heads = static_cast<int>(p.at("heads")), seq = static_cast<int>(p.at("seq"));
  float* o = e.values[kO].f32();
  if (static_cast<std::int64_t>(heads) * seq * seq * d <= kFullReferenceLimit) {
    for (int head = 0; head < heads; ++head)
      for (int row = 0; row < seq; ++row)
        reference_row(in, o, head, row, seq, d);
    return e;
  }
  const auto rows = sampled_rows(heads, seq);
  for (const auto& [head, row] : rows) {
    reference_row(in, o, head, row, seq, d);
    const std::int64_t first = (static_cast<std::int64_t>(head) * seq + row) * d;
    for (int i = 0; i < d; ++i)
      e.checked.push_back(first + i);
  }
  e.note =
      "a full double reference costs heads x seq^2 x d here, so " + std::to_string(rows.size()) +
      " whole output rows are checked: the first and last row of every head, and rows around the "
      "32/64/128-row boundaries and the middle of the first, middle and last head";
  return e;
}

// Iteration `it` of a tile-copy site: which tile, and which float4 of it this thread copies.
struct CopyStep {
  int tile = 0, float4_in_tile = 0;
};
CopyStep copy_step(int block_x, Coord t, std::int64_t it, int d) {
  const int copies = copies_per_thread(d, block_x);
  return {static_cast<int>(it / copies),
          copied_float4(t.x, block_x, static_cast<int>(it % copies))};
}

// Iteration `it` of a tile-read site: which tile, key and float4 of the key's row.
struct ReadStep {
  int tile = 0, key = 0, part = 0;
};
ReadStep read_step(std::int64_t it, int d) {
  const int parts = d / 4;
  return {static_cast<int>(it / (kKeysPerTile * parts)),
          static_cast<int>(it / parts % kKeysPerTile), static_cast<int>(it % parts)};
}

using Offset = std::optional<std::int64_t>;
int seq_of(const LaunchShape& s) { return static_cast<int>(s.param("seq")); }

// Trip count of the copy loop, counted over all tiles: tiles x copy steps per thread.
std::int64_t copy_iterations(const LaunchShape& s, int d) {
  return std::int64_t{key_tile_count(seq_of(s))} * copies_per_thread(d, s.block.x);
}

// What a site's lanes read from the launch, read once.
struct Attention {
  int seq = 0, block_x = 0;
};
Attention attention(const LaunchShape& s) { return {seq_of(s), s.block.x}; }

// A site whose lanes' offset is `offset(attention, block, thread, iteration)`.
template <typename Offsets> std::function<LaneOffsets(const LaunchShape&)> bind(Offsets offset) {
  return common::bound_offsets(attention, offset);
}

Site row_site(std::string name, AccessOp op, int buffer, int d) {
  return {std::move(name),
          MemorySpace::global,
          op,
          buffer,
          common::fixed_width(16),
          [d](const LaunchShape&) { return std::int64_t{d / 4}; },
          bind([d](const Attention& a, Coord b, Coord t, std::int64_t it) -> Offset {
            const int row = query_row(b.x, a.block_x, t.x);
            if (row >= a.seq)
              return std::nullopt;
            return (row_float4(b.y, row, a.seq, d) + it) * 16;
          })};
}

Site tile_load_site(std::string name, int buffer, int d) {
  return {std::move(name),
          MemorySpace::global,
          AccessOp::load,
          buffer,
          common::fixed_width(16),
          [d](const LaunchShape& s) { return copy_iterations(s, d); },
          bind([d](const Attention& a, Coord b, Coord t, std::int64_t it) -> Offset {
            const CopyStep c = copy_step(a.block_x, t, it, d);
            if (!copies_inside_tile(c.float4_in_tile, c.tile, a.seq, d))
              return std::nullopt;
            return (row_float4(b.y, c.tile * kKeysPerTile, a.seq, d) + c.float4_in_tile) * 16;
          })};
}

Site tile_store_site(std::string name, bool v_tile, int d) {
  return {std::move(name),
          MemorySpace::shared,
          AccessOp::store,
          -1,
          common::fixed_width(16),
          [d](const LaunchShape& s) { return copy_iterations(s, d); },
          bind([d, v_tile](const Attention& a, Coord, Coord t, std::int64_t it) -> Offset {
            const CopyStep c = copy_step(a.block_x, t, it, d);
            if (!copies_inside_tile(c.float4_in_tile, c.tile, a.seq, d))
              return std::nullopt;
            const int key = c.float4_in_tile / (d / 4), part = c.float4_in_tile % (d / 4);
            return std::int64_t{v_tile ? shared_v_float4(key, part, d)
                                       : shared_k_float4(key, part, d)} *
                   16;
          })};
}

Site tile_read_site(std::string name, bool v_tile, int d) {
  return {std::move(name),
          MemorySpace::shared,
          AccessOp::load,
          -1,
          common::fixed_width(16),
          [d](const LaunchShape& s) {
            return std::int64_t{key_tile_count(seq_of(s))} * kKeysPerTile * (d / 4);
          },
          bind([d, v_tile](const Attention& a, Coord, Coord, std::int64_t it) -> Offset {
            const ReadStep r = read_step(it, d);
            if (r.key >= keys_in_tile(r.tile, a.seq))
              return std::nullopt;
            const int f =
                v_tile ? shared_v_float4(r.key, r.part, d) : shared_k_float4(r.key, r.part, d);
            return std::int64_t{f} * 16;
          })};
}

// In source order: the query row, the K and V tile copies, the tile reads, the output row.
std::vector<Site> sites(int d) {
  return {row_site("load q row", AccessOp::load, kQ, d),
          tile_load_site("load k tile", kK, d),
          tile_store_site("store k tile", false, d),
          tile_load_site("load v tile", kV, d),
          tile_store_site("store v tile", true, d),
          tile_read_site("read k from tile", false, d),
          tile_read_site("read v from tile", true, d),
          row_site("store o row", AccessOp::store, kO, d)};
}

#if WL_DEVICE_CODE
void enqueue(const DeviceLaunch& l,
             void (*kernel)(const float4*, const float4*, const float4*, float4*, int)) {
  kernel<<<to_dim3(l.shape.grid), to_dim3(l.shape.block), 0, stream_of(l)>>>(
      buffer<const float4>(l, kQ), buffer<const float4>(l, kK), buffer<const float4>(l, kV),
      buffer<float4>(l, kO), static_cast<int>(l.shape.param("seq")));
}
#endif

const char* const kSharedLesson = " Each block owns one query row per thread (block x) of one head "
                                  "(grid y) and walks the keys in tiles of 32: "
                                  "the block copies a K and a V tile into shared memory with "
                                  "coalesced float4 loads (16 sectors per request), "
                                  "then every thread reads each key's row from the tile. All lanes "
                                  "read the same float4, a broadcast: one "
                                  "wavefront per half-warp transaction, 2 per request, no "
                                  "conflicts. The query loads and output stores "
                                  "give each lane its own row: 32 sectors per request, half of "
                                  "each sector used, once per thread.";

KernelDesc variant(int d, std::string title, std::string lesson) {
  KernelDesc k;
  k.id = "flash_attention/d" + std::to_string(d);
  k.title = std::move(title);
  k.lesson = std::move(lesson) + kSharedLesson;
  k.fp32_counter_note =
      "it counts 4 d FLOP for each query and key (the score's and the weighted value row's "
      "multiply-adds); the code also computes one expf for each (about ten FP32 operations of "
      "range reduction around an MUFU.EX2, which these counters do not see) and rescales the "
      "output row by each tile's correction (d multiplies a tile)";
  k.params = {
      {"seq", "sequence length: query and key rows per head", 4096, 1, 16384, {}, true},
      {"heads", "independent heads (batch x heads), one grid row each", 8, 1, 64, {}, true}};
  k.block_rank = 1;
  k.default_block = {64, 1, 1};
  k.block_presets = {{32, 1, 1}, {64, 1, 1}, {128, 1, 1}, {256, 1, 1}};
  k.allowed_blocks = "any 1D block of 1 to 256 threads (one query row per thread; built with "
                     "__launch_bounds__(256))";
  k.check_block = [](const BlockShape& b, const Params&) -> std::string {
    if (b.y != 1 || b.z != 1)
      return "flash_attention gives each thread one query row in x, so its block is 1D (X only)";
    if (b.x > kMaxBlockThreads)
      return "flash_attention allows at most 256 threads per block: it is built with "
             "__launch_bounds__(256), since "
             "256 threads at 255 registers each already fill an SM's 65,536 registers";
    return "";
  };
  k.grid = [](const Params& p, const BlockShape& b, int) {
    return BlockShape{static_cast<int>(common::ceil_div(p.at("seq"), b.x)),
                      static_cast<int>(p.at("heads")), 1};
  };
  k.buffers = buffers(d);
  k.reference = [d](const HostBuffers& in, const Params& p) { return reference(in, p, d); };
  // Outputs are weighted means of values in [-1, 1) (about 0.01 at seq 4096), so the float32
  // error is absolute: a float emulation of this kernel stayed under 1.4e-7 of the double
  // reference up to seq 16384 at either head size; this leaves a margin of over 10x.
  k.tolerance = {2e-6, 1e-5};
  k.bytes_moved = [d](const Params& p) { return 16.0 * static_cast<double>(elements(p, d)); };
  // Per head, query and key: d multiply-adds for the score and d for the weighted V row.
  k.flops = [d](const Params& p) {
    return 4.0 * static_cast<double>(elements(p, d)) * double(p.at("seq"));
  };
  k.sites = sites(d);
  k.test_sizes = {{{"seq", 67}, {"heads", 2}},
                  {{"seq", 130}, {"heads", 3}},
                  {{"seq", 257}, {"heads", 1}},
                  {{"seq", 1}, {"heads", 2}}};
  return k;
}

KernelDesc d64() {
  KernelDesc k = variant(
      64, "Flash attention, head size 64",
      "Online-softmax attention with the whole output row in registers: 64 accumulators, the "
      "64-float query row and 32 tile scores per thread. Occupancy panel: well over 100 "
      "registers per thread and no local memory; the register limit sets the resident warps.");
  k.symbol = [](const Params&) { return std::string("wl::flash_attention_d64"); };
#if WL_DEVICE_CODE
  k.function = [](const Params&) { return reinterpret_cast<const void*>(flash_attention_d64); };
  k.launch = [](const DeviceLaunch& l) { enqueue(l, flash_attention_d64); };
#endif
  return k;
}

KernelDesc d128() {
  KernelDesc k = variant(
      128, "Flash attention, head size 128 (spills)",
      "The same kernel with 128 accumulators and a 128-float query row per thread: more than "
      "the 255 registers a thread can have, so the compiler spills to local memory. Occupancy "
      "panel: registers at the cap and local bytes per thread above zero; the local traffic "
      "goes through L1 and L2 and shows in the timings against d64.");
  k.symbol = [](const Params&) { return std::string("wl::flash_attention_d128"); };
#if WL_DEVICE_CODE
  k.function = [](const Params&) { return reinterpret_cast<const void*>(flash_attention_d128); };
  k.launch = [](const DeviceLaunch& l) { enqueue(l, flash_attention_d128); };
#endif
  return k;
}

} // namespace

std::vector<KernelDesc> flash_attention_kernels() { return {d64(), d128()}; }

} // namespace wl
