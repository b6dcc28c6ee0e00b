// broadcast_add: out(x, y, z) = a(x, y, z) + b(x, y) + c(x), all stored x fastest.
//
// The lesson: an operand with fewer dimensions than the output is read again by every thread
// along the missing axes: b once per z plane, c once per row. Each of those re-reads is a real
// request with real sectors, but after the first they hit L1 or L2, so DRAM sees b and c about
// once; requests and sectors count work in the cache, not bytes from DRAM.
// The default 4×4×4 block also shows how a small x side wastes sectors: a warp is 4 floats wide,
// 4 rows tall and 2 planes deep, so `load a` and `store out` touch 8 half-used sectors per request
// and `load b` touches 4 sectors for 2 sectors' worth of distinct bytes (both planes read the
// same 4 rows of b). With 32×4×2 every warp is one 128-byte row: 4 sectors per request on every
// site, and `load c` reads 4 sectors that every other warp in the row also reads.
// Global memory panel: sectors per request against the ideal per site, and total sectors of b and
// c against their size. Timings: 4×4×4 against 32×4×2 at the same bytes moved.

#include "common.h"
#include "families.h"
#include "index/broadcast_add.h"
#if WL_DEVICE_CODE
#include "launch.cuh"
#endif

namespace wl {

#if WL_DEVICE_CODE
__global__ void broadcast_add_xyz(const float* a, const float* b, const float* c, float* out,
                                  int nx, int ny, int nz) {
  const int x = broadcast_add::axis_coordinate(blockIdx.x, blockDim.x, threadIdx.x);
  const int y = broadcast_add::axis_coordinate(blockIdx.y, blockDim.y, threadIdx.y);
  const int z = broadcast_add::axis_coordinate(blockIdx.z, blockDim.z, threadIdx.z);
  if (!broadcast_add::inside(x, y, z, nx, ny, nz))
    return;
  const std::int64_t i = broadcast_add::volume_element(x, y, z, nx, ny);
  const float from_a = a[i];                                      // site: load a
  const float from_b = b[broadcast_add::plane_element(x, y, nx)]; // site: load b
  const float from_c = c[broadcast_add::row_element(x)];          // site: load c
  out[i] = from_a + from_b + from_c;                              // site: store out
}
#endif

namespace {

constexpr int kA = 0, kB = 1, kC = 2, kOut = 3;
constexpr std::int64_t kMaxElements = std::int64_t{1} << 30;

struct Volume {
  int nx, ny, nz;
  std::int64_t count() const { return static_cast<std::int64_t>(nx) * ny * nz; }
  std::int64_t plane() const { return static_cast<std::int64_t>(nx) * ny; }
};

Volume volume(const Params& p) {
  return {static_cast<int>(p.at("nx")), static_cast<int>(p.at("ny")), static_cast<int>(p.at("nz"))};
}

std::vector<BufferSpec> buffers() {
  return {
      {"a", ElementType::f32, BufferRole::input, [](const Params& p) { return volume(p).count(); }},
      {"b", ElementType::f32, BufferRole::input, [](const Params& p) { return volume(p).plane(); }},
      {"c", ElementType::f32, BufferRole::input, [](const Params& p) { return p.at("nx"); }},
      {"out", ElementType::f32, BufferRole::output,
       [](const Params& p) { return volume(p).count(); }}};
}

// Written as three nested loops over z, y, x, independent of the kernel's index functions.
Expected reference(const HostBuffers& in, const Params& p) {
  const Volume v = volume(p);
  Expected e{common::outputs_like(in, buffers()), {}, ""};
  const float* a = in[kA].f32();
  const float* b = in[kB].f32();
  const float* c = in[kC].f32();
  float* out = e.values[kOut].f32();
  std::int64_t i = 0;
  for (int z = 0; z < v.nz; ++z)
    for (int y = 0; y < v.ny; ++y)
      for (int x = 0; x < v.nx; ++x, ++i)
        out[i] = a[i] + b[static_cast<std::int64_t>(y) * v.nx + x] + c[x];
  return e;
}

// The byte offsets a thread reads from one operand, given that operand's index function of (x,
// y, z).
template <typename Index>
std::function<LaneOffsets(const LaunchShape&)> operand_offset(Index index) {
  return [index](const LaunchShape& s) -> LaneOffsets {
    return [index, v = volume(s.params),
            block = s.block](Coord b, Coord t, std::int64_t) -> std::optional<std::int64_t> {
      const int x = broadcast_add::axis_coordinate(b.x, block.x, t.x);
      const int y = broadcast_add::axis_coordinate(b.y, block.y, t.y);
      const int z = broadcast_add::axis_coordinate(b.z, block.z, t.z);
      if (!broadcast_add::inside(x, y, z, v.nx, v.ny, v.nz))
        return std::nullopt;
      return index(x, y, z, v) * 4;
    };
  };
}

std::vector<Site> sites() {
  const auto width = common::fixed_width(4);
  const auto once = common::single_iteration();
  const auto volume_offset = operand_offset([](int x, int y, int z, const Volume& v) {
    return broadcast_add::volume_element(x, y, z, v.nx, v.ny);
  });
  const auto plane_offset = operand_offset(
      [](int x, int y, int, const Volume& v) { return broadcast_add::plane_element(x, y, v.nx); });
  const auto row_offset =
      operand_offset([](int x, int, int, const Volume&) { return broadcast_add::row_element(x); });
  return {{"load a", MemorySpace::global, AccessOp::load, kA, width, once, volume_offset},
          {"load b", MemorySpace::global, AccessOp::load, kB, width, once, plane_offset},
          {"load c", MemorySpace::global, AccessOp::load, kC, width, once, row_offset},
          {"store out", MemorySpace::global, AccessOp::store, kOut, width, once, volume_offset}};
}

KernelDesc xyz() {
  KernelDesc k;
  k.id = "broadcast_add/xyz";
  k.title = "Broadcast add of a volume, a plane and a row";
  k.lesson = "out(x, y, z) = a(x, y, z) + b(x, y) + c(x), x fastest in memory. b is re-read by "
             "every z plane and c by "
             "every row, so their requests and sectors far exceed their size, yet DRAM reads them "
             "about once: the "
             "re-reads hit L1/L2. Global memory panel: with the default 4×4×4 block a warp covers "
             "4 floats × 4 rows × "
             "2 planes, so load a and store out take 8 sectors per request (ideal 4), load b 4 "
             "(ideal 2: both planes "
             "read the same rows), load c 1. With 32×4×2 every site is one 128-byte row, 4 sectors "
             "per request. "
             "Compare the total sectors of b and c with their bytes. Timings: 32×4×2 against 4×4×4 "
             "for the same bytes.";
  k.params = {
      {"nx",
       "volume width in floats: the contiguous axis, and c's length",
       256,
       1,
       kMaxElements,
       {},
       true},
      {"ny", "volume height in rows of nx floats, and the height of b", 256, 1, 65535, {}, true},
      {"nz", "volume depth in planes of nx*ny floats", 256, 1, 65535, {}, true}};
  k.check_params = [](const Params& p) {
    return volume(p).count() <= kMaxElements
               ? ""
               : "nx*ny*nz must be at most 2^30 elements (a and out of 4 GiB each)";
  };
  k.block_rank = 3;
  k.default_block = {4, 4, 4};
  k.block_presets = {{4, 4, 4}, {8, 8, 4}, {32, 4, 2}, {32, 8, 4}, {128, 2, 2}};
  k.allowed_blocks = "any 3D block of at most 1024 threads with z at most 64";
  k.check_block = [](const BlockShape& b, const Params&) { return common::check_3d_block(b); };
  k.grid = [](const Params& p, const BlockShape& b, int) {
    const Volume v = volume(p);
    return common::grid_3d(v.nx, v.ny, v.nz, b);
  };
  k.buffers = buffers();
  k.reference = reference;
  k.tolerance = {0.0, 0.0}; // (a + b) + c in float, in the kernel's order: bit-identical
  k.bytes_moved = [](const Params& p) {
    const Volume v = volume(p);
    return 4.0 * static_cast<double>(2 * v.count() + v.plane() +
                                     v.nx); // a, b, c read once; out written once
  };
  k.flops = [](const Params& p) { return 2.0 * static_cast<double>(volume(p).count()); };
  k.sites = sites();
  k.test_sizes = {{{"nx", 67}, {"ny", 45}, {"nz", 13}},
                  {{"nx", 5}, {"ny", 3}, {"nz", 2}},
                  {{"nx", 33}, {"ny", 17}, {"nz", 9}},
                  {{"nx", 1}, {"ny", 1}, {"nz", 1}}};
  k.symbol = [](const Params&) { return std::string("wl::broadcast_add_xyz"); };
#if WL_DEVICE_CODE
  k.function = [](const Params&) { return reinterpret_cast<const void*>(broadcast_add_xyz); };
  k.launch = [](const DeviceLaunch& l) {
    const Volume v = volume(l.shape.params);
    broadcast_add_xyz<<<to_dim3(l.shape.grid), to_dim3(l.shape.block), 0, stream_of(l)>>>(
        buffer<const float>(l, kA), buffer<const float>(l, kB), buffer<const float>(l, kC),
        buffer<float>(l, kOut), v.nx, v.ny, v.nz);
  };
#endif
  return k;
}

} // namespace

std::vector<KernelDesc> broadcast_add_kernels() { return {xyz()}; }

} // namespace wl
