#pragma once
// Turns a failed CUDA call into a DeviceError naming the call and the runtime's reason.

#include "base/error.h"
#include "engine/library.h"

#include <string>

#include <cuda_runtime.h>

namespace wl {

inline void cuda_check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw DeviceError(std::string(what) + " failed: " + cudaGetErrorString(status) + " (" +
                      cudaGetErrorName(status) + ")");
}

} // namespace wl
