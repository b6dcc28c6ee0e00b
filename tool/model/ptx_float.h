#pragma once
// Floating-point conversions the PTX model needs and the host lacks: half and bfloat16 bits,
// and rounding an exact value to a narrower format in any of PTX's rounding modes. Shared by
// the parser (typed immediates and initializers) and the machine (cvt, f16 arithmetic, .rz/.rm/
// .rp arithmetic). An exact value is a long double: its 64-bit mantissa holds every double and
// every 64-bit integer.

#include "model/ptx_program.h"

#include <cmath>
#include <cstdint>

namespace wl::ptx_float {

// An f32 subnormal as the .ftz forms and the shared-memory float atomics give it: a zero of its
// sign.
inline float flush_subnormal(float v) {
  return std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(0.0f, v) : v;
}

float half_to_float(std::uint16_t bits);
float bf16_to_float(std::uint16_t bits);

// `value` rounded to `format` (f16, bf16, f32 or f64) in `mode` (none means rn); the result is
// exactly representable in the format (or an infinity). `tail` says which side of `value` the
// true value lies by less than an ulp of a long double (for sums split by TwoSum): -1, 0, +1.
long double round_to_format(long double value, PtxType format, PtxRound mode, int tail = 0);

// The bits of `value` in `format`, rounded as above; NaN gives the GPU's canonical NaN.
std::uint64_t to_format_bits(long double value, PtxType format, PtxRound mode, int tail = 0);

// The value of `bits` in `format` (f16, bf16, f32, f64), exactly.
long double from_format_bits(std::uint64_t bits, PtxType format);

// A literal of a typed operand: the integer (two's complement), f32 bits or f64 bits as written,
// converted to the bits `type` holds (float types convert the value; others keep the bits).
std::uint64_t integer_literal_bits(std::uint64_t value, PtxType type);
std::uint64_t f32_literal_bits(std::uint32_t bits, PtxType type);
std::uint64_t f64_literal_bits(std::uint64_t bits, PtxType type);
std::uint64_t decimal_literal_bits(double value, PtxType type);

} // namespace wl::ptx_float
