#include "engine/cuda_check.h"
#include "engine/device_compare.h"

#include <cstring>

#include <cuda_runtime.h>

namespace wl {

namespace {

struct Tally {
  unsigned long long mismatches;
  unsigned long long first_bad;
  unsigned int max_abs_error_bits; // a non-negative float's bits order like the float
};

__global__ void compare_kernel(const std::uint32_t* got, const std::uint32_t* want,
                               std::int64_t count, bool is_float, float absolute, float relative,
                               Tally* tally) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  // The largest error is kept per thread and merged once per warp: one atomic per element on a
  // single address would serialise the whole comparison.
  unsigned int max_error_bits = 0;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    bool ok;
    if (is_float) {
      const float g = __uint_as_float(got[i]), w = __uint_as_float(want[i]);
      const float error = fabsf(g - w);
      ok = isfinite(g) ? error <= absolute + relative * fabsf(w) : (isinf(g) && g == w);
      if (isfinite(error))
        max_error_bits = max(max_error_bits, __float_as_uint(error));
    } else {
      ok = got[i] == want[i];
    }
    if (!ok) {
      atomicAdd(&tally->mismatches, 1ull);
      atomicMin(&tally->first_bad, static_cast<unsigned long long>(i));
    }
  }
  for (int offset = 16; offset > 0; offset /= 2)
    max_error_bits = max(max_error_bits, __shfl_down_sync(0xffffffffu, max_error_bits, offset));
  if (threadIdx.x % 32 == 0 && max_error_bits > 0)
    atomicMax(&tally->max_abs_error_bits, max_error_bits);
}

} // namespace

DeviceComparison compare_on_device(const void* got, const void* want, std::int64_t count,
                                   bool is_float, double absolute, double relative,
                                   void* stream_handle) {
  const auto stream = static_cast<cudaStream_t>(stream_handle);
  Tally* tally = nullptr;
  cuda_check(cudaMallocAsync(&tally, sizeof(Tally), stream), "cudaMallocAsync(compare)");
  const Tally start{0, ~0ull, 0};
  cuda_check(cudaMemcpyAsync(tally, &start, sizeof start, cudaMemcpyHostToDevice, stream),
             "cudaMemcpyAsync(compare)");
  compare_kernel<<<1024, 256, 0, stream>>>(
      static_cast<const std::uint32_t*>(got), static_cast<const std::uint32_t*>(want), count,
      is_float, static_cast<float>(absolute), static_cast<float>(relative), tally);
  cuda_check(cudaGetLastError(), "compare kernel launch");
  Tally result{};
  cuda_check(cudaMemcpyAsync(&result, tally, sizeof result, cudaMemcpyDeviceToHost, stream),
             "cudaMemcpyAsync(compare)");
  cuda_check(cudaFreeAsync(tally, stream), "cudaFreeAsync(compare)");
  cuda_check(cudaStreamSynchronize(stream), "compare");
  DeviceComparison c;
  c.mismatches = static_cast<std::int64_t>(result.mismatches);
  c.first_bad = result.mismatches ? static_cast<std::int64_t>(result.first_bad) : -1;
  float max_error = 0;
  static_assert(sizeof max_error == sizeof result.max_abs_error_bits);
  std::memcpy(&max_error, &result.max_abs_error_bits, sizeof max_error);
  c.max_abs_error = max_error;
  return c;
}

} // namespace wl
