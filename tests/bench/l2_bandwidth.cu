// L2 read bandwidth, for the presets' L2 roof: every SM's warps read a buffer that fits in L2
// again and again with loads that skip L1 (ld.global.cg), so each byte crosses from L2 to an SM.
// The figure is the best of a few buffer sizes: small enough to stay in L2, large enough that
// every L2 slice serves its share.

#include "l2_bandwidth.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime.h>

namespace wl {

namespace {

__global__ void read_through_l2(const float4* data, std::int64_t float4s, int passes, float* sink) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  float sum = 0;
  for (int pass = 0; pass < passes; ++pass)
#pragma unroll 4
    for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < float4s;
         i += stride) {
      const float4 v = __ldcg(data + i);
      sum += v.x + v.y + v.z + v.w;
    }
  if (sum == 12345.678f) // never true for the zeros read; keeps the loads from being removed
    *sink = sum;
}

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

} // namespace

double median_event_ms(const std::function<void()>& enqueue, int samples, int warm_ups) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> times;
  for (int i = 0; i < warm_ups + samples; ++i) {
    cudaEventRecord(start);
    enqueue();
    cudaEventRecord(stop);
    check(cudaEventSynchronize(stop), "a timed launch");
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    if (i >= warm_ups)
      times.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

L2Bandwidth l2_read_bandwidth(std::int64_t bytes) {
  const std::int64_t float4s = bytes / 16;
  float4* data = nullptr;
  float* sink = nullptr;
  check(cudaMalloc(&data, float4s * 16), "cudaMalloc");
  check(cudaMalloc(&sink, sizeof(float)), "cudaMalloc");
  check(cudaMemset(data, 0, float4s * 16), "cudaMemset");
  int sms = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "attribute");
  constexpr int kThreads = 512, kBlocksPerSm = 4, kPasses = 100;
  // The first launches warm L2 and the clocks.
  const double median_ms = median_event_ms(
      [&] { read_through_l2<<<sms * kBlocksPerSm, kThreads>>>(data, float4s, kPasses, sink); }, 10,
      3);
  cudaFree(data);
  cudaFree(sink);
  return {median_ms, double(float4s) * 16 * kPasses / (median_ms * 1e-3) / 1e9};
}

} // namespace wl
