#include "engine/cuda_check.h"
#include "engine/l2_flush.h"

#include <cuda_runtime.h>

namespace wl {

namespace {

// Reads every element; the sum is written only if it hits an impossible value, so the reads
// cannot be optimised away and nothing dirties L2.
__global__ void read_all(const float4* buffer, std::size_t count, float* sink) {
  float sum = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const float4 v = buffer[i];
    sum += v.x + v.y + v.z + v.w;
  }
  if (sum == -1.0f)
    *sink = sum;
}

} // namespace

L2Flusher::L2Flusher() {
  int device = 0, bytes = 0;
  cuda_check(cudaGetDevice(&device), "cudaGetDevice");
  cuda_check(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device),
             "cudaDeviceGetAttribute(L2)");
  m_floats = 2 * static_cast<std::size_t>(bytes) / sizeof(float);
  if (m_floats == 0)
    return;
  cuda_check(cudaMalloc(&m_buffer, m_floats * sizeof(float)), "cudaMalloc(L2 flush buffer)");
  cuda_check(cudaMalloc(&m_sink, sizeof(float)), "cudaMalloc(L2 flush sink)");
  cuda_check(cudaMemset(m_buffer, 0, m_floats * sizeof(float)), "cudaMemset(L2 flush buffer)");
}

L2Flusher::~L2Flusher() {
  cudaFree(m_buffer);
  cudaFree(m_sink);
}

void L2Flusher::flush(void* stream) {
  if (m_floats == 0)
    return;
  read_all<<<1024, 256, 0, static_cast<cudaStream_t>(stream)>>>(
      reinterpret_cast<const float4*>(m_buffer), m_floats / 4, m_sink);
  cuda_check(cudaGetLastError(), "L2 flush");
}

} // namespace wl
