#pragma once
// CUDA-side helpers for launchers: shapes as dim3, the stream, typed buffer pointers.

#include "kernel.h"

#include <cuda_runtime.h>

namespace wl {

inline dim3 to_dim3(const BlockShape& s) { return dim3(s.x, s.y, s.z); }

inline cudaStream_t stream_of(const DeviceLaunch& l) { return static_cast<cudaStream_t>(l.stream); }

template <typename T> T* buffer(const DeviceLaunch& l, int index) {
  return static_cast<T*>(l.buffers.at(index));
}

} // namespace wl
