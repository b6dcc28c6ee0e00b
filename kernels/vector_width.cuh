#pragma once
// Kernels templated on the bytes each thread moves per access (4, 8 or 16): the vector type for
// that width, element-wise addition for it, and picking the template instance from a runtime
// `width` parameter.

#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

namespace wl {

template <int Width> struct VectorOfWidth;
template <> struct VectorOfWidth<4> { using type = float; };
template <> struct VectorOfWidth<8> { using type = float2; };
template <> struct VectorOfWidth<16> { using type = float4; };

// float, float2 or float4: one load or store of Width bytes.
template <int Width> using VectorOf = typename VectorOfWidth<Width>::type;

__host__ __device__ inline float vector_add(float a, float b) { return a + b; }
__host__ __device__ inline float2 vector_add(float2 a, float2 b) {
  return make_float2(a.x + b.x, a.y + b.y);
}
__host__ __device__ inline float4 vector_add(float4 a, float4 b) {
  return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

template <typename T> __host__ __device__ inline T vector_zero() { return T{}; }

// Calls visit(std::integral_constant<int, W>{}) for the width parameter's value (4, 8 or 16), so
// a descriptor can name the matching template instance. check_params has already refused others.
template <typename Visit> auto with_width(std::int64_t width, Visit visit) {
  switch (width) {
  case 8:
    return visit(std::integral_constant<int, 8>{});
  case 16:
    return visit(std::integral_constant<int, 16>{});
  default:
    return visit(std::integral_constant<int, 4>{});
  }
}

} // namespace wl
