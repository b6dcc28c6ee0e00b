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
namespace tc = flash_attention::tensor;

constexpr int kMaxBlockThreads = 256; // 256 threads x 255 registers fill the 64K-register file
// Keys per tile of the tensor-core variants: 64 at d64; 32 at d128, where a lane's 64 output
// accumulators and 64 query values leave room for 16 scores, not 32.
constexpr int kTensorKeys64 = 64, kTensorKeys128 = 32;

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

#if WL_DEVICE_CODE
namespace {

// x rounded to TF32's 10 mantissa bits (half an ulp added, the 13 bits below cleared): integer
// work at the ALU's full rate, where cvt.rna.tf32.f32 took a third longer on the H200.
__device__ __forceinline__ std::uint32_t round_to_tf32(std::uint32_t bits) {
  return (bits + 0x1000u) & 0xffffe000u;
}

// x as the sum of two TF32 values: x rounded to TF32, and the rest rounded again. Products of the
// halves keep about FP32's precision (3xTF32, as torch's FP32 attention does on these GPUs).
struct Tf32Halves {
  std::uint32_t big, small;
};
__device__ __forceinline__ Tf32Halves split_tf32(float x) {
  const std::uint32_t big = round_to_tf32(__float_as_uint(x));
  return {big, round_to_tf32(__float_as_uint(x - __uint_as_float(big)))};
}

// An A operand (16 x 8) of one lane, split into halves once and used for a row of products.
struct SplitA {
  std::uint32_t big[4], small[4];
};
__device__ __forceinline__ SplitA split_a(float a0, float a1, float a2, float a3) {
  const float a[4] = {a0, a1, a2, a3};
  SplitA s;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const Tf32Halves h = split_tf32(a[i]);
    s.big[i] = h.big, s.small[i] = h.small;
  }
  return s;
}

// c += a b on the tensor cores: one m16n8k8 product of TF32 values, accumulated in FP32.
__device__ __forceinline__ void mma_tf32(float (&c)[4], const std::uint32_t (&a)[4],
                                         std::uint32_t b0, std::uint32_t b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// c += a b to about FP32's precision: the two cross products of the halves first, the large one
// last; the product of the two small halves (2^-22 of the whole) is left out.
__device__ __forceinline__ void mma_3xtf32(float (&c)[4], const SplitA& a, float b0, float b1) {
  const Tf32Halves x = split_tf32(b0), y = split_tf32(b1);
  mma_tf32(c, a.small, x.big, y.big);
  mma_tf32(c, a.big, x.small, y.small);
  mma_tf32(c, a.big, x.big, y.big);
}

// The block's K and V tiles: every thread copies its float4s of each (coalesced rows).
template <int D, int Keys>
__device__ __forceinline__ void copy_tiles(float* shared, const float4* k, const float4* v,
                                           int head, int tile, int seq) {
#pragma unroll
  for (int copy = 0; copy < tc::copies_per_thread(D, Keys); ++copy) {
    const tc::TileFloat4 f = tc::copied(threadIdx.x, copy, D);
    const std::int64_t from =
        tc::element(head, tc::copied_key_row(tile, f.key, seq, Keys), 4 * f.part, seq, D) / 4;
    float4* key_slot = reinterpret_cast<float4*>(&shared[tc::k_word(f.key, 4 * f.part, D)]);
    float4* value_slot = reinterpret_cast<float4*>(&shared[tc::v_word(f.key, 4 * f.part, D, Keys)]);
    *key_slot = k[from];   // sites: load k tile, store k tile
    *value_slot = v[from]; // sites: load v tile, store v tile
  }
}

// The block's 64 query rows, scaled, into shared memory once: there they cost no registers, which
// at d128 lets two blocks share an SM.
template <int D, int Keys>
__device__ __forceinline__ void copy_queries(float* shared, const float4* q, int head, int seq,
                                             float scale) {
#pragma unroll
  for (int copy = 0; copy < tc::query_copies_per_thread(D); ++copy) {
    const tc::TileFloat4 f = tc::copied(threadIdx.x, copy, D);
    const int row = tc::clamped_row(tc::query_row(blockIdx.x, 0, f.key), seq);
    const std::int64_t from = tc::element(head, row, 4 * f.part, seq, D) / 4;
    float4* slot = reinterpret_cast<float4*>(&shared[tc::q_word(f.key, 4 * f.part, D, Keys)]);
    float4 x = q[from]; // site: load q tile
    x.x *= scale, x.y *= scale, x.z *= scale, x.w *= scale;
    *slot = x; // site: store q tile
  }
}

// Scores of the warp's 16 queries against the tile's keys: s[n] is the 16 x 8 block of keys
// 8n to 8n + 7, each lane holding rows group and group + 8, columns 2 thread and 2 thread + 1.
template <int D, int Keys>
__device__ __forceinline__ void scores(float (&s)[Keys / 8][4], const float* shared, int warp,
                                       int group, int thread) {
#pragma unroll
  for (int n = 0; n < Keys / 8; ++n)
    s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.0f;
#pragma unroll
  for (int step = 0; step < D / 8; ++step) {
    const int row = tc::kRowsPerWarp * warp + group, col = 8 * step + thread;
    const int top = tc::q_word(row, col, D, Keys), bottom = tc::q_word(row + 8, col, D, Keys);
    const float a0 = shared[top], a2 = shared[top + 4];       // site: read q top
    const float a1 = shared[bottom], a3 = shared[bottom + 4]; // site: read q bottom
    const SplitA a = split_a(a0, a1, a2, a3);
#pragma unroll
    for (int n = 0; n < Keys / 8; ++n) {
      const int key = 8 * n + group;
      const int w0 = tc::k_word(key, col, D), w1 = tc::k_word(key, col + 4, D);
      const float b0 = shared[w0], b1 = shared[w1]; // site: read k
      mma_3xtf32(s[n], a, b0, b1);
    }
  }
}

// Online softmax over one tile for the lane's two rows (half 0: row group, half 1: group + 8):
// the new running max (scores are already in log2 units), the correction of what came before,
// and the scores replaced by their weights exp2(s - max).
template <int D, int Keys>
__device__ __forceinline__ void softmax_tile(float (&s)[Keys / 8][4], float (&out)[D / 8][4],
                                             float (&row_max)[2], float (&row_sum)[2], int keys,
                                             int thread) {
#pragma unroll
  for (int n = 0; n < Keys / 8; ++n)
#pragma unroll
    for (int j = 0; j < 4; ++j)
      if (8 * n + 2 * thread + (j & 1) >= keys)
        s[n][j] = -INFINITY; // a key past the end of the sequence weighs nothing
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    float tile_max = row_max[half];
#pragma unroll
    for (int n = 0; n < Keys / 8; ++n)
      tile_max = fmaxf(tile_max, fmaxf(s[n][2 * half], s[n][2 * half + 1]));
    // The four lanes of a group hold the row's other columns.
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
    const float correction = exp2f(row_max[half] - tile_max); // exp2(-inf) = 0 on the first tile
    row_sum[half] *= correction;
#pragma unroll
    for (int n = 0; n < D / 8; ++n)
      out[n][2 * half] *= correction, out[n][2 * half + 1] *= correction;
#pragma unroll
    for (int n = 0; n < Keys / 8; ++n)
#pragma unroll
      for (int j = 2 * half; j < 2 * half + 2; ++j) {
        s[n][j] = exp2f(s[n][j] - tile_max);
        row_sum[half] += s[n][j];
      }
    row_max[half] = tile_max;
  }
}

// out += P V: the weights go through the warp's rows of shared memory, from the results' layout
// to the A operand's, then multiply the V tile.
template <int D, int Keys>
__device__ __forceinline__ void weigh_values(float (&out)[D / 8][4], const float (&p)[Keys / 8][4],
                                             float* shared, int warp, int group, int thread) {
#pragma unroll
  for (int n = 0; n < Keys / 8; ++n) {
    const int key = 8 * n + 2 * thread;
    float2* top = reinterpret_cast<float2*>(&shared[tc::p_word(warp, group, key, D, Keys)]);
    float2* bottom = reinterpret_cast<float2*>(&shared[tc::p_word(warp, group + 8, key, D, Keys)]);
    *top = make_float2(p[n][0], p[n][1]);    // site: store p top
    *bottom = make_float2(p[n][2], p[n][3]); // site: store p bottom
  }
  __syncwarp();
#pragma unroll
  for (int step = 0; step < Keys / 8; ++step) {
    const int key = 8 * step + thread;
    const int top = tc::p_word(warp, group, key, D, Keys);
    const int bottom = tc::p_word(warp, group + 8, key, D, Keys);
    const float a0 = shared[top], a2 = shared[top + 4];       // site: read p top
    const float a1 = shared[bottom], a3 = shared[bottom + 4]; // site: read p bottom
    const SplitA a = split_a(a0, a1, a2, a3);
#pragma unroll
    for (int n = 0; n < D / 8; ++n) {
      const int col = 8 * n + group;
      const int w0 = tc::v_word(key, col, D, Keys), w1 = tc::v_word(key + 4, col, D, Keys);
      const float b0 = shared[w0], b1 = shared[w1]; // site: read v
      mma_3xtf32(out[n], a, b0, b1);
    }
  }
}

template <int D, int Keys>
__device__ __forceinline__ void attention_on_tensor_cores(const float4* q, const float4* k,
                                                          const float4* v, float* o, int seq) {
#if __CUDA_ARCH__ >= 800
  extern __shared__ float4 shared_float4s[];
  float* shared = reinterpret_cast<float*>(shared_float4s);
  const int head = blockIdx.y, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int group = tc::group(lane), thread = tc::thread_in_group(lane);
  const int row = tc::query_row(blockIdx.x, warp, group), row8 = row + 8;
  // Scores in log2 units, so each weight is one exp2: 1 / sqrt(d) x log2(e), folded into Q.
  copy_queries<D, Keys>(shared, q, head, seq, 1.4426950408889634f / sqrtf(static_cast<float>(D)));
  float out[D / 8][4] = {};
  float row_max[2] = {-INFINITY, -INFINITY}, row_sum[2] = {0.0f, 0.0f};
  for (int tile = 0; tile < tc::tile_count(seq, Keys); ++tile) {
    copy_tiles<D, Keys>(shared, k, v, head, tile, seq);
    __syncthreads();
    float s[Keys / 8][4];
    scores<D, Keys>(s, shared, warp, group, thread);
    softmax_tile<D, Keys>(s, out, row_max, row_sum, tc::keys_in(tile, seq, Keys), thread);
    weigh_values<D, Keys>(out, s, shared, warp, group, thread);
    __syncthreads(); // the next copy overwrites the tiles
  }
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    row_sum[half] += __shfl_xor_sync(0xffffffffu, row_sum[half], 1);
    row_sum[half] += __shfl_xor_sync(0xffffffffu, row_sum[half], 2);
  }
#pragma unroll
  for (int n = 0; n < D / 8; ++n) {
    const int col = 8 * n + 2 * thread;
    const float2 top = make_float2(out[n][0] / row_sum[0], out[n][1] / row_sum[0]);
    const float2 bottom = make_float2(out[n][2] / row_sum[1], out[n][3] / row_sum[1]);
    float2* o_top = reinterpret_cast<float2*>(&o[tc::element(head, row, col, seq, D)]);
    float2* o_bottom = reinterpret_cast<float2*>(&o[tc::element(head, row8, col, seq, D)]);
    if (row < seq)
      *o_top = top; // site: store o top
    if (row8 < seq)
      *o_bottom = bottom; // site: store o bottom
  }
#else
  __trap(); // never launched: check_kernel_arch refuses compute capabilities below 8.0
#endif
}

} // namespace

// Two blocks an SM: under 256 registers a thread, which both head sizes fit without spilling.
__global__ void __launch_bounds__(flash_attention::tensor::kThreads, 2)
    flash_attention_tensor_d64(const float4* q, const float4* k, const float4* v, float* o,
                               int seq) {
  attention_on_tensor_cores<64, kTensorKeys64>(q, k, v, o, seq);
}

__global__ void __launch_bounds__(flash_attention::tensor::kThreads, 2)
    flash_attention_tensor_d128(const float4* q, const float4* k, const float4* v, float* o,
                                int seq) {
  attention_on_tensor_cores<128, kTensorKeys128>(q, k, v, o, seq);
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

// What every variant of a head size shares: the problem, its buffers, the reference and the
// count of its arithmetic.
KernelDesc attention_desc(std::string id, int d, std::string title, std::string lesson) {
  KernelDesc k;
  k.id = std::move(id);
  k.title = std::move(title);
  k.lesson = std::move(lesson);
  k.params = {
      {"seq", "sequence length: query and key rows per head", 4096, 1, 16384, {}, true},
      {"heads", "independent heads (batch x heads), one grid row each", 8, 1, 64, {}, true}};
  k.block_rank = 1;
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
  k.test_sizes = {{{"seq", 67}, {"heads", 2}},
                  {{"seq", 130}, {"heads", 3}},
                  {{"seq", 257}, {"heads", 1}},
                  {{"seq", 1}, {"heads", 2}}};
  return k;
}

KernelDesc variant(int d, std::string title, std::string lesson) {
  KernelDesc k = attention_desc("flash_attention/d" + std::to_string(d), d, std::move(title),
                                std::move(lesson) + kSharedLesson);
  k.fp32_counter_note =
      "it counts 4 d FLOP for each query and key (the score's and the weighted value row's "
      "multiply-adds); the code also computes one expf for each (about ten FP32 operations of "
      "range reduction around an MUFU.EX2, which these counters do not see) and rescales the "
      "output row by each tile's correction (d multiplies a tile)";
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
  k.sites = sites(d);
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

// The tensor-core variants' sites. A lane's place in its warp's fragments, from its thread index.
struct Fragment {
  int warp, group, thread;
};
Fragment fragment_of(Coord t) {
  const int lane = t.x % 32;
  return {t.x / 32, tc::group(lane), tc::thread_in_group(lane)};
}

// The query row of half `half` (0: rows group, 1: group + 8) of the lane's warp.
int fragment_row(Coord b, const Fragment& f, int half) {
  return tc::query_row(b.x, f.warp, f.group + 8 * half);
}

std::int64_t tensor_tiles(const LaunchShape& s, int keys) {
  return tc::tile_count(seq_of(s), keys);
}

// The query copy's global loads (`shared` false) or shared stores: d / 8 float4s a thread of the
// block's 64 rows, once.
Site query_copy_site(std::string name, bool shared, int d, int keys) {
  return {std::move(name),
          shared ? MemorySpace::shared : MemorySpace::global,
          shared ? AccessOp::store : AccessOp::load,
          shared ? -1 : kQ,
          common::fixed_width(16),
          [d](const LaunchShape&) { return std::int64_t{tc::query_copies_per_thread(d)}; },
          bind([=](const Attention& a, Coord b, Coord t, std::int64_t it) -> Offset {
            const tc::TileFloat4 f = tc::copied(t.x, static_cast<int>(it), d);
            if (shared)
              return std::int64_t{tc::q_word(f.key, 4 * f.part, d, keys)} * 4;
            const int row = tc::clamped_row(tc::query_row(b.x, 0, f.key), a.seq);
            return tc::element(b.y, row, 4 * f.part, a.seq, d) * 4;
          })};
}

// The A operand of the scores read from the queries in shared memory: for each tile, each step
// of 8 columns, columns thread and thread + 4 of one of the lane's two rows.
Site query_read_site(std::string name, int half, int d, int keys) {
  return {std::move(name),
          MemorySpace::shared,
          AccessOp::load,
          -1,
          common::fixed_width(4),
          [d, keys](const LaunchShape& s) { return tensor_tiles(s, keys) * (d / 8) * 2; },
          bind([=](const Attention&, Coord, Coord t, std::int64_t it) -> Offset {
            const Fragment f = fragment_of(t);
            const int step = static_cast<int>(it / 2 % (d / 8));
            const int col = 8 * step + f.thread + 4 * static_cast<int>(it % 2);
            const int row = tc::kRowsPerWarp * f.warp + f.group + 8 * half;
            return std::int64_t{tc::q_word(row, col, d, keys)} * 4;
          })};
}

// A tile copy's global loads (`shared` false) or shared stores of the K (`value` false) or V
// tile: each thread's float4s of every tile.
Site tensor_copy_site(std::string name, bool shared, bool value, int d, int keys) {
  return {std::move(name),
          shared ? MemorySpace::shared : MemorySpace::global,
          shared ? AccessOp::store : AccessOp::load,
          shared ? -1 : (value ? kV : kK),
          common::fixed_width(16),
          [d, keys](const LaunchShape& s) {
            return tensor_tiles(s, keys) * tc::copies_per_thread(d, keys);
          },
          bind([=](const Attention& a, Coord b, Coord t, std::int64_t it) -> Offset {
            const int copies = tc::copies_per_thread(d, keys);
            const int tile = static_cast<int>(it / copies);
            const tc::TileFloat4 f = tc::copied(t.x, static_cast<int>(it % copies), d);
            if (shared)
              return std::int64_t{value ? tc::v_word(f.key, 4 * f.part, d, keys)
                                        : tc::k_word(f.key, 4 * f.part, d)} *
                     4;
            const int key_row = tc::copied_key_row(tile, f.key, a.seq, keys);
            return tc::element(b.y, key_row, 4 * f.part, a.seq, d) * 4;
          })};
}

// The B operands read from the K tile (for each step of 8 columns of d, each 8 keys) or the V
// tile (for each step of 8 keys, each 8 columns of d): two words a product.
Site operand_site(std::string name, bool value, int d, int keys) {
  return {
      std::move(name),
      MemorySpace::shared,
      AccessOp::load,
      -1,
      common::fixed_width(4),
      [d, keys](const LaunchShape& s) { return tensor_tiles(s, keys) * (d / 8) * (keys / 8) * 2; },
      bind([=](const Attention&, Coord, Coord t, std::int64_t it) -> Offset {
        const Fragment f = fragment_of(t);
        const int which = static_cast<int>(it % 2);
        const int inner = value ? d / 8 : keys / 8; // the loop inside the step's
        const int n = static_cast<int>(it / 2 % inner);
        const int step = static_cast<int>(it / 2 / inner % (value ? keys / 8 : d / 8));
        if (value)
          return std::int64_t{
                     tc::v_word(8 * step + f.thread + 4 * which, 8 * n + f.group, d, keys)} *
                 4;
        return std::int64_t{tc::k_word(8 * n + f.group, 8 * step + f.thread + 4 * which, d)} * 4;
      })};
}

// The weights' trip through the warp's rows of shared memory: float2 stores of the results'
// columns 2 thread and 2 thread + 1, then the A operand's reads of columns thread and thread + 4.
Site weight_store_site(std::string name, int half, int d, int keys) {
  return {std::move(name),
          MemorySpace::shared,
          AccessOp::store,
          -1,
          common::fixed_width(8),
          [keys](const LaunchShape& s) { return tensor_tiles(s, keys) * (keys / 8); },
          bind([=](const Attention&, Coord, Coord t, std::int64_t it) -> Offset {
            const Fragment f = fragment_of(t);
            const int n = static_cast<int>(it % (keys / 8));
            return std::int64_t{
                       tc::p_word(f.warp, f.group + 8 * half, 8 * n + 2 * f.thread, d, keys)} *
                   4;
          })};
}

Site weight_read_site(std::string name, int half, int d, int keys) {
  return {std::move(name),
          MemorySpace::shared,
          AccessOp::load,
          -1,
          common::fixed_width(4),
          [keys](const LaunchShape& s) { return tensor_tiles(s, keys) * (keys / 8) * 2; },
          bind([=](const Attention&, Coord, Coord t, std::int64_t it) -> Offset {
            const Fragment f = fragment_of(t);
            const int step = static_cast<int>(it / 2 % (keys / 8));
            const int key = 8 * step + f.thread + 4 * static_cast<int>(it % 2);
            return std::int64_t{tc::p_word(f.warp, f.group + 8 * half, key, d, keys)} * 4;
          })};
}

// float2 stores of the results' columns 2 thread and 2 thread + 1, for rows inside the sequence.
Site output_site(std::string name, int half, int d) {
  return {std::move(name),
          MemorySpace::global,
          AccessOp::store,
          kO,
          common::fixed_width(8),
          [d](const LaunchShape&) { return std::int64_t{d / 8}; },
          bind([d, half](const Attention& a, Coord b, Coord t, std::int64_t it) -> Offset {
            const Fragment f = fragment_of(t);
            const int row = fragment_row(b, f, half);
            if (row >= a.seq)
              return std::nullopt;
            return tc::element(b.y, row, 8 * static_cast<int>(it) + 2 * f.thread, a.seq, d) * 4;
          })};
}

// In source order: the tile copies, the scores' operands, the weights' trip through shared
// memory, the values' operands, the query copy and the output.
std::vector<Site> tensor_sites(int d, int keys) {
  return {tensor_copy_site("load k tile", false, false, d, keys),
          tensor_copy_site("store k tile", true, false, d, keys),
          tensor_copy_site("load v tile", false, true, d, keys),
          tensor_copy_site("store v tile", true, true, d, keys),
          query_copy_site("load q tile", false, d, keys),
          query_copy_site("store q tile", true, d, keys),
          query_read_site("read q top", 0, d, keys),
          query_read_site("read q bottom", 1, d, keys),
          operand_site("read k", false, d, keys),
          weight_store_site("store p top", 0, d, keys),
          weight_store_site("store p bottom", 1, d, keys),
          weight_read_site("read p top", 0, d, keys),
          weight_read_site("read p bottom", 1, d, keys),
          operand_site("read v", true, d, keys),
          output_site("store o top", 0, d),
          output_site("store o bottom", 1, d)};
}

#if WL_DEVICE_CODE
void enqueue_tensor(const DeviceLaunch& l,
                    void (*kernel)(const float4*, const float4*, const float4*, float*, int)) {
  kernel<<<to_dim3(l.shape.grid), to_dim3(l.shape.block), l.dynamic_smem, stream_of(l)>>>(
      buffer<const float4>(l, kQ), buffer<const float4>(l, kK), buffer<const float4>(l, kV),
      buffer<float>(l, kO), static_cast<int>(l.shape.param("seq")));
}
#endif

KernelDesc tensor_variant(int d, int keys) {
  const std::string size = std::to_string(d);
  KernelDesc k = attention_desc(
      "flash_attention/tensor_d" + size, d,
      "Flash attention on tensor cores (3xTF32), head size " + size,
      "The climb past the per-thread kernels: a warp takes 16 query rows and computes its scores "
      "and its output with mma.sync, the tensor cores' 16 x 8 x 8 product. Tensor cores multiply "
      "TF32 (10 mantissa bits), so each FP32 operand is split into a TF32 value and the TF32 "
      "rest, and three products (big x big, big x small, small x big) keep FP32's accuracy, as "
      "torch's own FP32 attention does on these GPUs. The block keeps its 64 query rows and "
      "shares K and V tiles of " +
          std::to_string(keys) +
          " keys in shared memory, rows padded so each operand read puts its 8 rows x 4 columns "
          "(Q, K) or 4 keys x 8 columns (V) on 32 different banks; the weights P go from the "
          "results' layout to the operand's through each warp's rows of shared memory. "
          "Occupancy panel: no local memory at either head size (a lane holds d / 2 outputs, "
          "where the per-thread kernel holds d, and the queries wait in shared memory), two "
          "blocks an SM on the H100 and H200. Shared memory panel: the operand reads are "
          "conflict-free, the float2 "
          "stores of P 2-way (each half-warp is its own transaction, and its rows g and g + 1 "
          "share four banks). Roofline: no FP32 roof is drawn over it. Timings: against "
          "flash_attention/d" +
          size + " and torch's scaled_dot_product_attention in FP32.");
  k.tensor_cores = true;
  k.min_compute_capability = 80;
  k.needs_why = "its multiply-adds run on the tensor cores";
  // Each 3xTF32 product keeps about 2^-21 of its value (the small halves' product left out, each
  // half rounded to TF32), ten times FP32's: the largest error at the default shape on the H200
  // was 1.0e-6, so 5e-6 leaves a margin of five.
  k.tolerance = {5e-6, 1e-5};
  k.fp32_counter_note =
      "its multiply-adds run on the tensor cores (HMMA instructions), which these counters do "
      "not see: they count the softmax's FP32 work and the splitting of every operand into two "
      "TF32 halves (an FADD each), a small share of the kernel's count";
  k.default_block = {tc::kThreads, 1, 1};
  k.block_presets = {{tc::kThreads, 1, 1}};
  k.allowed_blocks = "128 threads: four warps of 16 query rows each, as the fragments are laid out";
  k.check_block = [](const BlockShape& b, const Params&) -> std::string {
    if (b.x != tc::kThreads || b.y != 1 || b.z != 1)
      return "its fragments are laid out for exactly four warps of one row";
    return "";
  };
  k.grid = [](const Params& p, const BlockShape&, int) {
    return BlockShape{static_cast<int>(common::ceil_div(p.at("seq"), tc::kQueriesPerBlock)),
                      static_cast<int>(p.at("heads")), 1};
  };
  k.dynamic_smem = [d, keys](const Params&, const BlockShape&) {
    return std::int64_t{tc::shared_words(d, keys)} * 4;
  };
  k.sites = tensor_sites(d, keys);
  k.symbol = [d](const Params&) { return "wl::flash_attention_tensor_d" + std::to_string(d); };
#if WL_DEVICE_CODE
  const auto kernel = d == 64 ? flash_attention_tensor_d64 : flash_attention_tensor_d128;
  k.function = [kernel](const Params&) { return reinterpret_cast<const void*>(kernel); };
  k.launch = [kernel](const DeviceLaunch& l) { enqueue_tensor(l, kernel); };
#endif
  return k;
}

} // namespace

std::vector<KernelDesc> flash_attention_kernels() {
  return {d64(), d128(), tensor_variant(64, kTensorKeys64), tensor_variant(128, kTensorKeys128)};
}

} // namespace wl
