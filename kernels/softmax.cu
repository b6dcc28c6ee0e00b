// softmax: y[r][c] = exp(x[r][c] - max_r) / sum_c' exp(x[r][c'] - max_r), each row on its own.
//
// The lesson: softmax is memory-bound, so what matters is how the threads that share a row read
// it and how they agree on the row's max and sum. `naive` gives each thread a whole row: lanes
// read addresses a row apart, 32 sectors per request on every pass, and 8192 rows are only 8192
// threads. `block_tree` gives each row a block that reads it coalesced and combines per-thread
// results with a shared-memory tree (twice: max, then sum). `warp_shuffle` gives each row a
// warp and combines with register shuffles: no shared memory, no barriers. `online` keeps a
// running max and a rescaled running sum, reading the row twice instead of three times.
// Then the climb to the library's speed, where each row crosses DRAM once (8 bytes an element):
// `warp_registers` keeps a short row (up to 1024 columns) in one warp's registers,
// `block_shared` keeps a long row in one block's shared memory, and `block_online` does
// online's single statistics pass for a block per row of any length. These three move float4s.
// Global memory panel: 32 sectors per request for naive, 4 for the others. Shared memory panel:
// block_tree's tree sites, one wavefront per request. Occupancy: naive fills few SMs; the
// others reach full occupancy. Timings: compare with 8 bytes per element at device bandwidth;
// re-reads of a row hit L2 only while the rows in flight fit in it.
// Inputs are drawn from [80, 100), where exp(x) alone overflows a float: skipping the max
// subtraction would show up as inf and NaN in the check.

#include "common.h"
#include "families.h"
#include "index/softmax.h"
#if WL_DEVICE_CODE
#include "launch.cuh"
#include "warp_reduce.cuh"
#endif

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <utility>

namespace wl {

#if WL_DEVICE_CODE
namespace {

struct MaxOf {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct SumOf {
  __device__ float operator()(float a, float b) const { return a + b; }
};

// Combines one value per thread over the block with reduce_sum's sequential tree in sdata, and
// returns the result to every thread.
template <typename Combine>
__device__ float block_tree_reduce(float* sdata, float value, Combine combine) {
  sdata[threadIdx.x] = value; // sites: store thread max, store thread sum
  __syncthreads();
  for (int step = 0; step < reduce_sum::tree_steps(blockDim.x); ++step) {
    const reduce_sum::TreeStep t = reduce_sum::sequential_step(threadIdx.x, step, blockDim.x);
    if (t.active) {
      const float target = sdata[t.target]; // sites: tree load target (max), tree load target (sum)
      const float source = sdata[t.source]; // sites: tree load source (max), tree load source (sum)
      const float combined = combine(target, source);
      sdata[t.target] = combined; // sites: tree store target (max), tree store target (sum)
    }
    __syncthreads();
  }
  const float result = sdata[0]; // sites: load row max, load row sum
  __syncthreads(); // every thread has read sdata[0] before the next reduction overwrites it
  return result;
}

// The state of online softmax over part of a row: its max, and the sum of exp(x - max) over it.
// 8-byte aligned, so block_online moves a warp's state through shared memory in one access.
struct alignas(8) Running {
  float max;
  float sum;
};

__device__ Running add_element(Running r, float x) {
  if (x > r.max)
    return {x, r.sum * expf(r.max - x) + 1.0f}; // a new max: rescale the sum so far
  return {r.max, r.sum + expf(x - r.max)};
}

__device__ Running combine(Running a, Running b) {
  const float m = fmaxf(a.max, b.max);
  if (m == -INFINITY)
    return a; // both empty: lanes past the end of a row shorter than 32
  return {m, a.sum * expf(a.max - m) + b.sum * expf(b.max - m)};
}

__device__ Running warp_combine(Running r) {
  for (int offset = 16; offset > 0; offset /= 2)
    r = combine(
        r, {__shfl_xor_sync(kFullWarp, r.max, offset), __shfl_xor_sync(kFullWarp, r.sum, offset)});
  return r;
}

// The largest and the sum of a pack's four values; a pack with each value v replaced by
// exp(v - max).
__device__ float max_of(float4 v) { return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)); }
__device__ float sum_of(float4 v) { return (v.x + v.y) + (v.z + v.w); }
__device__ float4 exp_minus(float4 v, float max) {
  return {expf(v.x - max), expf(v.y - max), expf(v.z - max), expf(v.w - max)};
}
__device__ float4 divided(float4 v, float by) { return {v.x / by, v.y / by, v.z / by, v.w / by}; }

// Four more elements into a running state: one rescale of the sum per pack, not per element.
__device__ Running add_pack(Running r, float4 v) {
  const float m = fmaxf(r.max, max_of(v));
  return {m, r.sum * expf(r.max - m) + sum_of(exp_minus(v, m))};
}

template <typename Combine> __device__ float warp_fold(float value, Combine combine) {
  for (int offset = 16; offset > 0; offset /= 2)
    value = combine(value, __shfl_xor_sync(kFullWarp, value, offset));
  return value;
}

// Combines one value per thread over the block: shuffles within each warp, lane 0 of each puts
// the warp's result in its slot of `scratch`, then every warp reads all the slots in one request
// (lane l, slot l) and combines them by the same shuffles, so all agree bit for bit without a
// third barrier.
template <typename Combine>
__device__ float block_combine(float* scratch, float value, float identity, Combine combine) {
  value = warp_fold(value, combine);
  const int lane = softmax::lane(threadIdx.x);
  if (lane == 0)
    scratch[softmax::warp_of(threadIdx.x)] = value; // sites: store warp max, store warp sum
  __syncthreads();
  const bool has_slot = lane < softmax::rows_per_block(blockDim.x);
  value = has_slot ? scratch[lane] : identity; // sites: load warp maxes, load warp sums
  value = warp_fold(value, combine);
  __syncthreads(); // every warp has read the slots before the next combine writes them
  return value;
}

} // namespace

__global__ void softmax_naive(const float* x, float* y, std::int64_t rows, int cols) {
  const std::int64_t row = softmax::thread_row(blockIdx.x, blockDim.x, threadIdx.x);
  if (row >= rows)
    return;
  float row_max = -INFINITY;
  for (int c = 0; c < cols; ++c)
    row_max = fmaxf(row_max, x[softmax::element(row, cols, c)]); // site: load x (max pass)
  float row_sum = 0.0f;
  for (int c = 0; c < cols; ++c)
    row_sum += expf(x[softmax::element(row, cols, c)] - row_max); // site: load x (sum pass)
  for (int c = 0; c < cols; ++c) {
    const std::int64_t i = softmax::element(row, cols, c);
    const float value = x[i];               // site: load x (write pass)
    y[i] = expf(value - row_max) / row_sum; // site: store y
  }
}

// One block per row; thread t visits columns t, t + blockDim, ...
__global__ void softmax_block_tree(const float* x, float* y, int cols) {
  extern __shared__ float sdata[];
  const std::int64_t row = blockIdx.x;
  const int steps = softmax::col_steps(cols, blockDim.x);
  float thread_max = -INFINITY;
  for (int k = 0; k < steps; ++k) {
    const int c = softmax::strided_col(threadIdx.x, blockDim.x, k);
    if (c < cols)
      thread_max = fmaxf(thread_max, x[softmax::element(row, cols, c)]); // site: load x (max pass)
  }
  const float row_max = block_tree_reduce(sdata, thread_max, MaxOf{});
  float thread_sum = 0.0f;
  for (int k = 0; k < steps; ++k) {
    const int c = softmax::strided_col(threadIdx.x, blockDim.x, k);
    if (c < cols)
      thread_sum += expf(x[softmax::element(row, cols, c)] - row_max); // site: load x (sum pass)
  }
  const float row_sum = block_tree_reduce(sdata, thread_sum, SumOf{});
  for (int k = 0; k < steps; ++k) {
    const int c = softmax::strided_col(threadIdx.x, blockDim.x, k);
    if (c >= cols)
      continue;
    const std::int64_t i = softmax::element(row, cols, c);
    const float value = x[i];               // site: load x (write pass)
    y[i] = expf(value - row_max) / row_sum; // site: store y
  }
}

// One warp per row; lane l visits columns l, l + 32, ...
__global__ void softmax_warp_shuffle(const float* x, float* y, std::int64_t rows, int cols) {
  const std::int64_t row = softmax::warp_row(blockIdx.x, blockDim.x, threadIdx.x);
  if (row >= rows)
    return; // the same for all 32 lanes: the shuffles below always see whole warps
  const int lane = softmax::lane(threadIdx.x), steps = softmax::col_steps(cols, softmax::kWarp);
  float lane_max = -INFINITY;
  for (int k = 0; k < steps; ++k) {
    const int c = softmax::strided_col(lane, softmax::kWarp, k);
    if (c < cols)
      lane_max = fmaxf(lane_max, x[softmax::element(row, cols, c)]); // site: load x (max pass)
  }
  const float row_max = warp_max(lane_max);
  float lane_sum = 0.0f;
  for (int k = 0; k < steps; ++k) {
    const int c = softmax::strided_col(lane, softmax::kWarp, k);
    if (c < cols)
      lane_sum += expf(x[softmax::element(row, cols, c)] - row_max); // site: load x (sum pass)
  }
  const float row_sum = warp_sum(lane_sum);
  for (int k = 0; k < steps; ++k) {
    const int c = softmax::strided_col(lane, softmax::kWarp, k);
    if (c >= cols)
      continue;
    const std::int64_t i = softmax::element(row, cols, c);
    const float value = x[i];               // site: load x (write pass)
    y[i] = expf(value - row_max) / row_sum; // site: store y
  }
}

// One warp per row, like warp_shuffle, but the max and the sum come from a single pass.
__global__ void softmax_online(const float* x, float* y, std::int64_t rows, int cols) {
  const std::int64_t row = softmax::warp_row(blockIdx.x, blockDim.x, threadIdx.x);
  if (row >= rows)
    return; // the same for all 32 lanes
  const int lane = softmax::lane(threadIdx.x), steps = softmax::col_steps(cols, softmax::kWarp);
  Running lane_state{-INFINITY, 0.0f};
  for (int k = 0; k < steps; ++k) {
    const int c = softmax::strided_col(lane, softmax::kWarp, k);
    if (c < cols)
      lane_state =
          add_element(lane_state, x[softmax::element(row, cols, c)]); // site: load x (online pass)
  }
  const Running row_state = warp_combine(lane_state);
  for (int k = 0; k < steps; ++k) {
    const int c = softmax::strided_col(lane, softmax::kWarp, k);
    if (c >= cols)
      continue;
    const std::int64_t i = softmax::element(row, cols, c);
    const float value = x[i];                           // site: load x (write pass)
    y[i] = expf(value - row_state.max) / row_state.sum; // site: store y
  }
}

// One warp per row, the row in registers: lane l keeps packs l, l + 32, ... (kLanePacks float4s),
// so x is read once. kLanePacks is the row's packs per lane exactly, so no step is idle.
template <int kLanePacks>
__global__ void softmax_warp_registers(const float* x, float* y, std::int64_t rows, int cols) {
  const std::int64_t row = softmax::warp_row(blockIdx.x, blockDim.x, threadIdx.x);
  if (row >= rows)
    return; // the same for all 32 lanes
  const int lane = softmax::lane(threadIdx.x), packs = softmax::packs(cols);
  const float4* in = reinterpret_cast<const float4*>(&x[softmax::element(row, cols, 0)]);
  float4* out = reinterpret_cast<float4*>(&y[softmax::element(row, cols, 0)]);
  const float4 kPastTheEnd{-INFINITY, -INFINITY, -INFINITY, -INFINITY};
  float4 values[kLanePacks];
  float lane_max = -INFINITY;
#pragma unroll
  for (int k = 0; k < kLanePacks; ++k) {
    const int pack = softmax::strided_col(lane, softmax::kWarp, k);
    values[k] = pack < packs ? in[pack] : kPastTheEnd; // site: load x
    lane_max = fmaxf(lane_max, max_of(values[k]));
  }
  const float row_max = warp_max(lane_max);
  float lane_sum = 0.0f;
#pragma unroll
  for (int k = 0; k < kLanePacks; ++k) {
    values[k] = exp_minus(values[k], row_max); // exp(-inf) = 0 past the end of the row
    lane_sum += sum_of(values[k]);
  }
  const float row_sum = warp_sum(lane_sum);
#pragma unroll
  for (int k = 0; k < kLanePacks; ++k) {
    const int pack = softmax::strided_col(lane, softmax::kWarp, k);
    if (pack < packs)
      out[pack] = divided(values[k], row_sum); // site: store y
  }
}

// One block per row, the row in shared memory: read from x once, then exp'd in place, then
// divided on its way out. Each thread touches only its own packs of the row, so only the
// combines need barriers.
__global__ void softmax_block_shared(const float* x, float* y, int cols) {
  extern __shared__ float4 shared_words[];
  float* scratch = reinterpret_cast<float*>(shared_words);
  float4* row_packs = shared_words + softmax::kScratchWords / softmax::kPack;
  const float4* in = reinterpret_cast<const float4*>(&x[softmax::element(blockIdx.x, cols, 0)]);
  float4* out = reinterpret_cast<float4*>(&y[softmax::element(blockIdx.x, cols, 0)]);
  const int packs = softmax::packs(cols), steps = softmax::pack_steps(cols, blockDim.x);
  float thread_max = -INFINITY;
#pragma unroll 4
  for (int k = 0; k < steps; ++k) {
    const int pack = softmax::strided_col(threadIdx.x, blockDim.x, k);
    if (pack < packs) {
      const float4 v = in[pack]; // site: load x
      row_packs[pack] = v;       // site: store row
      thread_max = fmaxf(thread_max, max_of(v));
    }
  }
  const float row_max = block_combine(scratch, thread_max, -INFINITY, MaxOf{});
  float thread_sum = 0.0f;
  for (int k = 0; k < steps; ++k) {
    const int pack = softmax::strided_col(threadIdx.x, blockDim.x, k);
    if (pack < packs) {
      const float4 e = exp_minus(row_packs[pack], row_max); // site: load row (exp pass)
      row_packs[pack] = e;                                  // site: store exp
      thread_sum += sum_of(e);
    }
  }
  const float row_sum = block_combine(scratch, thread_sum, 0.0f, SumOf{});
  for (int k = 0; k < steps; ++k) {
    const int pack = softmax::strided_col(threadIdx.x, blockDim.x, k);
    if (pack < packs) {
      const float4 e = row_packs[pack]; // site: load exp (write pass)
      out[pack] = divided(e, row_sum);  // site: store y
    }
  }
}

// One block per row, online: each thread keeps a running max and sum over its packs, one read
// of x; the warps' states are combined with the same rescaling; then a second read writes y.
__global__ void softmax_block_online(const float* x, float* y, int cols) {
  __shared__ Running warp_states[softmax::kScratchWords];
  const float4* in = reinterpret_cast<const float4*>(&x[softmax::element(blockIdx.x, cols, 0)]);
  float4* out = reinterpret_cast<float4*>(&y[softmax::element(blockIdx.x, cols, 0)]);
  const int packs = softmax::packs(cols), steps = softmax::pack_steps(cols, blockDim.x);
  const Running nothing_yet{-INFINITY, 0.0f};
  Running state = nothing_yet;
#pragma unroll 4
  for (int k = 0; k < steps; ++k) {
    const int pack = softmax::strided_col(threadIdx.x, blockDim.x, k);
    if (pack < packs)
      state = add_pack(state, in[pack]); // site: load x (online pass)
  }
  state = warp_combine(state);
  if (softmax::lane(threadIdx.x) == 0)
    warp_states[softmax::warp_of(threadIdx.x)] = state; // site: store warp state
  __syncthreads();
  const int lane = softmax::lane(threadIdx.x);
  const bool has_slot = lane < softmax::rows_per_block(blockDim.x);
  const Running slot = has_slot ? warp_states[lane] : nothing_yet; // site: load warp states
  const Running row = warp_combine(slot);
#pragma unroll 4
  for (int k = 0; k < steps; ++k) {
    const int pack = softmax::strided_col(threadIdx.x, blockDim.x, k);
    if (pack < packs) {
      const float4 v = in[pack];                           // site: load x (write pass)
      out[pack] = divided(exp_minus(v, row.max), row.sum); // site: store y
    }
  }
}
#endif

namespace {

constexpr int kX = 0, kY = 1;
using Offset = std::optional<std::int64_t>;
using OffsetFn = std::function<LaneOffsets(const LaunchShape&)>;
using IterationsFn = std::function<std::int64_t(const LaunchShape&)>;

// Above this many elements the reference checks a sample of whole rows.
constexpr std::int64_t kFullReferenceLimit = std::int64_t{1} << 22;
constexpr std::int64_t kEdgeRows = 4, kSpreadRows = 56;

std::int64_t elements(const Params& p) { return p.at("rows") * p.at("cols"); }

std::vector<BufferSpec> buffers() {
  return {{"x", ElementType::f32, BufferRole::input, elements},
          {"y", ElementType::f32, BufferRole::output, elements}};
}

// Logits uniform in [80, 100): exp(x) overflows a float above 88.7, so only a kernel that
// subtracts the row max produces finite outputs.
void init(HostBuffers& buffers, const Params&, std::uint64_t seed) {
  common::fill_hashed(buffers[kX].f32(), buffers[kX].size(), seed, 80.0f, 100.0f);
}

void reference_row(const float* x, float* y, std::int64_t cols) {
  double row_max = -INFINITY, row_sum = 0;
  for (std::int64_t c = 0; c < cols; ++c)
    row_max = std::max(row_max, double{x[c]});
  for (std::int64_t c = 0; c < cols; ++c)
    row_sum += std::exp(x[c] - row_max);
  for (std::int64_t c = 0; c < cols; ++c)
    y[c] = static_cast<float>(std::exp(x[c] - row_max) / row_sum);
}

// The first and last kEdgeRows rows and kSpreadRows spread evenly between them.
std::vector<std::int64_t> sampled_rows(std::int64_t rows) {
  std::vector<std::int64_t> picked;
  for (std::int64_t r = 0; r < kEdgeRows; ++r)
    picked.push_back(r);
  for (std::int64_t i = 1; i <= kSpreadRows; ++i)
    picked.push_back(i * rows / (kSpreadRows + 1));
  for (std::int64_t r = rows - kEdgeRows; r < rows; ++r)
    picked.push_back(r);
  std::sort(picked.begin(), picked.end());
  picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
  return picked;
}

Expected reference(const HostBuffers& in, const Params& p) {
  Expected e{common::outputs_like(in, buffers()), {}, ""};
  const std::int64_t rows = p.at("rows"), cols = p.at("cols");
  const float* x = in[kX].f32();
  float* y = e.values[kY].f32();
  const bool sample = elements(p) > kFullReferenceLimit && rows > 2 * kEdgeRows + kSpreadRows;
  if (!sample) {
    for (std::int64_t r = 0; r < rows; ++r)
      reference_row(x + r * cols, y + r * cols, cols);
    return e;
  }
  const std::vector<std::int64_t> picked = sampled_rows(rows);
  for (std::int64_t r : picked) {
    reference_row(x + r * cols, y + r * cols, cols);
    for (std::int64_t c = 0; c < cols; ++c)
      e.checked.push_back(r * cols + c);
  }
  e.note = "checked " + std::to_string(picked.size()) + " whole rows of " + std::to_string(rows) +
           " (the first and last 4, 56 spread between): a full double reference costs two exps per "
           "element, "
           "over a second at 8192 x 8192";
  return e;
}

std::string check_size(const Params& p) {
  return elements(p) <= (std::int64_t{1} << 30)
             ? ""
             : "rows x cols must be at most 2^30 elements (4 GiB per buffer)";
}

// What the row sites' lanes read from the launch, read once.
struct Rows {
  std::int64_t rows = 0;
  int cols = 0, block_x = 0;
};
Rows rows_of(const LaunchShape& s) {
  return {s.param("rows"), static_cast<int>(s.param("cols")), s.block.x};
}

Site global_site(std::string name, AccessOp op, OffsetFn offset, IterationsFn iterations) {
  return {std::move(name),
          MemorySpace::global,
          op,
          op == AccessOp::load ? kX : kY,
          common::fixed_width(4),
          std::move(iterations),
          std::move(offset)};
}

// The passes over the row, in source order: a load of x per name, then the store of y that goes
// with the last load.
std::vector<Site> row_sites(const std::vector<std::string>& load_names, const OffsetFn& offset,
                            const IterationsFn& iterations) {
  std::vector<Site> sites;
  for (const std::string& name : load_names)
    sites.push_back(global_site(name, AccessOp::load, offset, iterations));
  sites.push_back(global_site("store y", AccessOp::store, offset, iterations));
  return sites;
}

// block_tree_reduce's shared sites for one reduction ("max" or "sum"), in source order.
std::vector<Site> tree_sites(const std::string& what) {
  const auto steps = [](const LaunchShape& s) {
    return std::int64_t{reduce_sum::tree_steps(s.block.x)};
  };
  const auto word = [](bool source) {
    return common::bound_offsets(
        common::block_width, [source](int block_x, Coord, Coord t, std::int64_t step) -> Offset {
          const reduce_sum::TreeStep ts =
              reduce_sum::sequential_step(t.x, static_cast<int>(step), block_x);
          if (!ts.active)
            return std::nullopt;
          return std::int64_t{source ? ts.source : ts.target} * 4;
        });
  };
  const auto shared = [](std::string name, AccessOp op, IterationsFn iterations, OffsetFn offset) {
    return Site{std::move(name),       MemorySpace::shared, op, -1, common::fixed_width(4),
                std::move(iterations), std::move(offset)};
  };
  return {
      shared("store thread " + what, AccessOp::store, common::single_iteration(),
             common::fixed_offsets([](Coord, Coord t, std::int64_t) { return Offset(t.x * 4); })),
      shared("tree load target (" + what + ")", AccessOp::load, steps, word(false)),
      shared("tree load source (" + what + ")", AccessOp::load, steps, word(true)),
      shared("tree store target (" + what + ")", AccessOp::store, steps, word(false)),
      shared("load row " + what, AccessOp::load, common::single_iteration(),
             common::fixed_offsets([](Coord, Coord, std::int64_t) { return Offset(0); }))};
}

using RowsKernel = void (*)(const float*, float*, std::int64_t, int);

// What the FP32 counters see beside the 5 FLOP an element counted, for a variant that computes
// exp `exps` ("twice an element").
std::string counter_note(const std::string& exps) {
  return "it counts 5 FLOP an element (the max, a subtraction, the exp, a sum and a division); in "
         "the compiled code each expf is about ten FP32 operations (range reduction by FFMAs and "
         "FMULs around an MUFU.EX2, which these counters do not see) and each division about eight "
         "(a reciprocal refined by FFMAs), while the maxima are FMNMX, not counted. This variant "
         "computes exp " +
         exps;
}

KernelDesc base(std::string variant, std::string title, std::string lesson) {
  KernelDesc k;
  k.fp32_counter_note = counter_note("twice an element (for the sum, then again for the output)");
  k.id = "softmax/" + variant;
  k.title = std::move(title);
  k.lesson = std::move(lesson);
  k.params = {
      {"rows", "rows of the matrix, each normalised on its own", 8192, 1, 1 << 24, {}, true},
      {"cols", "elements per row", 8192, 1, 1 << 20, {}, true}};
  k.check_params = check_size;
  k.block_rank = 1;
  k.default_block = {256, 1, 1};
  k.buffers = buffers();
  k.init = init;
  k.reference = reference;
  // float expf and float sums against a double reference, relative only: every output is at
  // least e^-20 / cols, far from zero. With 32 or more threads per row each adds at most 2^15
  // terms before the tree, which keeps the sum within about 3e-5 at 2^20 columns.
  k.tolerance = {0.0, 1e-4};
  k.bytes_moved = [](const Params& p) { return 8.0 * static_cast<double>(elements(p)); };
  // Per element: a max, a subtract, an exp, an add and a divide (exp counted as one).
  k.flops = [](const Params& p) { return 5.0 * static_cast<double>(elements(p)); };
  k.test_sizes = {{{"rows", 1}, {"cols", 1}},
                  {{"rows", 5}, {"cols", 7}},
                  {{"rows", 37}, {"cols", 1000}},
                  {{"rows", 130}, {"cols", 2049}},
                  {{"rows", 1000}, {"cols", 33}}};
  k.symbol = [variant](const Params&) { return "wl::softmax_" + variant; };
  return k;
}

// Launch and pointer for the kernels that take (x, y, rows, cols).
void set_rows_kernel([[maybe_unused]] KernelDesc& k, [[maybe_unused]] RowsKernel kernel) {
#if WL_DEVICE_CODE
  k.function = [kernel](const Params&) { return reinterpret_cast<const void*>(kernel); };
  k.launch = [kernel](const DeviceLaunch& l) {
    kernel<<<to_dim3(l.shape.grid), to_dim3(l.shape.block), 0, stream_of(l)>>>(
        buffer<const float>(l, kX), buffer<float>(l, kY), l.shape.param("rows"),
        static_cast<int>(l.shape.param("cols")));
  };
#endif
}

KernelDesc naive() {
  KernelDesc k = base(
      "naive", "Softmax, one thread per row",
      "Each thread normalises a whole row in three passes (max, sum of exp, write). At any "
      "moment the 32 lanes of a warp read the same column of 32 different rows, cols * 4 bytes "
      "apart: every load and store is 32 sectors per request where 4 would do. And 8192 "
      "rows are only 8192 threads, far too few to keep an H100's 132 SMs busy. Global memory "
      "panel: 32 sectors per request on all four sites. Occupancy panel: rows / blockDim blocks, "
      "most SMs idle. Timings: far below the bandwidth the other variants reach.");
  k.block_presets = {{64, 1, 1}, {128, 1, 1}, {256, 1, 1}, {512, 1, 1}, {1024, 1, 1}};
  k.allowed_blocks = "any 1D block of 1 to 1024 threads";
  k.check_block = [](const BlockShape& b, const Params&) { return common::check_1d_block(b); };
  // One thread adds a whole row in float: at 2^20 columns its sum drifts by up to ~1e-3
  // (about 1e-5 at the default 8192).
  k.tolerance = {0.0, 2e-3};
  k.grid = [](const Params& p, const BlockShape& b, int) {
    return common::grid_1d(p.at("rows"), b);
  };
  const OffsetFn offset =
      common::bound_offsets(rows_of, [](const Rows& s, Coord b, Coord t, std::int64_t c) -> Offset {
        const std::int64_t row = softmax::thread_row(b.x, s.block_x, t.x);
        if (row >= s.rows)
          return std::nullopt;
        return softmax::element(row, s.cols, static_cast<int>(c)) * 4;
      });
  k.sites = row_sites({"load x (max pass)", "load x (sum pass)", "load x (write pass)"}, offset,
                      [](const LaunchShape& s) { return s.param("cols"); });
  set_rows_kernel(k, WL_KERNEL(softmax_naive));
  return k;
}

KernelDesc block_tree() {
  KernelDesc k = base(
      "block_tree", "Softmax, one block per row, shared-memory tree",
      "A block per row: thread t reads columns t, t + blockDim, ..., so each warp load covers "
      "128 consecutive bytes (4 sectors per request). The per-thread max and sum are combined "
      "by a sequential-addressing tree in shared memory, log2(blockDim) steps with a barrier "
      "each, once for the max and once for the sum. Global memory panel: 4 sectors per request. "
      "Shared memory panel: the tree sites at one wavefront per request (no bank conflicts), the "
      "row max and sum read back as broadcasts. Timings: the barriers cost most with short rows.");
  k.block_presets = {{32, 1, 1}, {64, 1, 1}, {128, 1, 1}, {256, 1, 1}, {512, 1, 1}, {1024, 1, 1}};
  k.allowed_blocks = "a 1D power-of-two block of 32 to 1024 threads";
  k.check_block = [](const BlockShape& b, const Params&) {
    return common::check_power_of_two_block(b);
  };
  k.grid = [](const Params& p, const BlockShape&, int) {
    return BlockShape{static_cast<int>(p.at("rows")), 1, 1};
  };
  k.dynamic_smem = [](const Params&, const BlockShape& b) { return std::int64_t{b.x} * 4; };
  const OffsetFn offset = common::bound_offsets(
      rows_of, [](const Rows& s, Coord b, Coord t, std::int64_t step) -> Offset {
        const int c = softmax::strided_col(t.x, s.block_x, static_cast<int>(step));
        if (c >= s.cols)
          return std::nullopt;
        return softmax::element(b.x, s.cols, c) * 4;
      });
  const IterationsFn steps = [](const LaunchShape& s) {
    return std::int64_t{softmax::col_steps(static_cast<int>(s.param("cols")), s.block.x)};
  };
  k.sites = {global_site("load x (max pass)", AccessOp::load, offset, steps)};
  for (Site& s : tree_sites("max"))
    k.sites.push_back(std::move(s));
  k.sites.push_back(global_site("load x (sum pass)", AccessOp::load, offset, steps));
  for (Site& s : tree_sites("sum"))
    k.sites.push_back(std::move(s));
  for (Site& s : row_sites({"load x (write pass)"}, offset, steps))
    k.sites.push_back(std::move(s));
#if WL_DEVICE_CODE
  k.function = [](const Params&) { return reinterpret_cast<const void*>(softmax_block_tree); };
  k.launch = [](const DeviceLaunch& l) {
    softmax_block_tree<<<to_dim3(l.shape.grid), to_dim3(l.shape.block), l.dynamic_smem,
                         stream_of(l)>>>(buffer<const float>(l, kX), buffer<float>(l, kY),
                                         static_cast<int>(l.shape.param("cols")));
  };
#endif
  return k;
}

// The warp-per-row variants: grid, blocks and the lane offsets they share.
KernelDesc warp_per_row(std::string variant, std::string title, std::string lesson,
                        const std::vector<std::string>& load_names, RowsKernel kernel) {
  KernelDesc k = base(std::move(variant), std::move(title), std::move(lesson));
  k.block_presets = {{32, 1, 1}, {64, 1, 1}, {128, 1, 1}, {256, 1, 1}, {512, 1, 1}, {1024, 1, 1}};
  k.allowed_blocks = "a 1D block of 32 to 1024 threads, a multiple of 32 (one row per warp)";
  k.check_block = [](const BlockShape& b, const Params&) {
    return common::check_whole_warps(b, "each warp handles one whole row");
  };
  k.grid = [](const Params& p, const BlockShape& b, int) {
    return BlockShape{
        static_cast<int>(common::ceil_div(p.at("rows"), softmax::rows_per_block(b.x))), 1, 1};
  };
  const OffsetFn offset = common::bound_offsets(
      rows_of, [](const Rows& s, Coord b, Coord t, std::int64_t step) -> Offset {
        const std::int64_t row = softmax::warp_row(b.x, s.block_x, t.x);
        const int c =
            softmax::strided_col(softmax::lane(t.x), softmax::kWarp, static_cast<int>(step));
        if (row >= s.rows || c >= s.cols)
          return std::nullopt;
        return softmax::element(row, s.cols, c) * 4;
      });
  k.sites = row_sites(load_names, offset, [](const LaunchShape& s) {
    return std::int64_t{softmax::col_steps(static_cast<int>(s.param("cols")), softmax::kWarp)};
  });
  set_rows_kernel(k, kernel);
  return k;
}

KernelDesc warp_shuffle() {
  return warp_per_row(
      "warp_shuffle", "Softmax, one warp per row, shuffle reductions",
      "A warp per row: lane l reads columns l, l + 32, ... (4 sectors per request), and the "
      "row max and sum come from five __shfl_xor_sync steps each, register to register. No "
      "shared memory and no barriers: a warp never waits for another. Global memory panel: 4 "
      "sectors per request on all four sites. Shared memory panel: empty. Occupancy: one row "
      "per warp, blockDim / 32 rows per block. Timings: each row is read three times, and the "
      "later reads hit L2 only while the rows in flight fit: a warp per row at full occupancy "
      "keeps about 8,400 rows in flight on an H100, some 270 MB at 8192 columns against a 50 MB "
      "L2, where block_tree with 256 threads keeps about 1,000 (34 MB).",
      {"load x (max pass)", "load x (sum pass)", "load x (write pass)"},
      WL_KERNEL(softmax_warp_shuffle));
}

KernelDesc online() {
  return warp_per_row(
      "online", "Softmax, one warp per row, online max and sum",
      "Like warp_shuffle, but the max and the sum come from one pass: each lane keeps a running "
      "max m and a running sum of exp(x - m), and when a larger x arrives it rescales the sum by "
      "exp(m_old - m_new). Lanes are merged with the same rescaling, through shuffles. Then a "
      "second pass writes the outputs. Global memory panel: two loads of x per element instead "
      "of three, all at 4 sectors per request. Timings: one read of the row saved, which shows "
      "most when the rows in flight overflow L2 (see warp_shuffle).",
      {"load x (online pass)", "load x (write pass)"}, WL_KERNEL(softmax_online));
}

// The float4 variants: whole packs of four columns, so cols is a multiple of 4.
std::string check_packs(const Params& p) {
  if (const std::string size = check_size(p); !size.empty())
    return size;
  if (p.at("cols") % softmax::kPack != 0)
    return "rows are moved as 16-byte float4s, so cols is a multiple of 4 (cols=" +
           std::to_string(p.at("cols")) + "); naive, block_tree, warp_shuffle and online take any";
  return "";
}

const std::vector<Params> kPackTestSizes = {{{"rows", 1}, {"cols", 4}},
                                            {{"rows", 5}, {"cols", 8}},
                                            {{"rows", 37}, {"cols", 1000}},
                                            {{"rows", 9}, {"cols", 516}},
                                            {{"rows", 1000}, {"cols", 36}}};

Site packed_site(std::string name, MemorySpace space, AccessOp op, int width, OffsetFn offset,
                 IterationsFn iterations) {
  return {std::move(name),
          space,
          op,
          space == MemorySpace::shared ? -1 : (op == AccessOp::load ? kX : kY),
          common::fixed_width(width),
          std::move(iterations),
          std::move(offset)};
}

// A pack's byte offset in x or y (`in_row` false) or in block_shared's row (`in_row` true), from
// which row and pack a lane moves at a step; nullopt past the end.
using PackOf = std::function<std::pair<std::int64_t, int>(const Rows&, Coord, Coord, std::int64_t)>;
OffsetFn pack_offset(PackOf pack_of, bool in_row) {
  return common::bound_offsets(
      rows_of, [pack_of, in_row](const Rows& s, Coord b, Coord t, std::int64_t step) -> Offset {
        const auto [row, pack] = pack_of(s, b, t, step);
        if (row >= s.rows || pack >= softmax::packs(s.cols))
          return std::nullopt;
        return in_row ? softmax::shared_row_byte(pack)
                      : softmax::element(row, s.cols, softmax::pack_col(pack)) * 4;
      });
}

// The cross-warp combine's shared sites: lane 0 of each warp stores `width` bytes at its warp's
// slot, then lane l of every warp reads slot l.
Site warp_slot_store(std::string name, int width) {
  return packed_site(std::move(name), MemorySpace::shared, AccessOp::store, width,
                     common::fixed_offsets([width](Coord, Coord t, std::int64_t) -> Offset {
                       if (softmax::lane(t.x) != 0)
                         return std::nullopt;
                       return std::int64_t{softmax::warp_of(t.x)} * width;
                     }),
                     common::single_iteration());
}
Site warp_slots_load(std::string name, int width) {
  return packed_site(
      std::move(name), MemorySpace::shared, AccessOp::load, width,
      common::bound_offsets(common::block_width,
                            [width](int block_x, Coord, Coord t, std::int64_t) -> Offset {
                              const int lane = softmax::lane(t.x);
                              if (lane >= softmax::rows_per_block(block_x))
                                return std::nullopt;
                              return std::int64_t{lane} * width;
                            }),
      common::single_iteration());
}

KernelDesc packed(std::string variant, std::string title, std::string lesson) {
  KernelDesc k = base(std::move(variant), std::move(title), std::move(lesson));
  k.check_params = check_packs;
  k.test_sizes = kPackTestSizes;
  k.block_presets = {{32, 1, 1}, {64, 1, 1}, {128, 1, 1}, {256, 1, 1}, {512, 1, 1}, {1024, 1, 1}};
  k.check_block = [](const BlockShape& b, const Params&) {
    return common::check_whole_warps(b, "whole warps combine the row's max and sum by shuffles");
  };
  k.allowed_blocks = "a 1D block of 32 to 1024 threads, a multiple of 32";
  return k;
}

// One block per row, the packs strided over the block.
KernelDesc block_per_row(std::string variant, std::string title, std::string lesson) {
  KernelDesc k = packed(std::move(variant), std::move(title), std::move(lesson));
  k.grid = [](const Params& p, const BlockShape&, int) {
    return BlockShape{static_cast<int>(p.at("rows")), 1, 1};
  };
  return k;
}

OffsetFn block_pack_offset(bool in_row) {
  return pack_offset(
      [](const Rows& s, Coord b, Coord t, std::int64_t step) {
        return std::pair<std::int64_t, int>{
            b.x, softmax::strided_col(t.x, s.block_x, static_cast<int>(step))};
      },
      in_row);
}

IterationsFn block_pack_steps() {
  return [](const LaunchShape& s) {
    return std::int64_t{softmax::pack_steps(static_cast<int>(s.param("cols")), s.block.x)};
  };
}

using PackedRowsKernel = void (*)(const float*, float*, int);

void set_block_kernel([[maybe_unused]] KernelDesc& k, [[maybe_unused]] PackedRowsKernel kernel) {
#if WL_DEVICE_CODE
  k.function = [kernel](const Params&) { return reinterpret_cast<const void*>(kernel); };
  k.launch = [kernel](const DeviceLaunch& l) {
    kernel<<<to_dim3(l.shape.grid), to_dim3(l.shape.block), l.dynamic_smem, stream_of(l)>>>(
        buffer<const float>(l, kX), buffer<float>(l, kY), static_cast<int>(l.shape.param("cols")));
  };
#endif
}

#if WL_DEVICE_CODE
// warp_registers's instantiations, by packs per lane (1 to kMaxLanePacks).
template <int... kLanePacks>
constexpr std::array<RowsKernel, sizeof...(kLanePacks)>
register_kernels(std::integer_sequence<int, kLanePacks...>) {
  return {&softmax_warp_registers<kLanePacks + 1>...};
}
constexpr auto kRegisterKernels =
    register_kernels(std::make_integer_sequence<int, softmax::kMaxLanePacks>{});
#endif

int lane_packs(const Params& p) {
  return std::clamp(softmax::pack_steps(static_cast<int>(p.at("cols")), softmax::kWarp), 1,
                    softmax::kMaxLanePacks);
}

KernelDesc warp_registers() {
  KernelDesc k = packed(
      "warp_registers", "Softmax, one warp per row, the row in registers",
      "A warp per row for short rows (at most 1,024 columns): each lane loads its packs of four "
      "columns once, as float4s, and keeps them in registers; the max, the exps, the sum and "
      "the division all work on those registers, so x is read once where warp_shuffle reads it "
      "three times. 8 bytes per element cross DRAM, the fewest softmax can. Global memory panel: "
      "two sites, load x and store y, each 16 bytes a lane, 4 sectors per 8 lanes. Shared "
      "memory panel: empty. Occupancy panel: the registers grow with the row (a float4 per 128 "
      "columns per lane). Timings: close to the copy bandwidth at 32768 x 1024.");
  k.check_params = [](const Params& p) -> std::string {
    if (const std::string packs = check_packs(p); !packs.empty())
      return packs;
    if (p.at("cols") > softmax::kMaxRegisterCols)
      return "warp_registers keeps a row in one warp's registers, 32 floats a lane, so cols is at "
             "most 1024 (cols=" +
             std::to_string(p.at("cols")) + "); for longer rows: block_shared or block_online";
    return "";
  };
  // Its own shape, short rows: the family's 8192 x 8192 is over its 1024 columns.
  k.params[0].default_value = 32768;
  k.params[1].default_value = 1024;
  k.test_sizes.push_back({{"rows", 3}, {"cols", 1024}});
  k.grid = [](const Params& p, const BlockShape& b, int) {
    return BlockShape{
        static_cast<int>(common::ceil_div(p.at("rows"), softmax::rows_per_block(b.x))), 1, 1};
  };
  const OffsetFn offset = pack_offset(
      [](const Rows& s, Coord b, Coord t, std::int64_t step) {
        return std::pair<std::int64_t, int>{
            softmax::warp_row(b.x, s.block_x, t.x),
            softmax::strided_col(softmax::lane(t.x), softmax::kWarp, static_cast<int>(step))};
      },
      false);
  const IterationsFn steps = [](const LaunchShape& s) {
    return std::int64_t{softmax::pack_steps(static_cast<int>(s.param("cols")), softmax::kWarp)};
  };
  k.sites = {packed_site("load x", MemorySpace::global, AccessOp::load, 16, offset, steps),
             packed_site("store y", MemorySpace::global, AccessOp::store, 16, offset, steps)};
  k.symbol = [](const Params& p) {
    return "wl::softmax_warp_registers<" + std::to_string(lane_packs(p)) + ">";
  };
#if WL_DEVICE_CODE
  k.function = [](const Params& p) {
    return reinterpret_cast<const void*>(kRegisterKernels[lane_packs(p) - 1]);
  };
  k.launch = [](const DeviceLaunch& l) {
    kRegisterKernels[lane_packs(l.shape.params) -
                     1]<<<to_dim3(l.shape.grid), to_dim3(l.shape.block), 0, stream_of(l)>>>(
        buffer<const float>(l, kX), buffer<float>(l, kY), l.shape.param("rows"),
        static_cast<int>(l.shape.param("cols")));
  };
#endif
  k.fp32_counter_note = counter_note("once an element (the row stays in registers)");
  return k;
}

KernelDesc block_shared() {
  KernelDesc k = block_per_row(
      "block_shared", "Softmax, one block per row, the row in shared memory",
      "A block per row for long rows: the threads load the row once, as float4s, into shared "
      "memory, then exp it in place and divide it on its way out, so x is read once however "
      "long the row. The max and the sum are combined by shuffles within each warp and one "
      "shared slot per warp across them: two barriers each, where block_tree's tree needs one "
      "per step. Global memory panel: load x and store y, 4 sectors per 8 lanes. Shared memory "
      "panel: the row's sites at 4 wavefronts per request (16 bytes a lane: the fewest), the "
      "warp slots' reads one broadcast wavefront. Occupancy panel: shared memory limits it, "
      "cols * 4 bytes a block (128 KB at 32768 columns: one block per SM). Timings: against "
      "block_tree, two reads of x saved.");
  k.check_params = [](const Params& p) -> std::string {
    if (const std::string packs = check_packs(p); !packs.empty())
      return packs;
    constexpr std::int64_t kLargestOptIn = 232448; // 227 KB, sm_90 and sm_100
    if (softmax::shared_row_bytes(static_cast<int>(p.at("cols"))) > kLargestOptIn)
      return "block_shared keeps a row in one block's shared memory, at most 227 KB on any GPU, so "
             "cols is at most 58080 (cols=" +
             std::to_string(p.at("cols")) + "); for longer rows: block_online";
    return "";
  };
  k.default_block = {512, 1, 1};
  k.test_sizes.push_back({{"rows", 3}, {"cols", 12000}});
  k.dynamic_smem = [](const Params& p, const BlockShape&) {
    return softmax::shared_row_bytes(static_cast<int>(p.at("cols")));
  };
  const OffsetFn global = block_pack_offset(false), row = block_pack_offset(true);
  const IterationsFn steps = block_pack_steps();
  const auto row_site = [&](std::string name, AccessOp op) {
    return packed_site(std::move(name), MemorySpace::shared, op, 16, row, steps);
  };
  k.sites = {packed_site("load x", MemorySpace::global, AccessOp::load, 16, global, steps),
             row_site("store row", AccessOp::store),
             warp_slot_store("store warp max", 4),
             warp_slots_load("load warp maxes", 4),
             row_site("load row (exp pass)", AccessOp::load),
             row_site("store exp", AccessOp::store),
             warp_slot_store("store warp sum", 4),
             warp_slots_load("load warp sums", 4),
             row_site("load exp (write pass)", AccessOp::load),
             packed_site("store y", MemorySpace::global, AccessOp::store, 16, global, steps)};
  set_block_kernel(k, WL_KERNEL(softmax_block_shared));
  k.fp32_counter_note = counter_note("once an element (stored in shared memory, then divided)");
  return k;
}

KernelDesc block_online() {
  KernelDesc k = block_per_row(
      "block_online", "Softmax, one block per row, online max and sum",
      "A block per row, any length, as online does for a warp: each thread keeps a running max "
      "and a rescaled running sum over its float4s (one rescale per four columns), the warps "
      "merge theirs by shuffles, and one shared slot per warp merges the warps. Then a second "
      "read of x writes y. No row in shared memory, so rows of any length and no shared-memory "
      "limit on occupancy; the second read comes from L2 while the rows in flight fit in it. "
      "Global memory panel: two loads of x and a store of y, 4 sectors per 8 lanes. Shared "
      "memory panel: the warp states, 8 bytes each. Timings: against block_shared, the second "
      "read of x (from L2) against shared memory's limit on occupancy.");
  k.check_params = check_packs;
  k.default_block = {512, 1, 1};
  k.test_sizes.push_back({{"rows", 3}, {"cols", 12000}});
  const OffsetFn global = block_pack_offset(false);
  const IterationsFn steps = block_pack_steps();
  k.sites = {
      packed_site("load x (online pass)", MemorySpace::global, AccessOp::load, 16, global, steps),
      warp_slot_store("store warp state", 8), warp_slots_load("load warp states", 8),
      packed_site("load x (write pass)", MemorySpace::global, AccessOp::load, 16, global, steps),
      packed_site("store y", MemorySpace::global, AccessOp::store, 16, global, steps)};
  set_block_kernel(k, WL_KERNEL(softmax_block_online));
  k.fp32_counter_note = counter_note(
      "once an element and once a pack of four (the rescale) in the online pass, twice a lane at "
      "each shuffle step of the combines, and once an element again in the write pass");
  return k;
}

} // namespace

std::vector<KernelDesc> softmax_kernels() {
  return {naive(),          block_tree(),   warp_shuffle(), online(),
          warp_registers(), block_shared(), block_online()};
}

} // namespace wl
