#pragma once
// Index math of the vec_add family: which element each thread touches.

#include "hd.h"

#include <cstdint>

namespace wl::vec_add {

// One element (or one float4) per thread: thread t of block b handles element b * blockDim + t.
WL_HD std::int64_t element(int block, int block_dim, int thread) {
  return static_cast<std::int64_t>(block) * block_dim + thread;
}

// Grid-stride loop: in iteration k, the thread handles the float4 at first + k * grid threads.
WL_HD std::int64_t grid_stride_element(int block, int block_dim, int thread, int grid_dim,
                                       std::int64_t k) {
  return element(block, block_dim, thread) + k * static_cast<std::int64_t>(grid_dim) * block_dim;
}

} // namespace wl::vec_add
