// Rounding exact values to f16, bf16, f32 and f64 (see ptx_float.h). The method: scale the value
// so its last kept bit is the units digit, round that to an integer in the mode, scale back.
// Scaling by a power of two is exact in long double, so only the one rounding happens.

#include "model/ptx_float.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace wl::ptx_float {
namespace {

struct Format {
  int precision;    // mantissa bits, the leading one included
  int min_exponent; // of the smallest normal number
  int max_exponent; // of the largest finite number
};

Format format_of(PtxType type) {
  switch (type) {
  case PtxType::f16:
  case PtxType::f16x2:
    return {11, -14, 15};
  case PtxType::bf16:
  case PtxType::bf16x2:
    return {8, -126, 127};
  case PtxType::f64:
    return {53, -1022, 1023};
  default:
    return {24, -126, 127};
  }
}

long double round_integer(long double m, PtxRound mode) {
  switch (mode) {
  case PtxRound::rz:
  case PtxRound::rzi:
    return std::trunc(m);
  case PtxRound::rm:
  case PtxRound::rmi:
    return std::floor(m);
  case PtxRound::rp:
  case PtxRound::rpi:
    return std::ceil(m);
  default:
    return std::nearbyint(m); // ties to even in the default environment
  }
}

// The rounded scaled value r of m, corrected for a tail below m's last bit. A step down in
// magnitude from the binade's first value lands on the finer quantum below (`down`: 0.5 there).
long double with_tail(long double m, long double r, PtxRound mode, int tail, long double down) {
  if (tail == 0)
    return r;
  if (r == m) { // m exact: only a directed mode moves off it, towards the tail
    const bool towards_zero = (tail > 0) != (m > 0);
    if ((mode == PtxRound::rz && towards_zero) || (mode == PtxRound::rm && tail < 0) ||
        (mode == PtxRound::rp && tail > 0)) {
      const long double step = towards_zero ? down : 1.0L;
      return tail > 0 ? r + step : r - step;
    }
    return r;
  }
  const long double frac = m - std::floor(m);
  if ((mode == PtxRound::rn || mode == PtxRound::none) && frac == 0.5L) // a tie the tail breaks
    return tail > 0 ? std::ceil(m) : std::floor(m);
  return r;
}

long double overflowed(long double value, const Format& f, PtxRound mode) {
  const long double max_finite =
      std::scalbn(std::scalbn(1.0L, f.precision) - 1, f.max_exponent - f.precision + 1);
  if (std::fabs(value) <= max_finite)
    return value;
  const long double inf = std::numeric_limits<long double>::infinity();
  const bool positive = value > 0;
  switch (mode) {
  case PtxRound::rz:
    return positive ? max_finite : -max_finite;
  case PtxRound::rm:
    return positive ? max_finite : -inf;
  case PtxRound::rp:
    return positive ? inf : -max_finite;
  default:
    return positive ? inf : -inf;
  }
}

std::uint16_t half_bits(float value) { // value exactly representable in f16, or infinite
  const std::uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  const float a = std::fabs(value);
  if (std::isinf(a))
    return sign | 0x7c00;
  if (a == 0)
    return sign;
  const int e = std::ilogb(a);
  if (e < -14)
    return sign | static_cast<std::uint16_t>(std::scalbn(a, 24));
  const auto mantissa = static_cast<std::uint16_t>(std::scalbn(a, 10 - e) - 1024);
  return sign | static_cast<std::uint16_t>((e + 15) << 10) | mantissa;
}

} // namespace

float half_to_float(std::uint16_t bits) {
  const float sign = (bits & 0x8000) ? -1.0f : 1.0f;
  const int exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  if (exponent == 0x1f)
    return mantissa ? std::numeric_limits<float>::quiet_NaN()
                    : sign * std::numeric_limits<float>::infinity();
  if (exponent == 0)
    return sign * std::scalbn(static_cast<float>(mantissa), -24);
  return sign * std::scalbn(static_cast<float>(mantissa + 1024), exponent - 25);
}

float bf16_to_float(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

long double round_to_format(long double value, PtxType format, PtxRound mode, int tail) {
  if (value == 0 || !std::isfinite(value))
    return value;
  const Format f = format_of(format);
  const int e = std::ilogb(value);
  const int q = (e > f.min_exponent ? e : f.min_exponent) - (f.precision - 1);
  const long double m = std::scalbn(value, -q);
  const bool binade_start =
      e > f.min_exponent && std::fabs(m) == std::scalbn(1.0L, f.precision - 1);
  const long double r =
      with_tail(m, round_integer(m, mode), mode, tail, binade_start ? 0.5L : 1.0L);
  return overflowed(std::scalbn(r, q), f, mode);
}

std::uint64_t to_format_bits(long double value, PtxType format, PtxRound mode, int tail) {
  if (std::isnan(value)) {
    switch (format) {
    case PtxType::f64:
      return 0x7fffffffffffffffull;
    case PtxType::f32:
      return 0x7fffffffu;
    default:
      return 0x7fffu;
    }
  }
  const long double r = round_to_format(value, format, mode, tail);
  switch (format) {
  case PtxType::f64:
    return std::bit_cast<std::uint64_t>(static_cast<double>(r));
  case PtxType::f16:
  case PtxType::f16x2:
    return half_bits(static_cast<float>(r));
  case PtxType::bf16:
  case PtxType::bf16x2:
    return std::bit_cast<std::uint32_t>(static_cast<float>(r)) >> 16;
  default:
    return std::bit_cast<std::uint32_t>(static_cast<float>(r));
  }
}

long double from_format_bits(std::uint64_t bits, PtxType format) {
  switch (format) {
  case PtxType::f64:
    return std::bit_cast<double>(bits);
  case PtxType::f16:
  case PtxType::f16x2:
    return half_to_float(static_cast<std::uint16_t>(bits));
  case PtxType::bf16:
  case PtxType::bf16x2:
    return bf16_to_float(static_cast<std::uint16_t>(bits));
  default:
    return std::bit_cast<float>(static_cast<std::uint32_t>(bits));
  }
}

std::uint64_t integer_literal_bits(std::uint64_t value, PtxType type) {
  if (!ptx_type_is_float(type))
    return value;
  return to_format_bits(static_cast<long double>(static_cast<std::int64_t>(value)), type,
                        PtxRound::rn);
}

std::uint64_t f32_literal_bits(std::uint32_t bits, PtxType type) {
  if (!ptx_type_is_float(type) || type == PtxType::f32)
    return bits;
  return to_format_bits(std::bit_cast<float>(bits), type, PtxRound::rn);
}

std::uint64_t f64_literal_bits(std::uint64_t bits, PtxType type) {
  if (!ptx_type_is_float(type) || type == PtxType::f64)
    return bits;
  return to_format_bits(std::bit_cast<double>(bits), type, PtxRound::rn);
}

std::uint64_t decimal_literal_bits(double value, PtxType type) {
  if (ptx_type_is_float(type))
    return to_format_bits(value, type, PtxRound::rn);
  if (!(value > -9.3e18 && value < 9.3e18))
    return 0;
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(value));
}

} // namespace wl::ptx_float
