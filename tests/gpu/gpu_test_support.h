#pragma once
// For gpu tests: whether this machine has a usable CUDA device (tests skip, not fail, without).

#include <cuda_runtime.h>

namespace wl::test {

inline bool have_gpu() {
  int count = 0;
  const bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError(); // the failure is not sticky; leave no error behind for the next call
  return ok;
}

} // namespace wl::test
