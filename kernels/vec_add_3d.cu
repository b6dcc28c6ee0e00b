// vec_add_3d: c = a + b over a volume of nx × ny × nz floats, stored x fastest.
//
// The lesson: a 3D block is only a way of numbering threads. The hardware still cuts the block
// into warps of 32 consecutive threads, counting x first, then y, then z, so what a warp touches
// in memory depends on the block's x side. With x as the contiguous axis, a block 32 or more wide
// in x gives each warp one 128-byte row (4 sectors per request, like the flat `linear` kernel). A
// narrower block splits each warp over 32 / bx rows that lie nx floats apart: 8 wide still fills
// one whole sector per row (4 sectors, but in 4 cache lines; up to 6 when a row of nx floats is
// not a multiple of 32 bytes and every other row straddles two sectors), 4 wide uses half of
// every sector it fetches (8 per request), 1 wide fetches a sector for every float (32).
// Global memory panel: sectors per request against the ideal for each block shape. Timings: the
// narrow blocks move the same bytes in more sectors. Occupancy panel: the default 16×8×8 block is
// 1024 threads, two blocks per SM.

#include "common.h"
#include "families.h"
#include "index/vec_add_3d.h"
#if WL_DEVICE_CODE
#include "launch.cuh"
#endif

namespace wl {

#if WL_DEVICE_CODE
__global__ void vec_add_3d_linear(const float* a, const float* b, float* c, std::int64_t count) {
  const std::int64_t i = vec_add_3d::linear_element(blockIdx.x, blockDim.x, threadIdx.x);
  if (i < count) {
    const float x = a[i]; // site: load a
    const float y = b[i]; // site: load b
    c[i] = x + y;         // site: store c
  }
}

__global__ void vec_add_3d_blocks3d(const float* a, const float* b, float* c, int nx, int ny,
                                    int nz) {
  const int x = vec_add_3d::axis_coordinate(blockIdx.x, blockDim.x, threadIdx.x);
  const int y = vec_add_3d::axis_coordinate(blockIdx.y, blockDim.y, threadIdx.y);
  const int z = vec_add_3d::axis_coordinate(blockIdx.z, blockDim.z, threadIdx.z);
  if (!vec_add_3d::inside(x, y, z, nx, ny, nz))
    return;
  const std::int64_t i = vec_add_3d::element_at(x, y, z, nx, ny);
  const float from_a = a[i]; // site: load a
  const float from_b = b[i]; // site: load b
  c[i] = from_a + from_b;    // site: store c
}
#endif

namespace {

constexpr int kA = 0, kB = 1, kC = 2;
constexpr std::int64_t kMaxElements = std::int64_t{1} << 30;

struct Volume {
  int nx, ny, nz;
  std::int64_t count() const { return static_cast<std::int64_t>(nx) * ny * nz; }
};

Volume volume(const Params& p) {
  return {static_cast<int>(p.at("nx")), static_cast<int>(p.at("ny")), static_cast<int>(p.at("nz"))};
}

std::vector<BufferSpec> buffers() {
  const auto count = [](const Params& p) { return volume(p).count(); };
  return {{"a", ElementType::f32, BufferRole::input, count},
          {"b", ElementType::f32, BufferRole::input, count},
          {"c", ElementType::f32, BufferRole::output, count}};
}

Expected reference(const HostBuffers& in, const Params&) {
  return common::add_reference(in, buffers(), kA, kB, kC);
}

std::string check_volume(const Params& p) {
  return volume(p).count() <= kMaxElements
             ? ""
             : "nx*ny*nz must be at most 2^30 elements (three buffers of 4 GiB)";
}

// The descriptor fields both variants share.
KernelDesc base(std::string id, std::string title, std::string lesson) {
  KernelDesc k;
  k.id = std::move(id);
  k.title = std::move(title);
  k.lesson = std::move(lesson);
  k.params = {{"nx", "volume width in floats: the contiguous axis", 256, 1, kMaxElements, {}, true},
              {"ny", "volume height in rows of nx floats", 256, 1, 65535, {}, true},
              {"nz", "volume depth in planes of nx*ny floats", 256, 1, 65535, {}, true}};
  k.check_params = check_volume;
  k.buffers = buffers();
  k.reference = reference;
  k.tolerance = {0.0, 0.0}; // one float add on each side: bit-identical
  k.bytes_moved = [](const Params& p) { return 12.0 * static_cast<double>(volume(p).count()); };
  k.flops = [](const Params& p) { return static_cast<double>(volume(p).count()); };
  k.test_sizes = {{{"nx", 67}, {"ny", 45}, {"nz", 13}},
                  {{"nx", 1}, {"ny", 1}, {"nz", 1}},
                  {{"nx", 33}, {"ny", 9}, {"nz", 70}},
                  {{"nx", 100}, {"ny", 3}, {"nz", 5}}};
  return k;
}

// load a, load b, store c: one float per lane at the same element of each buffer.
std::vector<Site> element_sites(const std::function<LaneOffsets(const LaunchShape&)>& offset) {
  const auto width = common::fixed_width(4);
  const auto once = common::single_iteration();
  return {{"load a", MemorySpace::global, AccessOp::load, kA, width, once, offset},
          {"load b", MemorySpace::global, AccessOp::load, kB, width, once, offset},
          {"store c", MemorySpace::global, AccessOp::store, kC, width, once, offset}};
}

KernelDesc linear() {
  KernelDesc k = base(
      "vec_add_3d/linear", "3D vector add, flat 1D blocks",
      "The volume treated as one flat array: thread i adds element i, so every warp reads 32 "
      "consecutive floats whatever nx, ny and nz are. Global memory panel: 4 sectors per request "
      "on all three sites (the ideal), the yardstick for the 3D-block variant. Timings: GB/s "
      "against the device peak, the same as vec_add/scalar.");
  k.block_rank = 1;
  k.default_block = {256, 1, 1};
  k.block_presets = {{64, 1, 1}, {128, 1, 1}, {256, 1, 1}, {512, 1, 1}, {1024, 1, 1}};
  k.allowed_blocks = "any 1D block of 1 to 1024 threads";
  k.check_block = [](const BlockShape& b, const Params&) { return common::check_1d_block(b); };
  k.grid = [](const Params& p, const BlockShape& b, int) {
    return common::grid_1d(volume(p).count(), b);
  };
  k.sites = element_sites([](const LaunchShape& s) -> LaneOffsets {
    return [count = volume(s.params).count(),
            block_x = s.block.x](Coord b, Coord t, std::int64_t) -> std::optional<std::int64_t> {
      const std::int64_t i = vec_add_3d::linear_element(b.x, block_x, t.x);
      if (i >= count)
        return std::nullopt;
      return i * 4;
    };
  });
  k.symbol = [](const Params&) { return std::string("wl::vec_add_3d_linear"); };
#if WL_DEVICE_CODE
  k.function = [](const Params&) { return reinterpret_cast<const void*>(vec_add_3d_linear); };
  k.launch = [](const DeviceLaunch& l) {
    vec_add_3d_linear<<<to_dim3(l.shape.grid), to_dim3(l.shape.block), 0, stream_of(l)>>>(
        buffer<const float>(l, kA), buffer<const float>(l, kB), buffer<float>(l, kC),
        volume(l.shape.params).count());
  };
#endif
  return k;
}

KernelDesc blocks3d() {
  KernelDesc k = base(
      "vec_add_3d/blocks3d", "3D vector add, 3D blocks",
      "Each thread adds the element at its (x, y, z); x is the contiguous axis. A warp is 32 "
      "threads counted x first, so its shape in the volume is bx wide and 32 / bx rows tall when "
      "bx < 32. Global memory panel: 32×4×4 and wider give one 128-byte row per warp, 4 sectors "
      "per request. 8×8×8 also gives 4 sectors (each 8-float row is exactly one sector) but over "
      "4 cache lines, and when a row of nx floats is not a multiple of 32 bytes (try nx = 100) "
      "every "
      "other row straddles two sectors: 8×8×8 then needs 1.5× the ideal sectors, 32×4×4 only "
      "1.1×. 4×8×8 uses half of each sector (8 per request), 1×32×8 one "
      "float of each (32 per request). Timings: the same bytes, more sectors, lower GB/s.");
  k.block_rank = 3;
  k.default_block = {16, 8, 8};
  k.block_presets = {{32, 4, 4}, {16, 8, 8}, {8, 8, 8}, {4, 8, 8}, {64, 4, 2}, {1, 32, 8}};
  k.allowed_blocks = "any 3D block of at most 1024 threads with z at most 64";
  k.check_block = [](const BlockShape& b, const Params&) { return common::check_3d_block(b); };
  k.grid = [](const Params& p, const BlockShape& b, int) {
    const Volume v = volume(p);
    return common::grid_3d(v.nx, v.ny, v.nz, b);
  };
  k.sites = element_sites([](const LaunchShape& s) -> LaneOffsets {
    return [v = volume(s.params), block = s.block](Coord b, Coord t,
                                                   std::int64_t) -> std::optional<std::int64_t> {
      const int x = vec_add_3d::axis_coordinate(b.x, block.x, t.x);
      const int y = vec_add_3d::axis_coordinate(b.y, block.y, t.y);
      const int z = vec_add_3d::axis_coordinate(b.z, block.z, t.z);
      if (!vec_add_3d::inside(x, y, z, v.nx, v.ny, v.nz))
        return std::nullopt;
      return vec_add_3d::element_at(x, y, z, v.nx, v.ny) * 4;
    };
  });
  k.symbol = [](const Params&) { return std::string("wl::vec_add_3d_blocks3d"); };
#if WL_DEVICE_CODE
  k.function = [](const Params&) { return reinterpret_cast<const void*>(vec_add_3d_blocks3d); };
  k.launch = [](const DeviceLaunch& l) {
    const Volume v = volume(l.shape.params);
    vec_add_3d_blocks3d<<<to_dim3(l.shape.grid), to_dim3(l.shape.block), 0, stream_of(l)>>>(
        buffer<const float>(l, kA), buffer<const float>(l, kB), buffer<float>(l, kC), v.nx, v.ny,
        v.nz);
  };
#endif
  return k;
}

} // namespace

std::vector<KernelDesc> vec_add_3d_kernels() { return {linear(), blocks3d()}; }

} // namespace wl
