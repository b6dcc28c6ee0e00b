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

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Any 1D block of 1 to 1024 threads.
inline std::string check_1d_block(const BlockShape& block) {
  if (block.y != 1 || block.z != 1)
    return "this kernel indexes with blockIdx.x * blockDim.x + threadIdx.x, so its block is 1D (X only)";
  if (block.x > 1024) return "a block holds at most 1024 threads";
  return "";
}

// One thread per element in x: ceil(count / block.x) blocks.
inline BlockShape grid_1d(std::int64_t count, const BlockShape& block) {
  return BlockShape{static_cast<int>(ceil_div(count, block.x)), 1, 1};
}

// Every f32 input uniform in [-1, 1) from one seeded generator, in buffer order.
inline void fill_uniform(HostBuffers& buffers, const std::vector<BufferSpec>& specs, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (std::size_t i = 0; i < specs.size(); ++i)
    if (specs[i].role == BufferRole::input && specs[i].type == ElementType::f32)
      for (float& v : std::span<float>(buffers[i].f32(), buffers[i].words.size())) v = dist(rng);
}

// Zero-filled outputs shaped like the buffers (inputs left empty), for a reference to write into.
inline HostBuffers outputs_like(const HostBuffers& buffers, const std::vector<BufferSpec>& specs) {
  HostBuffers out(buffers.size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    out[i].type = specs[i].type;
    if (specs[i].role == BufferRole::output) out[i].words.assign(buffers[i].words.size(), 0);
  }
  return out;
}

} // namespace wl::common
