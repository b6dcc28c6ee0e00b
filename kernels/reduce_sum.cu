// reduce_sum: each block adds `chunk` consecutive floats of x and writes one partial sum.
//
// The lesson: every variant first lets each thread add its share of the chunk in a register
// (coalesced loads), then combines blockDim per-thread sums inside the block; that combining
// step is what differs. `interleaved` keeps the threads with tid % (2s) == 0 working, scattered
// over every warp: warps diverge and keep issuing shared instructions for a handful of lanes, yet
// those lanes still fall on distinct banks, so there are no bank conflicts. `strided_index` moves
// the work onto the first threads at word 2*s*tid: fewer instructions, but 2-, 4-, 8-way bank
// conflicts. `sequential` works on the first s threads at consecutive words: fewest
// instructions, no conflicts. `warp_shuffle` combines in registers and touches shared memory
// only once per warp. `vectorized` keeps that combine and rebuilds the register loop for
// bandwidth: float4 loads, eight in flight, 8192-element chunks. Global memory panel: "load x"
// is 4 sectors per request (16 for vectorized's float4s), "store partial" one lane per block.
// Shared memory panel: requests and wavefronts of the tree sites, the bank grid of each step.
// Occupancy: blockDim floats of shared memory, far from any limit.
// Timings: the gaps shrink as `chunk` grows, since the tree is paid once per chunk.

#include "common.h"
#include "families.h"
#include "index/reduce_sum.h"
#if WL_DEVICE_CODE
#include "launch.cuh"
#include "warp_reduce.cuh"
#endif

#include <bit>

namespace wl {

#if WL_DEVICE_CODE
namespace {

// The thread's share of the block's chunk, added in a register.
__device__ float thread_sum(const float* x, std::int64_t n, int chunk) {
  float sum = 0.0f;
  for (int k = 0; k < reduce_sum::loads_per_thread(chunk, blockDim.x); ++k) {
    const std::int64_t i =
        reduce_sum::chunk_element(blockIdx.x, chunk, blockDim.x, threadIdx.x, k, n);
    if (i >= 0)
      sum += x[i]; // site: load x
  }
  return sum;
}

} // namespace

// The three tree kernels differ only in which thread adds which pair in each step.
__global__ void reduce_sum_interleaved(const float* x, float* partials, std::int64_t n, int chunk) {
  extern __shared__ float sdata[];
  sdata[threadIdx.x] = thread_sum(x, n, chunk); // site: store thread sum
  __syncthreads();
  for (int step = 0; step < reduce_sum::tree_steps(blockDim.x); ++step) {
    const reduce_sum::TreeStep t = reduce_sum::interleaved_step(threadIdx.x, step);
    if (t.active) {
      const float target = sdata[t.target]; // site: tree load target
      const float source = sdata[t.source]; // site: tree load source
      sdata[t.target] = target + source;    // site: tree store target
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const float block_sum = sdata[0]; // site: load block sum
    partials[blockIdx.x] = block_sum; // site: store partial
  }
}

__global__ void reduce_sum_strided_index(const float* x, float* partials, std::int64_t n,
                                         int chunk) {
  extern __shared__ float sdata[];
  sdata[threadIdx.x] = thread_sum(x, n, chunk); // site: store thread sum
  __syncthreads();
  for (int step = 0; step < reduce_sum::tree_steps(blockDim.x); ++step) {
    const reduce_sum::TreeStep t = reduce_sum::strided_index_step(threadIdx.x, step, blockDim.x);
    if (t.active) {
      const float target = sdata[t.target]; // site: tree load target
      const float source = sdata[t.source]; // site: tree load source
      sdata[t.target] = target + source;    // site: tree store target
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const float block_sum = sdata[0]; // site: load block sum
    partials[blockIdx.x] = block_sum; // site: store partial
  }
}

__global__ void reduce_sum_sequential(const float* x, float* partials, std::int64_t n, int chunk) {
  extern __shared__ float sdata[];
  sdata[threadIdx.x] = thread_sum(x, n, chunk); // site: store thread sum
  __syncthreads();
  for (int step = 0; step < reduce_sum::tree_steps(blockDim.x); ++step) {
    const reduce_sum::TreeStep t = reduce_sum::sequential_step(threadIdx.x, step, blockDim.x);
    if (t.active) {
      const float target = sdata[t.target]; // site: tree load target
      const float source = sdata[t.source]; // site: tree load source
      sdata[t.target] = target + source;    // site: tree store target
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const float block_sum = sdata[0]; // site: load block sum
    partials[blockIdx.x] = block_sum; // site: store partial
  }
}

// The thread's share of the chunk read as float4s, the loop unrolled so eight loads are in
// flight before their additions (which alone wait on each other).
__device__ float thread_sum_of_packs(const float* x, std::int64_t n, int chunk) {
  float sum = 0.0f;
  const int loads = reduce_sum::pack_loads_per_thread(chunk, blockDim.x);
#pragma unroll 8
  for (int k = 0; k < loads; ++k) {
    const std::int64_t i =
        reduce_sum::chunk_pack_element(blockIdx.x, chunk, blockDim.x, threadIdx.x, k, n);
    if (i >= 0) {
      const float4 v = *reinterpret_cast<const float4*>(&x[i]); // site: load x
      sum += (v.x + v.y) + (v.z + v.w);
    }
  }
  return sum;
}

// Each warp sums in registers; lane 0 of each warp leaves the warp's sum in shared memory, and
// warp 0 adds those (at most 32) with one more round of shuffles; thread 0 writes the partial.
__device__ void write_block_sum(float thread_total, float* partials) {
  __shared__ float warp_sums[reduce_sum::kWarp];
  const int warp = reduce_sum::warp_of(threadIdx.x), lane = reduce_sum::lane_of(threadIdx.x);
  const float sum = warp_sum(thread_total);
  if (lane == 0)
    warp_sums[warp] = sum; // site: store warp sum
  __syncthreads();
  if (warp == 0) {
    const float warp_total =
        lane < reduce_sum::warps_in(blockDim.x) ? warp_sums[lane] : 0.0f; // site: load warp sums
    const float block_sum = warp_sum(warp_total);
    if (lane == 0)
      partials[blockIdx.x] = block_sum; // site: store partial
  }
}

__global__ void reduce_sum_warp_shuffle(const float* x, float* partials, std::int64_t n,
                                        int chunk) {
  write_block_sum(thread_sum(x, n, chunk), partials);
}

__global__ void reduce_sum_vectorized(const float* x, float* partials, std::int64_t n, int chunk) {
  write_block_sum(thread_sum_of_packs(x, n, chunk), partials);
}
#endif

namespace {

constexpr int kX = 0, kPartials = 1;
using Offset = std::optional<std::int64_t>;

std::int64_t block_count(const Params& p) { return common::ceil_div(p.at("n"), p.at("chunk")); }

std::vector<BufferSpec> buffers() {
  return {{"x", ElementType::f32, BufferRole::input, [](const Params& p) { return p.at("n"); }},
          {"partials", ElementType::f32, BufferRole::output, block_count}};
}

Expected reference(const HostBuffers& in, const Params& p) {
  Expected e{common::outputs_like(in, buffers()), {}, ""};
  const float* x = in[kX].f32();
  float* partials = e.values[kPartials].f32();
  const std::int64_t n = p.at("n"), chunk = p.at("chunk");
  for (std::int64_t b = 0; b < block_count(p); ++b) {
    double sum = 0;
    for (std::int64_t i = b * chunk; i < std::min(n, (b + 1) * chunk); ++i)
      sum += x[i];
    partials[b] = static_cast<float>(sum);
  }
  return e;
}

// What the register loop's lanes read from the launch, read once.
struct Chunks {
  int chunk = 0, block_x = 0;
  std::int64_t n = 0;
};
Chunks chunks(const LaunchShape& s) {
  return {static_cast<int>(s.param("chunk")), s.block.x, s.param("n")};
}

// The register loop's load, a float per lane per iteration, or a float4 where `packs`.
Site load_x_site(bool packs = false) {
  return {"load x",
          MemorySpace::global,
          AccessOp::load,
          kX,
          common::fixed_width(packs ? 16 : 4),
          [packs](const LaunchShape& s) {
            const int chunk = static_cast<int>(s.param("chunk"));
            return std::int64_t{packs ? reduce_sum::pack_loads_per_thread(chunk, s.block.x)
                                      : reduce_sum::loads_per_thread(chunk, s.block.x)};
          },
          common::bound_offsets(chunks, [packs](const Chunks& s, Coord b, Coord t, std::int64_t k) {
            const auto element_of =
                packs ? reduce_sum::chunk_pack_element : reduce_sum::chunk_element;
            const std::int64_t i =
                element_of(b.x, s.chunk, s.block_x, t.x, static_cast<int>(k), s.n);
            return i >= 0 ? Offset(i * 4) : std::nullopt;
          })};
}

// Thread 0's store of the block's partial sum, which every variant has.
Site store_partial_site() {
  return {"store partial",
          MemorySpace::global,
          AccessOp::store,
          kPartials,
          common::fixed_width(4),
          common::single_iteration(),
          common::fixed_offsets([](Coord b, Coord t, std::int64_t) {
            return t.x == 0 ? Offset(b.x * 4) : std::nullopt;
          })};
}

using StepFn = reduce_sum::TreeStep (*)(int thread, int step, int block_dim);

// The shared sites of a tree kernel, in source order: each thread's sum stored at sdata[tid], per
// step the two loads and the store of `sdata[target] += sdata[source]`, thread 0's final load.
std::vector<Site> tree_sites(StepFn step_of) {
  const auto steps = [](const LaunchShape& s) {
    return std::int64_t{reduce_sum::tree_steps(s.block.x)};
  };
  const auto word = [step_of](bool source) {
    return common::bound_offsets(
        common::block_width,
        [step_of, source](int block_x, Coord, Coord t, std::int64_t step) -> Offset {
          const reduce_sum::TreeStep ts = step_of(t.x, static_cast<int>(step), block_x);
          if (!ts.active)
            return std::nullopt;
          return std::int64_t{source ? ts.source : ts.target} * 4;
        });
  };
  return {load_x_site(),
          {"store thread sum", MemorySpace::shared, AccessOp::store, -1, common::fixed_width(4),
           common::single_iteration(),
           common::fixed_offsets([](Coord, Coord t, std::int64_t) { return Offset(t.x * 4); })},
          {"tree load target", MemorySpace::shared, AccessOp::load, -1, common::fixed_width(4),
           steps, word(false)},
          {"tree load source", MemorySpace::shared, AccessOp::load, -1, common::fixed_width(4),
           steps, word(true)},
          {"tree store target", MemorySpace::shared, AccessOp::store, -1, common::fixed_width(4),
           steps, word(false)},
          {"load block sum", MemorySpace::shared, AccessOp::load, -1, common::fixed_width(4),
           common::single_iteration(), common::fixed_offsets([](Coord, Coord t, std::int64_t) {
             return t.x == 0 ? Offset(0) : std::nullopt;
           })},
          store_partial_site()};
}

// write_block_sum's sites after the register loop's load.
std::vector<Site> warp_shuffle_sites(Site load_x) {
  return {std::move(load_x),
          {"store warp sum", MemorySpace::shared, AccessOp::store, -1, common::fixed_width(4),
           common::single_iteration(), common::fixed_offsets([](Coord, Coord t, std::int64_t) {
             return reduce_sum::lane_of(t.x) == 0 ? Offset(reduce_sum::warp_of(t.x) * 4)
                                                  : std::nullopt;
           })},
          {"load warp sums", MemorySpace::shared, AccessOp::load, -1, common::fixed_width(4),
           common::single_iteration(),
           common::bound_offsets(common::block_width,
                                 [](int block_x, Coord, Coord t, std::int64_t) {
                                   const int lane = reduce_sum::lane_of(t.x);
                                   const bool reads = reduce_sum::warp_of(t.x) == 0 &&
                                                      lane < reduce_sum::warps_in(block_x);
                                   return reads ? Offset(lane * 4) : std::nullopt;
                                 })},
          store_partial_site()};
}

using Kernel = void (*)(const float*, float*, std::int64_t, int);

KernelDesc base(std::string variant, std::string title, std::string lesson,
                [[maybe_unused]] Kernel kernel) {
  KernelDesc k;
  k.id = "reduce_sum/" + variant;
  k.title = std::move(title);
  k.lesson = std::move(lesson);
  k.params = {{"n", "elements of x to sum", 1 << 24, 1, std::int64_t{1} << 30, {}, true},
              {"chunk",
               "elements each block sums (one partial sum per chunk)",
               1024,
               1024,
               8192,
               {1024, 2048, 4096, 8192},
               false}};
  k.block_rank = 1;
  k.default_block = {256, 1, 1};
  k.grid = [](const Params& p, const BlockShape&, int) {
    return BlockShape{static_cast<int>(block_count(p)), 1, 1};
  };
  k.buffers = buffers();
  k.reference = reference;
  // Random inputs in [-1, 1): float rounding over a chunk of 8192 terms reached 6e-5 in a CPU
  // simulation of the kernels' order; absolute, since a partial sum may be close to zero.
  k.tolerance = {5e-4, 1e-5};
  k.bytes_moved = [](const Params& p) {
    return 4.0 * static_cast<double>(p.at("n") + block_count(p));
  };
  k.flops = [](const Params& p) { return static_cast<double>(p.at("n")); };
  k.test_sizes = {{{"n", 1}, {"chunk", 1024}},
                  {{"n", 1000}, {"chunk", 1024}},
                  {{"n", 100003}, {"chunk", 1024}},
                  {{"n", 5000}, {"chunk", 2048}},
                  {{"n", 3 * 8192 + 7}, {"chunk", 8192}}};
  k.symbol = [variant](const Params&) { return "wl::reduce_sum_" + variant; };
#if WL_DEVICE_CODE
  k.function = [kernel](const Params&) { return reinterpret_cast<const void*>(kernel); };
  k.launch = [kernel](const DeviceLaunch& l) {
    kernel<<<to_dim3(l.shape.grid), to_dim3(l.shape.block), l.dynamic_smem, stream_of(l)>>>(
        buffer<const float>(l, kX), buffer<float>(l, kPartials), l.shape.param("n"),
        static_cast<int>(l.shape.param("chunk")));
  };
#endif
  return k;
}

KernelDesc tree(std::string variant, std::string title, std::string lesson, Kernel kernel,
                StepFn step_of) {
  KernelDesc k = base(std::move(variant), std::move(title), std::move(lesson), kernel);
  k.block_presets = {{64, 1, 1}, {128, 1, 1}, {256, 1, 1}, {512, 1, 1}, {1024, 1, 1}};
  k.allowed_blocks = "a 1D power-of-two block of 32 to 1024 threads";
  k.check_block = [](const BlockShape& b, const Params&) {
    return common::check_power_of_two_block(b);
  };
  k.dynamic_smem = [](const Params&, const BlockShape& b) { return std::int64_t{b.x} * 4; };
  k.sites = tree_sites(step_of);
  k.fp32_counter_note =
      "it counts one add an element, and the counters also see how the thread sums are combined: "
      "the tree adds each block's thread sums pairwise (blockDim - 1 adds a block, a quarter more "
      "at 256 threads and 1,024-element chunks)";
  return k;
}

reduce_sum::TreeStep interleaved_step(int thread, int step, int) {
  return reduce_sum::interleaved_step(thread, step);
}

KernelDesc interleaved() {
  return tree("interleaved", "Block sum, interleaved tree (divergent)",
              "Step s adds sdata[tid + s] into sdata[tid] for every tid that is a multiple of 2s. "
              "The working "
              "threads are spread over all warps: at s = 1 every warp runs the add for 16 lanes, "
              "at s = 16 for "
              "one lane, so the block issues far more shared instructions than the work needs "
              "(divergence). "
              "Shared memory panel: the tree sites issue 47 requests per 256-thread block against "
              "sequential's "
              "12, each with few active lanes; the bank grid shows no conflicts, since the lanes "
              "of one warp "
              "still land on distinct banks. Compare strided_index, which removes the divergence "
              "and creates "
              "conflicts, and sequential, which removes both.",
              WL_KERNEL(reduce_sum_interleaved), interleaved_step);
}

KernelDesc strided_index() {
  return tree("strided_index", "Block sum, interleaved tree with a strided index (bank conflicts)",
              "Step s lets thread tid add sdata[2s*tid + s] into sdata[2s*tid], so the working "
              "threads are the "
              "first ones and whole warps retire early: the request count drops to sequential's. "
              "But neighbouring "
              "lanes now touch words 2s apart, which share banks: 2-way at s = 1, 4-way at s = 2, "
              "up to 32-way "
              "with 1024-thread blocks. Shared memory panel: excess wavefronts on all three tree "
              "sites and the "
              "n-way in the bank grid, step by step; global panel unchanged.",
              WL_KERNEL(reduce_sum_strided_index), reduce_sum::strided_index_step);
}

KernelDesc sequential() {
  return tree(
      "sequential", "Block sum, sequential tree",
      "Step s (blockDim/2 down to 1) lets the first s threads add sdata[tid + s] into sdata[tid]: "
      "consecutive lanes touch consecutive words (no bank conflicts) and whole warps drop out as s "
      "shrinks (divergence only in the last warp). Shared memory panel: one wavefront per request "
      "on every tree site and the fewest requests of the tree variants. Timings: the fastest tree.",
      WL_KERNEL(reduce_sum_sequential), reduce_sum::sequential_step);
}

// The variants that combine by shuffles (write_block_sum), after the register loop `load_x`.
KernelDesc shuffled(std::string variant, std::string title, std::string lesson, Kernel kernel,
                    Site load_x) {
  KernelDesc k = base(std::move(variant), std::move(title), std::move(lesson), kernel);
  k.block_presets = {{64, 1, 1}, {128, 1, 1}, {256, 1, 1}, {512, 1, 1}, {1024, 1, 1}};
  k.allowed_blocks = "a 1D block of 32 to 1024 threads, a multiple of 32";
  k.check_block = [](const BlockShape& b, const Params&) {
    return common::check_whole_warps(b, "the shuffles need whole warps");
  };
  k.sites = warp_shuffle_sites(std::move(load_x));
  k.fp32_counter_note =
      "it counts one add an element, and the counters also see how the thread sums are combined: "
      "at each of a shuffle's five steps every lane adds, though only lane 0's sum is used (160 "
      "adds a warp where 31 would do), in every warp and again in warp 0 for the block";
  return k;
}

KernelDesc warp_shuffle() {
  return shuffled(
      "warp_shuffle", "Block sum, warp shuffles",
      "Each warp adds its 32 sums with five __shfl_xor_sync steps, register to register; lane 0 "
      "of each warp stores one float in shared memory and warp 0 adds those with one more "
      "round of shuffles. Shared memory panel: one store per warp and one load, instead of a "
      "tree of log2(blockDim) steps; no barriers inside the reduction. Any whole number of warps "
      "works as a block.",
      WL_KERNEL(reduce_sum_warp_shuffle), load_x_site());
}

KernelDesc vectorized() {
  KernelDesc k = shuffled(
      "vectorized", "Block sum, float4 loads and long chunks",
      "warp_shuffle's combine, with the register loop rebuilt for bandwidth: each lane reads "
      "16 bytes (a float4) per load, the loop is unrolled so eight loads are in flight before "
      "their additions, and each block sums 8192 elements, so 2048 blocks of 256 threads fill "
      "the GPU in two waves and the combine is paid once per 32 KB. Global memory panel: load "
      "x at 16 sectors per request (512 bytes a warp), a quarter of warp_shuffle's requests. "
      "Timings: against the copy bandwidth, where warp_shuffle's 4-byte loads and 1024-element "
      "chunks stop short.",
      WL_KERNEL(reduce_sum_vectorized), load_x_site(true));
  // Longer chunks too: the fewer the blocks, the smaller the last wave's share of the time.
  k.params[1].choices = {1024, 2048, 4096, 8192, 16384, 32768};
  k.params[1].max = 32768;
  k.params[1].default_value = 8192;
  k.check_params = [](const Params& p) -> std::string {
    if (p.at("n") % reduce_sum::kPack == 0)
      return "";
    return "x is read as 16-byte float4s, so n is a multiple of 4 (n=" + std::to_string(p.at("n")) +
           "); the other variants take any";
  };
  k.test_sizes = {{{"n", 4}, {"chunk", 1024}},
                  {{"n", 1000}, {"chunk", 1024}},
                  {{"n", 100004}, {"chunk", 1024}},
                  {{"n", 5000}, {"chunk", 2048}},
                  {{"n", 3 * 8192 + 8}, {"chunk", 8192}},
                  {{"n", 70004}, {"chunk", 32768}}};
  return k;
}

} // namespace

std::vector<KernelDesc> reduce_sum_kernels() {
  return {interleaved(), strided_index(), sequential(), warp_shuffle(), vectorized()};
}

} // namespace wl
