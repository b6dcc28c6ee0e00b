// vec_add: c = a + b, the memory-bound baseline.
//
// The lesson: a kernel that does one add per 12 bytes moved is limited by DRAM bandwidth alone,
// so the only things that matter are that every warp's accesses coalesce and that enough bytes
// are in flight. Look at the global memory panel: every load and store of `scalar` is 4 sectors
// per request (128 bytes for 32 lanes), `vec4` moves 16 bytes per lane for 16 sectors per request
// at a quarter of the instructions, and `grid_stride` keeps a fixed grid of resident blocks
// busy with a loop. The timing panel shows how close each gets to the device's peak bandwidth;
// the occupancy panel shows that any block of 64 threads or more reaches full occupancy here.

#include "common.h"
#include "families.h"
#include "index/vec_add.h"
#if WL_DEVICE_CODE
#include "launch.cuh"
#endif

namespace wl {

#if WL_DEVICE_CODE
__global__ void vec_add_scalar(const float* a, const float* b, float* c, std::int64_t n) {
  const std::int64_t i = vec_add::element(blockIdx.x, blockDim.x, threadIdx.x);
  if (i < n) {
    const float x = a[i]; // site: load a
    const float y = b[i]; // site: load b
    c[i] = x + y;         // site: store c
  }
}

__global__ void vec_add_vec4(const float4* a, const float4* b, float4* c, std::int64_t n4) {
  const std::int64_t i = vec_add::element(blockIdx.x, blockDim.x, threadIdx.x);
  if (i < n4) {
    const float4 x = a[i];                                          // site: load a
    const float4 y = b[i];                                          // site: load b
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w); // site: store c
  }
}

__global__ void vec_add_grid_stride(const float4* a, const float4* b, float4* c, std::int64_t n4) {
  for (std::int64_t k = 0;; ++k) {
    const std::int64_t i =
        vec_add::grid_stride_element(blockIdx.x, blockDim.x, threadIdx.x, gridDim.x, k);
    if (i >= n4)
      break;
    const float4 x = a[i];                                          // site: load a
    const float4 y = b[i];                                          // site: load b
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w); // site: store c
  }
}
#endif

namespace {

constexpr int kA = 0, kB = 1, kC = 2;

std::vector<BufferSpec> buffers() {
  const auto n = [](const Params& p) { return p.at("n"); };
  return {{"a", ElementType::f32, BufferRole::input, n},
          {"b", ElementType::f32, BufferRole::input, n},
          {"c", ElementType::f32, BufferRole::output, n}};
}

Expected reference(const HostBuffers& in, const Params&) {
  return common::add_reference(in, buffers(), kA, kB, kC);
}

std::string check_multiple_of_4(const Params& p) {
  return p.at("n") % 4 == 0 ? "" : "n must be a multiple of 4: each thread moves one float4";
}

// The descriptor fields all three variants share.
KernelDesc base(std::string id, std::string title, std::string lesson) {
  KernelDesc k;
  k.id = std::move(id);
  k.title = std::move(title);
  k.lesson = std::move(lesson);
  k.params = {{"n", "elements in each vector", 1 << 24, 1, std::int64_t{1} << 30, {}, true}};
  k.block_rank = 1;
  k.default_block = {256, 1, 1};
  k.block_presets = {{64, 1, 1}, {128, 1, 1}, {256, 1, 1}, {512, 1, 1}, {1024, 1, 1}};
  k.allowed_blocks = "any 1D block of 1 to 1024 threads";
  k.check_block = [](const BlockShape& b, const Params&) { return common::check_1d_block(b); };
  k.buffers = buffers();
  k.reference = reference;
  k.tolerance = {0.0, 0.0}; // one float add on each side: bit-identical
  k.bytes_moved = [](const Params& p) { return 12.0 * static_cast<double>(p.at("n")); };
  // Multiples of 4 (for the float4 variants) that no block size divides, and a single float4.
  k.test_sizes = {{{"n", 4}}, {{"n", 1000}}, {{"n", 100004}}, {{"n", 3000004}}};
  k.flops = [](const Params& p) { return static_cast<double>(p.at("n")); };
  return k;
}

// Three sites, one per buffer, each at `width` bytes per lane from an element index:
// `bind_element(launch)` gives the launch's (block, thread, iteration) -> index, nullopt past the
// end.
template <typename BindElement>
std::vector<Site> element_sites(int width, BindElement bind_element,
                                std::function<std::int64_t(const LaunchShape&)> iterations) {
  const auto offset = [bind_element, width](const LaunchShape& s) -> LaneOffsets {
    return [element = bind_element(s), width](Coord b, Coord t,
                                              std::int64_t k) -> std::optional<std::int64_t> {
      const auto i = element(b, t, k);
      if (!i)
        return std::nullopt;
      return *i * width;
    };
  };
  return {{"load a", MemorySpace::global, AccessOp::load, kA, common::fixed_width(width),
           iterations, offset},
          {"load b", MemorySpace::global, AccessOp::load, kB, common::fixed_width(width),
           iterations, offset},
          {"store c", MemorySpace::global, AccessOp::store, kC, common::fixed_width(width),
           iterations, offset}};
}

// One element per thread, below `count` elements (n floats, or n / 4 float4s).
auto one_element_per_thread(std::int64_t count, int block_x) {
  return [count, block_x](Coord b, Coord t, std::int64_t) -> std::optional<std::int64_t> {
    const std::int64_t i = vec_add::element(b.x, block_x, t.x);
    return i < count ? std::optional(i) : std::nullopt;
  };
}

KernelDesc scalar() {
  KernelDesc k =
      base("vec_add/scalar", "Vector add, one float per thread",
           "One float per thread: each warp reads 32 consecutive floats from a and b and writes "
           "32 to c, 128 bytes per request, so every request is exactly 4 sectors (the ideal). "
           "Global memory panel: 4 sectors per request on all three sites. Timings: compare GB/s "
           "with the device peak; this is the yardstick the other kernels are measured against.");
  k.grid = [](const Params& p, const BlockShape& b, int) { return common::grid_1d(p.at("n"), b); };
  k.sites = element_sites(
      4, [](const LaunchShape& s) { return one_element_per_thread(s.param("n"), s.block.x); },
      common::single_iteration());
  k.symbol = [](const Params&) { return std::string("wl::vec_add_scalar"); };
#if WL_DEVICE_CODE
  k.function = [](const Params&) { return reinterpret_cast<const void*>(vec_add_scalar); };
  k.launch = [](const DeviceLaunch& l) {
    vec_add_scalar<<<to_dim3(l.shape.grid), to_dim3(l.shape.block), 0, stream_of(l)>>>(
        buffer<const float>(l, kA), buffer<const float>(l, kB), buffer<float>(l, kC),
        l.shape.param("n"));
  };
#endif
  return k;
}

KernelDesc vec4() {
  KernelDesc k = base(
      "vec_add/vec4", "Vector add, one float4 per thread",
      "One float4 (16 bytes) per thread: a warp moves 512 bytes per instruction, 16 sectors per "
      "request, still the ideal for its width, with a quarter of the load and store "
      "instructions of the scalar version. Global memory panel: 16 sectors per request and 100 % "
      "of fetched bytes used. Timings: fewer instructions in flight for the same bytes.");
  k.check_params = check_multiple_of_4;
  k.grid = [](const Params& p, const BlockShape& b, int) {
    return common::grid_1d(p.at("n") / 4, b);
  };
  k.sites = element_sites(
      16, [](const LaunchShape& s) { return one_element_per_thread(s.param("n") / 4, s.block.x); },
      common::single_iteration());
  k.symbol = [](const Params&) { return std::string("wl::vec_add_vec4"); };
#if WL_DEVICE_CODE
  k.function = [](const Params&) { return reinterpret_cast<const void*>(vec_add_vec4); };
  k.launch = [](const DeviceLaunch& l) {
    vec_add_vec4<<<to_dim3(l.shape.grid), to_dim3(l.shape.block), 0, stream_of(l)>>>(
        buffer<const float4>(l, kA), buffer<const float4>(l, kB), buffer<float4>(l, kC),
        l.shape.param("n") / 4);
  };
#endif
  return k;
}

// Enough blocks to fill every SM once at 2048 resident threads per SM, whatever the block size.
BlockShape resident_grid(const Params& p, const BlockShape& b, int sm_count) {
  const std::int64_t wanted = static_cast<std::int64_t>(sm_count) * std::max(1, 2048 / b.x);
  return BlockShape{static_cast<int>(std::min(
                        wanted, std::max<std::int64_t>(1, common::ceil_div(p.at("n") / 4, b.x)))),
                    1, 1};
}

KernelDesc grid_stride() {
  KernelDesc k = base(
      "vec_add/grid_stride", "Vector add, float4 in a grid-stride loop",
      "A fixed grid of 2048 threads per SM loops over the vector in float4 steps of the whole "
      "grid's width. Each iteration is as coalesced as vec4 (16 sectors per request); the loop "
      "replaces a long tail of short-lived blocks. Occupancy panel: the grid is one wave by "
      "construction. Global memory panel: the same sectors per request in every iteration.");
  k.check_params = check_multiple_of_4;
  k.grid = resident_grid;
  k.sites = element_sites(
      16,
      [](const LaunchShape& s) {
        return [count = s.param("n") / 4, block_x = s.block.x, grid_x = s.grid.x](
                   Coord b, Coord t, std::int64_t it) -> std::optional<std::int64_t> {
          const std::int64_t i = vec_add::grid_stride_element(b.x, block_x, t.x, grid_x, it);
          return i < count ? std::optional(i) : std::nullopt;
        };
      },
      [](const LaunchShape& s) {
        return common::ceil_div(s.param("n") / 4, static_cast<std::int64_t>(s.grid.x) * s.block.x);
      });
  k.symbol = [](const Params&) { return std::string("wl::vec_add_grid_stride"); };
#if WL_DEVICE_CODE
  k.function = [](const Params&) { return reinterpret_cast<const void*>(vec_add_grid_stride); };
  k.launch = [](const DeviceLaunch& l) {
    vec_add_grid_stride<<<to_dim3(l.shape.grid), to_dim3(l.shape.block), 0, stream_of(l)>>>(
        buffer<const float4>(l, kA), buffer<const float4>(l, kB), buffer<float4>(l, kC),
        l.shape.param("n") / 4);
  };
#endif
  return k;
}

} // namespace

std::vector<KernelDesc> vec_add_kernels() { return {scalar(), vec4(), grid_stride()}; }

} // namespace wl
