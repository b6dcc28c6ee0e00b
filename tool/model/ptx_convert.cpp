// cvt: between integer widths and signs (.sat clamps), integers and floats (float to integer
// rounds by .rni/.rzi/.rmi/.rpi and saturates, NaN giving 0, as PTX says), and float formats
// (f64, f32, f16, bf16, in any rounding mode, with .ftz, .sat and .relu). The exact value of
// the source is a long double, rounded once to the destination (ptx_float.h); the conversions
// address code uses most (integer widths, s32 <-> f32) have their own fast handlers.

#include "model/ptx_float.h"
#include "model/ptx_state.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace wl::ptx_detail {
namespace {

bool is_int(PtxType t) {
  return !ptx_type_is_float(t) && t != PtxType::pred && t != PtxType::none && t != PtxType::b128;
}

std::int64_t sign_extend(std::uint64_t v, int bytes) {
  const int shift = 64 - 8 * bytes;
  return static_cast<std::int64_t>(v << shift) >> shift;
}

// The integer value of a source lane, exactly.
__int128 int_value(std::uint64_t bits, PtxType t) {
  const int bytes = ptx_type_bytes(t);
  if (ptx_type_is_signed(t))
    return sign_extend(bits, bytes);
  return bits & width_mask(bytes);
}

__int128 int_min(PtxType t) {
  return ptx_type_is_signed(t) ? -(static_cast<__int128>(1) << (8 * ptx_type_bytes(t) - 1)) : 0;
}
__int128 int_max(PtxType t) {
  const int bits = 8 * ptx_type_bytes(t) - (ptx_type_is_signed(t) ? 1 : 0);
  return (static_cast<__int128>(1) << bits) - 1;
}

std::uint64_t int_to_int(const PtxInstruction& in, std::uint64_t a) {
  __int128 v = int_value(a, in.type2);
  if (in.flags & kPtxSat)
    v = std::clamp(v, int_min(in.type), int_max(in.type));
  return static_cast<std::uint64_t>(v) & width_mask(ptx_type_bytes(in.type));
}

long double source_value(const PtxInstruction& in, std::uint64_t a) {
  long double v = ptx_float::from_format_bits(a, in.type2);
  if ((in.flags & kPtxFtz) && in.type2 == PtxType::f32 &&
      std::fpclassify(static_cast<float>(v)) == FP_SUBNORMAL)
    v = std::copysign(0.0L, v);
  return v;
}

long double round_integral(long double v, PtxRound mode) {
  switch (mode) {
  case PtxRound::rni:
    return std::nearbyint(v);
  case PtxRound::rmi:
    return std::floor(v);
  case PtxRound::rpi:
    return std::ceil(v);
  default:
    return std::trunc(v);
  }
}

std::uint64_t float_to_int(const PtxInstruction& in, std::uint64_t a) {
  const long double v = source_value(in, a);
  if (std::isnan(v))
    return 0;
  const long double r = round_integral(v, in.round);
  const long double lo = static_cast<long double>(int_min(in.type));
  const long double hi = static_cast<long double>(int_max(in.type)); // exact: 2^n - 1 fits
  const __int128 value = r <= lo   ? int_min(in.type)
                         : r >= hi ? int_max(in.type)
                                   : static_cast<__int128>(r);
  return static_cast<std::uint64_t>(value) & width_mask(ptx_type_bytes(in.type));
}

std::uint64_t to_float(const PtxInstruction& in, long double v, PtxType dest) {
  const bool integral = in.round == PtxRound::rni || in.round == PtxRound::rzi ||
                        in.round == PtxRound::rmi || in.round == PtxRound::rpi;
  if (integral && !std::isnan(v))
    v = round_integral(v, in.round);
  const PtxRound mode = integral || in.round == PtxRound::none ? PtxRound::rn : in.round;
  std::uint64_t bits = ptx_float::to_format_bits(v, dest, mode);
  long double r = ptx_float::from_format_bits(bits, dest);
  bool changed = false;
  if ((in.flags & kPtxFtz) && dest == PtxType::f32 &&
      std::fpclassify(static_cast<float>(r)) == FP_SUBNORMAL)
    r = std::copysign(0.0L, r), changed = true;
  if ((in.flags & kPtxSat) && !(r > 0 && r <= 1)) // NaN and -0 become +0
    r = std::isnan(r) || r == 0 ? 0 : std::clamp(r, 0.0L, 1.0L), changed = true;
  if ((in.flags & kPtxRelu) && (r < 0 || std::isnan(r)))
    r = 0, changed = true;
  return changed ? ptx_float::to_format_bits(r, dest, PtxRound::rn) : bits;
}

// A NaN widened from f32 to f64 or from bf16 to f32 keeps its payload; every other conversion
// of a NaN gives the canonical one (as the H200 does).
std::uint64_t nan_bits(const PtxInstruction& in, std::uint64_t a) {
  if (in.type == PtxType::f64 && in.type2 == PtxType::f32)
    return std::bit_cast<std::uint64_t>(
        static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(a))));
  if (in.type == PtxType::f32 && in.type2 == PtxType::bf16)
    return (a & 0xffff) << 16;
  return ptx_float::to_format_bits(std::numeric_limits<long double>::quiet_NaN(), in.type,
                                   PtxRound::rn);
}

std::uint64_t convert(const PtxInstruction& in, std::uint64_t a) {
  if (is_int(in.type) && is_int(in.type2))
    return int_to_int(in, a);
  if (is_int(in.type))
    return float_to_int(in, a);
  if (!is_int(in.type2) && std::isnan(ptx_float::from_format_bits(a, in.type2)) &&
      !(in.flags & (kPtxSat | kPtxRelu)))
    return nan_bits(in, a);
  const long double v =
      is_int(in.type2) ? static_cast<long double>(int_value(a, in.type2)) : source_value(in, a);
  return to_float(in, v, in.type);
}

// An integer result in a register wider than its type is extended as the type's sign says.
std::uint64_t to_register(std::uint64_t value, PtxType type, std::uint64_t register_mask) {
  if (!is_int(type) || !ptx_type_is_signed(type))
    return value & register_mask;
  return static_cast<std::uint64_t>(sign_extend(value, ptx_type_bytes(type))) & register_mask;
}

bool general(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t register_mask = x.m.register_mask[static_cast<std::size_t>(in.ops[0])];
  const std::uint64_t* a = x.reg(in.ops[1]);
  if (in.op_count == 3) { // cvt.rn.f16x2.f32 d, a, b: a to the upper half
    const std::uint64_t* b = x.reg(in.ops[2]);
    const PtxType half = in.type == PtxType::f16x2 ? PtxType::f16 : PtxType::bf16;
    each_lane(active, [&](int l) {
      d[l] = (to_float(in, source_value(in, a[l]), half) << 16) |
             to_float(in, source_value(in, b[l]), half);
    });
  } else {
    each_lane(active,
              [&](int l) { d[l] = to_register(convert(in, a[l]), in.type, register_mask); });
  }
  x.flow(in, active);
  return true;
}

// Integer widths and signs without .sat: extend from the source, truncate to the destination.
bool int_resize(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  const int from = ptx_type_bytes(in.type2), to = ptx_type_bytes(in.type);
  const std::uint64_t register_mask = x.m.register_mask[static_cast<std::size_t>(in.ops[0])];
  const bool source_signed = ptx_type_is_signed(in.type2);
  const bool dest_signed = ptx_type_is_signed(in.type);
  each_lane(active, [&](int l) {
    const std::uint64_t v = source_signed ? static_cast<std::uint64_t>(sign_extend(a[l], from))
                                          : a[l] & width_mask(from);
    const std::uint64_t r =
        dest_signed ? static_cast<std::uint64_t>(sign_extend(v, to)) : v & width_mask(to);
    d[l] = r & register_mask;
  });
  x.flow(in, active);
  return true;
}

// cvt.rn.f32.s32 / .u32 and cvt.f64.* from 32-bit integers: the host's conversion rounds to
// nearest, as .rn asks.
template <class From, class To>
bool int_to_float(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  each_lane(active, [&](int l) {
    const To v = static_cast<To>(static_cast<From>(a[l]));
    if constexpr (sizeof(To) == 4)
      d[l] = std::bit_cast<std::uint32_t>(v);
    else
      d[l] = std::bit_cast<std::uint64_t>(v);
  });
  x.flow(in, active);
  return true;
}

bool plain_rounding(const PtxInstruction& in) {
  return !(in.flags & (kPtxSat | kPtxFtz | kPtxRelu)) &&
         (in.round == PtxRound::none || in.round == PtxRound::rn);
}

} // namespace

Handler convert_handler(const PtxInstruction& in, std::string& why) {
  const bool int_dest = is_int(in.type), int_source = is_int(in.type2);
  const bool float_dest = ptx_type_is_float(in.type), float_source = ptx_type_is_float(in.type2);
  if (!(int_dest || float_dest) || !(int_source || float_source)) {
    why = in.name + " between these types is not modelled";
    return nullptr;
  }
  if ((in.type2 == PtxType::f16x2 || in.type2 == PtxType::bf16x2) ||
      ((in.type == PtxType::f16x2 || in.type == PtxType::bf16x2) && in.op_count != 3))
    return nullptr;
  if (int_dest && int_source && !(in.flags & kPtxSat))
    return int_resize;
  if (plain_rounding(in) && float_dest && int_source && ptx_type_bytes(in.type2) == 4) {
    const bool s = ptx_type_is_signed(in.type2);
    if (in.type == PtxType::f32)
      return s ? int_to_float<std::int32_t, float> : int_to_float<std::uint32_t, float>;
    if (in.type == PtxType::f64)
      return s ? int_to_float<std::int32_t, double> : int_to_float<std::uint32_t, double>;
  }
  return general;
}

} // namespace wl::ptx_detail
