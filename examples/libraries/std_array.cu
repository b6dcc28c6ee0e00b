// cuda::std in device code: a type trait picks the accumulator (double for a float input, as
// cuda::std::conditional says), a cuda::std::array holds each thread's four elements, and
// cuda::std::numeric_limits starts the running maximum. One thread per four elements.
//
// @warplens kernel max_of_four
// @warplens size n = 1 << 22
// @warplens restrict block.y == 1 && block.z == 1
// @warplens arg in: in float[n] random(-100, 100)
// @warplens arg out: out float[ceil_div(n, 4)]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(ceil_div(n, 4), block.x)
// @warplens check max_of_four_reference 0
// @warplens bytes n * 4 + ceil_div(n, 4) * 4

#include <cuda/std/array>
#include <cuda/std/limits>
#include <cuda/std/type_traits>

template <typename T>
using Wider = cuda::std::conditional_t<cuda::std::is_same_v<T, float>, double, T>;

__global__ void max_of_four(const float* in, float* out, int n) {
  static_assert(cuda::std::is_floating_point_v<float>, "a float is a floating-point type");
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (4 * i >= n)
    return;
  cuda::std::array<float, 4> four{};
  for (int k = 0; k < 4; ++k)
    four[k] = 4 * i + k < n ? in[4 * i + k] : -cuda::std::numeric_limits<float>::infinity();
  Wider<float> best = -cuda::std::numeric_limits<Wider<float>>::infinity();
  for (const float value : four)
    best = value > best ? value : best;
  out[i] = static_cast<float>(best);
}

__global__ void max_of_four_reference(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (4 * i >= n)
    return;
  float best = -INFINITY;
  for (int k = 0; k < 4 && 4 * i + k < n; ++k)
    best = fmaxf(best, in[4 * i + k]);
  out[i] = best;
}
