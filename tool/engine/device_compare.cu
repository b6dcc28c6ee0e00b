#include "engine/cuda_check.h"
#include "engine/device_compare.h"

#include <cstring>
#include <type_traits>

#include <cuda_runtime.h>

namespace wl {

namespace {

struct Tally {
  unsigned long long mismatches;
  unsigned long long first_bad;
  unsigned int max_abs_error_bits; // a non-negative float's bits order like the float
};

// Whether `got` is within the tolerance of `want`; `error` is the absolute error when finite.
template <typename Real>
__device__ bool close_enough(Real got, Real want, double absolute, double relative, double& error) {
  error = fabs(static_cast<double>(got) - static_cast<double>(want));
  return isfinite(got) ? error <= absolute + relative * fabs(static_cast<double>(want))
                       : (isinf(got) && got == want);
}

template <typename Element>
__global__ void compare_kernel(const Element* got, const Element* want, std::int64_t count,
                               double absolute, double relative, Tally* tally) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  // The largest error is kept per thread and merged once per warp: one atomic per element on a
  // single address would serialise the whole comparison.
  unsigned int max_error_bits = 0;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    bool ok;
    if constexpr (std::is_floating_point_v<Element>) {
      double error = 0;
      ok = close_enough(got[i], want[i], absolute, relative, error);
      if (isfinite(error))
        max_error_bits = max(max_error_bits, __float_as_uint(static_cast<float>(error)));
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

template <typename Element>
void launch_compare(const void* got, const void* want, std::int64_t count, double absolute,
                    double relative, Tally* tally, cudaStream_t stream) {
  compare_kernel<<<1024, 256, 0, stream>>>(static_cast<const Element*>(got),
                                           static_cast<const Element*>(want), count, absolute,
                                           relative, tally);
}

} // namespace

DeviceComparison compare_on_device(const void* got, const void* want, std::int64_t count,
                                   ElementType type, double absolute, double relative,
                                   void* stream_handle) {
  const auto stream = static_cast<cudaStream_t>(stream_handle);
  Tally* tally = nullptr;
  cuda_check(cudaMallocAsync(&tally, sizeof(Tally), stream), "cudaMallocAsync(compare)");
  const Tally start{0, ~0ull, 0};
  cuda_check(cudaMemcpyAsync(tally, &start, sizeof start, cudaMemcpyHostToDevice, stream),
             "cudaMemcpyAsync(compare)");
  switch (type) {
  case ElementType::f32:
    launch_compare<float>(got, want, count, absolute, relative, tally, stream);
    break;
  case ElementType::f64:
    launch_compare<double>(got, want, count, absolute, relative, tally, stream);
    break;
  case ElementType::i32:
  case ElementType::u32:
    launch_compare<std::uint32_t>(got, want, count, absolute, relative, tally, stream);
    break;
  }
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
