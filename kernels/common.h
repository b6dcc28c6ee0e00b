#pragma once
// Small pieces most kernel descriptors share: fixed widths and trip counts, the usual block
// rules, 1D grids, seeded fills and element-wise references.

#include "kernel.h"

#include <cstdint>
#include <random>
#include <span>
#include <string>

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

// Every f32 input uniform in [-1, 1) from one seeded generator, in buffer order.
inline void fill_uniform(HostBuffers& buffers, const std::vector<BufferSpec>& specs,
                         std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (std::size_t i = 0; i < specs.size(); ++i)
    if (specs[i].role == BufferRole::input && specs[i].type == ElementType::f32)
      for (float& v : std::span<float>(buffers[i].f32(), buffers[i].words.size()))
        v = dist(rng);
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
