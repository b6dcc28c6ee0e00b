// Floating-point instructions on f32, f64, f16 and bf16 (and the x2 pairs). The common forms
// (add, sub, mul, fma, div.rn, sqrt.rn in round-to-nearest, with or without .ftz) run as the
// host's own IEEE float arithmetic, which gives the GPU's bits. Every other form goes through
// one exact path: the result as a double plus the sign of what rounding lost (TwoSum, fma
// residuals), rounded once to the instruction's format in its mode (ptx_float.h), so .rz/.rm/.rp
// and the half formats round as the GPU does. .approx functions (ex2, lg2, sin, cos, rsqrt,
// tanh, div.approx) use the host's functions and may differ from the GPU in the last bits.
// The host compiler must not fuse a*b+c: GCC does not in ISO C++ (the build's -std=c++20), and
// clang is told so here.

#include "model/ptx_float.h"
#include "model/ptx_state.h"

#include <algorithm>
#include <cmath>
#include <limits>

#if defined(__clang__)
#pragma clang fp contract(off)
#endif

namespace wl::ptx_detail {
namespace {

constexpr std::uint32_t kCanonicalNaN = 0x7fffffffu;

using ptx_float::flush_subnormal;

std::uint32_t f32_bits(float v) {
  return std::isnan(v) ? kCanonicalNaN : std::bit_cast<std::uint32_t>(v);
}
float f32(std::uint64_t bits) { return std::bit_cast<float>(static_cast<std::uint32_t>(bits)); }

// ---- The fast path: f32/f64 in round-to-nearest

struct Add {
  template <class F> static F apply(F a, F b, F) { return a + b; }
};
struct Sub {
  template <class F> static F apply(F a, F b, F) { return a - b; }
};
struct Mul {
  template <class F> static F apply(F a, F b, F) { return a * b; }
};
struct Div {
  template <class F> static F apply(F a, F b, F) { return a / b; }
};
struct Fma {
  template <class F> static F apply(F a, F b, F c) { return std::fma(a, b, c); }
};

template <class Op, bool kFtz>
bool f32_fast(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  const std::uint64_t* b = x.reg(in.ops[2]);
  const std::uint64_t* c = in.op_count > 3 ? x.reg(in.ops[3]) : b;
  each_lane(active, [&](int l) {
    if constexpr (kFtz)
      d[l] = f32_bits(flush_subnormal(Op::apply(
          flush_subnormal(f32(a[l])), flush_subnormal(f32(b[l])), flush_subnormal(f32(c[l])))));
    else
      d[l] = f32_bits(Op::apply(f32(a[l]), f32(b[l]), f32(c[l])));
  });
  x.flow(in, active);
  return true;
}

template <class Op> bool f64_fast(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  const std::uint64_t* b = x.reg(in.ops[2]);
  const std::uint64_t* c = in.op_count > 3 ? x.reg(in.ops[3]) : b;
  each_lane(active, [&](int l) {
    d[l] = std::bit_cast<std::uint64_t>(Op::apply(
        std::bit_cast<double>(a[l]), std::bit_cast<double>(b[l]), std::bit_cast<double>(c[l])));
  });
  x.flow(in, active);
  return true;
}

// f32 functions of one operand whose result the host rounds correctly (sqrt) or the GPU
// only approximates (ex2, lg2, ...).
template <float (*F)(float), bool kFtz>
bool f32_unary(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  each_lane(active, [&](int l) {
    d[l] = kFtz ? f32_bits(flush_subnormal(F(flush_subnormal(f32(a[l]))))) : f32_bits(F(f32(a[l])));
  });
  x.flow(in, active);
  return true;
}

// abs and neg change the sign bit (a NaN gives the canonical NaN, as on the H200); .ftz flushes
// first.
template <bool kNeg, bool kFtz>
bool f32_sign(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  each_lane(active, [&](int l) {
    const std::uint32_t v = kFtz ? std::bit_cast<std::uint32_t>(flush_subnormal(f32(a[l])))
                                 : static_cast<std::uint32_t>(a[l]);
    d[l] = (v & 0x7fffffffu) > 0x7f800000u ? kCanonicalNaN
           : kNeg                          ? v ^ 0x80000000u
                                           : v & 0x7fffffffu;
  });
  x.flow(in, active);
  return true;
}

// min and max: a NaN loses to a number, and -0 is below +0.
template <bool kMax, bool kFtz>
bool f32_min_max(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  const std::uint64_t* b = x.reg(in.ops[2]);
  each_lane(active, [&](int l) {
    const float va = kFtz ? flush_subnormal(f32(a[l])) : f32(a[l]),
                vb = kFtz ? flush_subnormal(f32(b[l])) : f32(b[l]);
    float r;
    if (std::isnan(va) || std::isnan(vb))
      r = std::isnan(va) ? vb : va;
    else if (va == vb)
      r = std::signbit(va) != kMax ? va : vb;
    else
      r = (va < vb) != kMax ? va : vb;
    d[l] = f32_bits(r);
  });
  x.flow(in, active);
  return true;
}

float host_sqrt(float v) { return std::sqrt(v); }
float host_rcp(float v) { return 1.0f / v; }
float host_rsqrt(float v) { return 1.0f / std::sqrt(v); }
float host_ex2(float v) { return std::exp2(v); }
float host_lg2(float v) { return std::log2(v); }
float host_sin(float v) { return std::sin(v); }
float host_cos(float v) { return std::cos(v); }
float host_tanh(float v) { return std::tanh(v); }

// ---- The exact path

// A result as a long double and the side (-1, 0, +1) the exact value lies on, below its last
// bit. The operands are scaled to [0.5, 1) first (frexp), so neither the result nor the residual
// that gives the side overflows or underflows a double; the long double takes the exponent back.
struct Exact {
  long double value = 0;
  int tail = 0;
};

int sign_of(double v) { return v > 0 ? 1 : v < 0 ? -1 : 0; }

bool finite_nonzero(double v) { return std::isfinite(v) && v != 0; }

Exact exact_add(double a, double b) { // TwoSum
  const double s = a + b;
  if (!std::isfinite(s)) // overflow (or an infinity or NaN operand): no tail to keep
    return {static_cast<long double>(a) + static_cast<long double>(b), 0};
  const double bb = s - a;
  return {s, sign_of((a - (s - bb)) + (b - bb))};
}
Exact exact_mul(double a, double b) {
  if (!finite_nonzero(a) || !finite_nonzero(b))
    return {a * b, 0};
  int ea = 0, eb = 0;
  const double ma = std::frexp(a, &ea), mb = std::frexp(b, &eb);
  const double p = ma * mb;
  return {std::ldexp(static_cast<long double>(p), ea + eb), sign_of(std::fma(ma, mb, -p))};
}
Exact exact_div(double a, double b) {
  if (!finite_nonzero(a) || !finite_nonzero(b))
    return {a / b, 0};
  int ea = 0, eb = 0;
  const double ma = std::frexp(a, &ea), mb = std::frexp(b, &eb);
  const double q = ma / mb;
  return {std::ldexp(static_cast<long double>(q), ea - eb),
          sign_of(std::fma(-q, mb, ma)) * sign_of(mb)};
}
Exact exact_sqrt(double a) {
  if (!finite_nonzero(a) || a < 0)
    return {std::sqrt(a), 0};
  int e = 0;
  double m = std::frexp(a, &e); // an even exponent: m in [0.25, 1)
  if (e % 2 != 0)
    m /= 2, ++e;
  const double q = std::sqrt(m);
  return {std::ldexp(static_cast<long double>(q), e / 2), sign_of(std::fma(-q, q, m))};
}
// a*b+c for operands narrower than double: a*b is exact in a double, the sum by TwoSum.
Exact exact_fma(double a, double b, double c, PtxType t) {
  if (t == PtxType::f64)
    return {std::fma(a, b, c), 0}; // rounded once already: round-to-nearest only
  return exact_add(a * b, c);
}

PtxType scalar_of(PtxType t) {
  return t == PtxType::f16x2 ? PtxType::f16 : t == PtxType::bf16x2 ? PtxType::bf16 : t;
}

bool flushes(PtxType t) { return t != PtxType::f64; } // .ftz applies to f32 and the halves

double input(std::uint64_t bits, PtxType t, bool ftz) {
  double v = static_cast<double>(ptx_float::from_format_bits(bits, t));
  if (ftz && flushes(t)) {
    const double smallest = t == PtxType::f16 ? 0x1p-14 : 0x1p-126;
    if (v != 0 && std::fabs(v) < smallest)
      v = std::copysign(0.0, v);
  }
  return v;
}

// Rounds, flushes and saturates one result to `t`'s bits.
std::uint64_t output(const PtxInstruction& in, PtxType t, Exact r) {
  const PtxRound mode = in.round == PtxRound::none ? PtxRound::rn : in.round;
  std::uint64_t bits = ptx_float::to_format_bits(r.value, t, mode, r.tail);
  double v = input(bits, t, (in.flags & kPtxFtz) != 0);
  if (in.flags & kPtxSat) // NaN and -0 become +0
    v = std::isnan(v) || v == 0 ? 0.0 : std::clamp(v, 0.0, 1.0);
  if ((in.flags & kPtxRelu) && (v < 0 || std::isnan(v)))
    v = 0;
  if ((in.flags & (kPtxFtz | kPtxSat | kPtxRelu)) && !std::isnan(v))
    bits = ptx_float::to_format_bits(v, t, PtxRound::rn); // exact: v is one of t's values
  return bits;
}

// min/max: NaN loses to a number (unless .NaN), and -0 is below +0.
double min_max(double a, double b, bool is_max, bool nan_wins) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb)
    return (nan_wins || (na && nb)) ? std::numeric_limits<double>::quiet_NaN() : na ? b : a;
  if (a == b)
    return (std::signbit(a) != is_max) ? a : b;
  return (a < b) != is_max ? a : b;
}

// One scalar lane of any float instruction except comparisons.
std::uint64_t evaluate(const PtxInstruction& in, PtxType t, std::uint64_t a, std::uint64_t b,
                       std::uint64_t c) {
  const bool ftz = (in.flags & kPtxFtz) != 0;
  const int bytes = ptx_type_bytes(t);
  const std::uint64_t sign = 1ull << (8 * bytes - 1);
  const double x = input(a, t, ftz), y = input(b, t, ftz), z = input(c, t, ftz);
  switch (in.opcode) {
  case PtxOpcode::add:
    return output(in, t, exact_add(x, y));
  case PtxOpcode::sub:
    return output(in, t, exact_add(x, -y));
  case PtxOpcode::mul:
    return output(in, t, exact_mul(x, y));
  case PtxOpcode::fma:
    return output(in, t, exact_fma(x, y, z, t));
  case PtxOpcode::div:
    return output(in, t,
                  (in.flags & kPtxApprox) ? Exact{static_cast<float>(x) / static_cast<float>(y), 0}
                                          : exact_div(x, y));
  case PtxOpcode::rcp:
    return output(in, t, exact_div(1.0, x));
  case PtxOpcode::sqrt:
    return output(in, t, exact_sqrt(x));
  case PtxOpcode::rsqrt:
    return output(in, t, {1.0 / std::sqrt(x), 0});
  case PtxOpcode::sin:
    return output(in, t, {std::sin(x), 0});
  case PtxOpcode::cos:
    return output(in, t, {std::cos(x), 0});
  case PtxOpcode::lg2:
    return output(in, t, {std::log2(x), 0});
  case PtxOpcode::ex2:
    return output(in, t, {std::exp2(x), 0});
  case PtxOpcode::tanh:
    return output(in, t, {std::tanh(x), 0});
  case PtxOpcode::abs:
    return ptx_float::to_format_bits(x, t, PtxRound::rn) & ~sign;
  case PtxOpcode::neg: // a NaN becomes the canonical one (measured on the H200 for f16)
    return std::isnan(x) ? ptx_float::to_format_bits(x, t, PtxRound::rn)
                         : ptx_float::to_format_bits(x, t, PtxRound::rn) ^ sign;
  case PtxOpcode::min:
  case PtxOpcode::max:
    return output(in, t,
                  {min_max(x, y, in.opcode == PtxOpcode::max, (in.flags & kPtxNaN) != 0), 0});
  case PtxOpcode::copysign: // copysign d, a, b: b's magnitude with a's sign
    return (b & ~sign) | (a & sign);
  default:
    return 0;
  }
}

bool general(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  const std::uint64_t* b = in.op_count > 2 ? x.reg(in.ops[2]) : a;
  const std::uint64_t* c = in.op_count > 3 ? x.reg(in.ops[3]) : a;
  const PtxType t = scalar_of(in.type);
  const bool pair = t != in.type;
  each_lane(active, [&](int l) {
    if (!pair) {
      d[l] = evaluate(in, t, a[l], b[l], c[l]);
      return;
    }
    const auto half = [&](int i) {
      const auto part = [&](std::uint64_t v) { return (v >> (16 * i)) & 0xffff; };
      return evaluate(in, t, part(a[l]), part(b[l]), part(c[l])) & 0xffff;
    };
    d[l] = half(0) | (half(1) << 16);
  });
  x.flow(in, active);
  return true;
}

bool testp(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  const auto test = static_cast<PtxTestp>(in.mode);
  each_lane(active, [&](int l) {
    const double v = input(a[l], in.type, false);
    const int kind =
        in.type == PtxType::f64 ? std::fpclassify(v) : std::fpclassify(static_cast<float>(v));
    switch (test) {
    case PtxTestp::finite:
      d[l] = std::isfinite(v);
      break;
    case PtxTestp::infinite:
      d[l] = std::isinf(v);
      break;
    case PtxTestp::number:
      d[l] = !std::isnan(v);
      break;
    case PtxTestp::notanumber:
      d[l] = std::isnan(v);
      break;
    case PtxTestp::normal:
      d[l] = kind == FP_NORMAL;
      break;
    default:
      d[l] = kind == FP_SUBNORMAL;
    }
  });
  x.flow(in, active);
  return true;
}

bool float_compares(double a, double b, PtxCompare c) {
  const bool unordered = std::isnan(a) || std::isnan(b);
  switch (c) {
  case PtxCompare::eq:
    return !unordered && a == b;
  case PtxCompare::ne:
    return !unordered && a != b;
  case PtxCompare::lt:
  case PtxCompare::lo:
    return !unordered && a < b;
  case PtxCompare::le:
  case PtxCompare::ls:
    return !unordered && a <= b;
  case PtxCompare::gt:
  case PtxCompare::hi:
    return !unordered && a > b;
  case PtxCompare::ge:
  case PtxCompare::hs:
    return !unordered && a >= b;
  case PtxCompare::equ:
    return unordered || a == b;
  case PtxCompare::neu:
    return unordered || a != b;
  case PtxCompare::ltu:
    return unordered || a < b;
  case PtxCompare::leu:
    return unordered || a <= b;
  case PtxCompare::gtu:
    return unordered || a > b;
  case PtxCompare::geu:
    return unordered || a >= b;
  case PtxCompare::num:
    return !unordered;
  default:
    return unordered;
  }
}

// setp and set on floats (set writes 1.0f or all ones for true, by its destination type).
bool compare(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  const bool two = in.opcode == PtxOpcode::setp && in.dest_count == 2;
  const int first = in.dest_count;
  std::uint64_t* p = x.reg(in.ops[0]);
  std::uint64_t* q = two ? x.reg(in.ops[1]) : nullptr;
  const std::uint64_t* a = x.reg(in.ops[static_cast<std::size_t>(first)]);
  const std::uint64_t* b = x.reg(in.ops[static_cast<std::size_t>(first + 1)]);
  const std::uint64_t* c =
      in.bool_op != PtxBoolOp::none ? x.reg(in.ops[static_cast<std::size_t>(first + 2)]) : nullptr;
  const bool ftz = (in.flags & kPtxFtz) != 0, negate_c = (in.flags & kPtxNegate) != 0;
  each_lane(active, [&](int l) {
    const bool r =
        float_compares(input(a[l], in.type2, ftz), input(b[l], in.type2, ftz), in.compare);
    bool pr = r, qr = !r;
    if (c) {
      const bool cv = ((c[l] & 1) != 0) != negate_c;
      const auto combine = [&](bool v) {
        return in.bool_op == PtxBoolOp::and_  ? v && cv
               : in.bool_op == PtxBoolOp::or_ ? v || cv
                                              : v != cv;
      };
      pr = combine(r), qr = combine(!r);
    }
    if (in.opcode == PtxOpcode::set)
      p[l] = pr ? (in.type == PtxType::f32 ? 0x3f800000u : 0xffffffffu) : 0;
    else
      p[l] = pr;
    if (q)
      q[l] = qr;
  });
  x.flow(in, active);
  return true;
}

bool plain(const PtxInstruction& in) {
  return (in.round == PtxRound::none || in.round == PtxRound::rn) &&
         !(in.flags & (kPtxSat | kPtxRelu | kPtxApprox));
}

Handler fast_f32(const PtxInstruction& in) {
  const bool ftz = (in.flags & kPtxFtz) != 0;
  if (plain(in)) {
    switch (in.opcode) {
    case PtxOpcode::abs:
      return ftz ? f32_sign<false, true> : f32_sign<false, false>;
    case PtxOpcode::neg:
      return ftz ? f32_sign<true, true> : f32_sign<true, false>;
    case PtxOpcode::min:
    case PtxOpcode::max:
      if (in.flags & kPtxNaN)
        return nullptr;
      if (in.opcode == PtxOpcode::max)
        return ftz ? f32_min_max<true, true> : f32_min_max<true, false>;
      return ftz ? f32_min_max<false, true> : f32_min_max<false, false>;
    case PtxOpcode::add:
      return ftz ? f32_fast<Add, true> : f32_fast<Add, false>;
    case PtxOpcode::sub:
      return ftz ? f32_fast<Sub, true> : f32_fast<Sub, false>;
    case PtxOpcode::mul:
      return ftz ? f32_fast<Mul, true> : f32_fast<Mul, false>;
    case PtxOpcode::fma:
      return ftz ? f32_fast<Fma, true> : f32_fast<Fma, false>;
    case PtxOpcode::div:
      return ftz ? f32_fast<Div, true> : f32_fast<Div, false>;
    case PtxOpcode::sqrt:
      return ftz ? f32_unary<host_sqrt, true> : f32_unary<host_sqrt, false>;
    case PtxOpcode::rcp:
      return ftz ? f32_unary<host_rcp, true> : f32_unary<host_rcp, false>;
    default:
      return nullptr;
    }
  }
  if (!(in.flags & kPtxApprox) || (in.flags & (kPtxSat | kPtxRelu)))
    return nullptr;
  switch (in.opcode) { // .approx functions
  case PtxOpcode::ex2:
    return ftz ? f32_unary<host_ex2, true> : f32_unary<host_ex2, false>;
  case PtxOpcode::lg2:
    return ftz ? f32_unary<host_lg2, true> : f32_unary<host_lg2, false>;
  case PtxOpcode::sin:
    return ftz ? f32_unary<host_sin, true> : f32_unary<host_sin, false>;
  case PtxOpcode::cos:
    return ftz ? f32_unary<host_cos, true> : f32_unary<host_cos, false>;
  case PtxOpcode::rsqrt:
    return ftz ? f32_unary<host_rsqrt, true> : f32_unary<host_rsqrt, false>;
  case PtxOpcode::tanh:
    return ftz ? f32_unary<host_tanh, true> : f32_unary<host_tanh, false>;
  case PtxOpcode::div:
    return ftz ? f32_fast<Div, true> : f32_fast<Div, false>;
  case PtxOpcode::sqrt:
    return ftz ? f32_unary<host_sqrt, true> : f32_unary<host_sqrt, false>;
  case PtxOpcode::rcp:
    return ftz ? f32_unary<host_rcp, true> : f32_unary<host_rcp, false>;
  default:
    return nullptr;
  }
}

Handler fast_f64(const PtxInstruction& in) {
  if (!plain(in) || (in.flags & kPtxFtz))
    return nullptr;
  switch (in.opcode) {
  case PtxOpcode::add:
    return f64_fast<Add>;
  case PtxOpcode::sub:
    return f64_fast<Sub>;
  case PtxOpcode::mul:
    return f64_fast<Mul>;
  case PtxOpcode::fma:
    return f64_fast<Fma>;
  case PtxOpcode::div:
    return f64_fast<Div>;
  default:
    return nullptr;
  }
}

} // namespace

Handler float_handler(const PtxInstruction& in, std::string& why) {
  const PtxType t = in.type;
  if (in.opcode == PtxOpcode::setp || in.opcode == PtxOpcode::set)
    return in.type2 == PtxType::f16x2 || in.type2 == PtxType::bf16x2 ? nullptr : compare;
  if (!ptx_type_is_float(t))
    return nullptr;
  if (in.opcode == PtxOpcode::testp)
    return t == PtxType::f32 || t == PtxType::f64 ? testp : nullptr;
  const bool half = t != PtxType::f32 && t != PtxType::f64;
  switch (in.opcode) {
  case PtxOpcode::add:
  case PtxOpcode::sub:
  case PtxOpcode::mul:
  case PtxOpcode::fma:
  case PtxOpcode::abs:
  case PtxOpcode::neg:
  case PtxOpcode::min:
  case PtxOpcode::max:
    break;
  case PtxOpcode::div:
  case PtxOpcode::rcp:
  case PtxOpcode::sqrt:
  case PtxOpcode::rsqrt:
  case PtxOpcode::sin:
  case PtxOpcode::cos:
  case PtxOpcode::lg2:
  case PtxOpcode::ex2:
  case PtxOpcode::tanh:
  case PtxOpcode::copysign:
    if (half)
      return nullptr; // ex2.approx.f16 and friends: not modelled
    break;
  default:
    return nullptr;
  }
  if (t == PtxType::f64 && in.opcode == PtxOpcode::fma && !plain(in)) {
    why = in.name + " with directed rounding on f64 is not modelled";
    return nullptr;
  }
  if (t == PtxType::f32)
    if (Handler h = fast_f32(in))
      return h;
  if (t == PtxType::f64)
    if (Handler h = fast_f64(in))
      return h;
  return general;
}

} // namespace wl::ptx_detail
