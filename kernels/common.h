#pragma once
// Small pieces most kernel descriptors share: fixed widths and trip counts, the usual block
// rules, 1D grids, seeded fills and element-wise references.

#include "device_code.h"
#include "kernel.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace wl::common {

inline std::function<int(const Params&)> fixed_width(int bytes) {
  return [bytes](const Params&) { return bytes; };
}

inline std::function<std::int64_t(const LaunchShape&)> single_iteration() {
  return [](const LaunchShape&) { return std::int64_t{1}; };
}

// A site's lane offsets from values read from the launch once: `read(launch)` makes them (a
// small struct), `offset(values, block, thread, iteration)` is one lane's offset.
template <typename Read, typename Offset>
std::function<LaneOffsets(const LaunchShape&)> bound_offsets(Read read, Offset offset) {
  return [read, offset](const LaunchShape& s) -> LaneOffsets {
    return [values = read(s), offset](Coord b, Coord t, std::int64_t it) {
      return offset(values, b, t, it);
    };
  };
}

// A site whose lane offsets read nothing from the launch but the thread's own index.
template <typename Offset>
std::function<LaneOffsets(const LaunchShape&)> fixed_offsets(Offset offset) {
  return [offset](const LaunchShape&) -> LaneOffsets { return offset; };
}

// The block's width, for sites whose lanes read only that from the launch.
inline int block_width(const LaunchShape& s) { return s.block.x; }

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Any 1D block of 1 to 1024 threads.
inline std::string check_1d_block(const BlockShape& block) {
  if (block.y != 1 || block.z != 1)
    return "this kernel indexes with blockIdx.x * blockDim.x + threadIdx.x, so its block is 1D (X "
           "only)";
  if (block.x > 1024)
    return "a block holds at most 1024 threads";
  return "";
}

// A 1D block whose threads a shared-memory tree halves at every step.
inline std::string check_power_of_two_block(const BlockShape& block) {
  if (const std::string reason = check_1d_block(block); !reason.empty())
    return reason;
  if (block.x < 32 || (block.x & (block.x - 1)) != 0)
    return "the tree halves the working threads each step, so the block is a power of two from 32 "
           "to 1024 threads";
  return "";
}

// A 1D block of whole warps; `why` says what the kernel does with each warp.
inline std::string check_whole_warps(const BlockShape& block, const std::string& why) {
  if (const std::string reason = check_1d_block(block); !reason.empty())
    return reason;
  if (block.x < 32 || block.x % 32 != 0)
    return why + ", so the block is a multiple of 32 threads";
  return "";
}

// Any block the hardware takes: at most 1024 threads and 64 in z.
inline std::string check_3d_block(const BlockShape& block) {
  if (block.threads() > 1024)
    return "a block holds at most 1024 threads";
  if (block.z > 64)
    return "blockDim.z is at most 64";
  return "";
}

// One thread per element in x: ceil(count / block.x) blocks.
inline BlockShape grid_1d(std::int64_t count, const BlockShape& block) {
  return BlockShape{static_cast<int>(ceil_div(count, block.x)), 1, 1};
}

// One thread per element of an nx x ny x nz volume: ceil(side / block side) blocks on each axis.
inline BlockShape grid_3d(std::int64_t nx, std::int64_t ny, std::int64_t nz,
                          const BlockShape& block) {
  return BlockShape{static_cast<int>(ceil_div(nx, block.x)),
                    static_cast<int>(ceil_div(ny, block.y)),
                    static_cast<int>(ceil_div(nz, block.z))};
}

// 64 bits from a hash of (seed, index) (splitmix64): reproducible for a seed, and the same
// whatever order the elements are made in.
inline std::uint64_t hashed_bits(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t x = seed + 0x9e3779b97f4a7c15ull * (index + 1);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Uniform in [lo, hi) from hashed_bits.
inline float hashed_uniform(std::uint64_t seed, std::uint64_t index, float lo, float hi) {
  const std::uint64_t x = hashed_bits(seed, index);
  const float value = lo + (hi - lo) * (static_cast<float>(x >> 40) / 16777216.0f);
  return std::min(value, std::nextafter(hi, lo)); // rounding may reach hi
}

// `count` values uniform in [lo, hi), filled in parallel slices: the same values as one pass,
// several times faster for the 10^8 elements the large default sizes need.
inline void fill_hashed(float* values, std::int64_t count, std::uint64_t seed, float lo, float hi) {
  const auto fill = [=](std::int64_t begin, std::int64_t end) {
    for (std::int64_t e = begin; e < end; ++e)
      values[e] = hashed_uniform(seed, static_cast<std::uint64_t>(e), lo, hi);
  };
  constexpr std::int64_t kPerThread = 1 << 20;
  const std::int64_t threads = std::clamp<std::int64_t>(
      count / kPerThread, 1, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::jthread> workers;
  for (std::int64_t t = 1; t < threads; ++t)
    workers.emplace_back(fill, count * t / threads, count * (t + 1) / threads);
  fill(0, count / threads);
}

// Every f32 input uniform in [-1, 1), buffer i from seed + i * 2^48.
inline void fill_uniform(HostBuffers& buffers, const std::vector<BufferSpec>& specs,
                         std::uint64_t seed) {
  for (std::size_t i = 0; i < specs.size(); ++i)
    if (specs[i].role == BufferRole::input && specs[i].type == ElementType::f32)
      fill_hashed(buffers[i].f32(), buffers[i].size(), seed + (std::uint64_t{i} << 48), -1.0f,
                  1.0f);
}

// Zero-filled outputs shaped like the buffers (inputs left empty), for a reference to write into.
inline HostBuffers outputs_like(const HostBuffers& buffers, const std::vector<BufferSpec>& specs) {
  HostBuffers out(buffers.size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    out[i].type = specs[i].type;
    if (specs[i].role == BufferRole::output)
      out[i].words.assign(buffers[i].words.size(), 0);
  }
  return out;
}

// c = a + b element by element: the reference of the vector adds.
inline Expected add_reference(const HostBuffers& in, const std::vector<BufferSpec>& specs, int a,
                              int b, int c) {
  Expected e{outputs_like(in, specs), {}, ""};
  float* out = e.values[c].f32();
  for (std::int64_t i = 0; i < in[a].size(); ++i)
    out[i] = in[a].f32()[i] + in[b].f32()[i];
  return e;
}

} // namespace wl::common
