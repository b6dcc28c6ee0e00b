// Integer, bit and predicate instructions. Each handler is a template instantiated per type once,
// at the machine's construction, so running an instruction is one indirect call and a loop over
// the lanes. Integer arithmetic is done in 64-bit unsigned and truncated to the type, as the
// hardware wraps; signedness matters only where PTX says (division, comparisons, high halves,
// shifts right, extension). Checked against the H200 bit for bit (add.cc chains, mul24, bfe,
// bfi, prmt modes, funnel shifts, dp4a, saturation included).

#include "model/ptx_state.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <type_traits>

namespace wl::ptx_detail {
namespace {

template <class T> using Unsigned = std::make_unsigned_t<T>;
template <class T> inline T get(std::uint64_t v) { return static_cast<T>(v); }
template <class T> inline std::uint64_t put(T v) {
  return static_cast<std::uint64_t>(static_cast<Unsigned<T>>(v));
}
template <class T> inline std::uint64_t wrap(T v) { return put<T>(v); }
template <class T> constexpr int kBits = static_cast<int>(sizeof(T) * 8);

// Calls make(T{}) with the C++ type of an integer PTX type (b types are unsigned).
template <class Make> Handler int_typed(PtxType t, Make make) {
  switch (t) {
  case PtxType::b8:
  case PtxType::u8:
    return make(std::uint8_t{});
  case PtxType::b16:
  case PtxType::u16:
    return make(std::uint16_t{});
  case PtxType::b32:
  case PtxType::u32:
    return make(std::uint32_t{});
  case PtxType::b64:
  case PtxType::u64:
    return make(std::uint64_t{});
  case PtxType::s8:
    return make(std::int8_t{});
  case PtxType::s16:
    return make(std::int16_t{});
  case PtxType::s32:
    return make(std::int32_t{});
  case PtxType::s64:
    return make(std::int64_t{});
  default:
    return nullptr;
  }
}

// ---- Operations

struct MulHi {
  template <class T> static T apply(T a, T b) {
    if constexpr (sizeof(T) == 8) {
      using Wide = std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
      return static_cast<T>((static_cast<Wide>(a) * static_cast<Wide>(b)) >> 64);
    } else {
      using Wide = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
      return static_cast<T>((static_cast<Wide>(a) * static_cast<Wide>(b)) >> kBits<T>);
    }
  }
};
struct Min {
  template <class T> static T apply(T a, T b) { return std::min(a, b); }
};
struct Max {
  template <class T> static T apply(T a, T b) { return std::max(a, b); }
};
struct And {
  template <class T> static T apply(T a, T b) { return static_cast<T>(a & b); }
};
struct Or {
  template <class T> static T apply(T a, T b) { return static_cast<T>(a | b); }
};
struct Xor {
  template <class T> static T apply(T a, T b) { return static_cast<T>(a ^ b); }
};
struct Shl {
  template <class T> static T apply(T a, T b) {
    const auto n = static_cast<std::uint32_t>(wrap(b));
    return n >= kBits<T> ? T(0) : static_cast<T>(wrap(a) << n);
  }
};
struct Shr {
  template <class T> static T apply(T a, T b) {
    const auto n = static_cast<std::uint32_t>(wrap(b));
    if constexpr (std::is_signed_v<T>)
      return n >= kBits<T> ? T(a < 0 ? -1 : 0) : static_cast<T>(a >> n);
    else
      return n >= kBits<T> ? T(0) : static_cast<T>(a >> n);
  }
};

// ---- Handlers

// d = op(a, b); a pred type keeps one bit.
template <class T, class Op> bool binary(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  const std::uint64_t* b = x.reg(in.ops[2]);
  each_lane(active, [&](int l) { d[l] = put<T>(Op::apply(get<T>(a[l]), get<T>(b[l]))); });
  x.flow(in, active);
  return true;
}

template <class Op> bool predicate(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  const std::uint64_t* b = x.reg(in.ops[2]);
  each_lane(active, [&](int l) { d[l] = Op::apply(a[l], b[l]) & 1; });
  x.flow(in, active);
  return true;
}

template <class T> bool unary_not(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  const std::uint64_t mask = in.type == PtxType::pred ? 1 : width_mask(sizeof(T));
  if (in.opcode == PtxOpcode::cnot)
    each_lane(active, [&](int l) { d[l] = (a[l] & mask) == 0; });
  else
    each_lane(active, [&](int l) { d[l] = ~a[l] & mask; });
  x.flow(in, active);
  return true;
}

// add/sub with .sat (s32 only), .cc (carry out) and addc/subc (carry in).
template <class T> bool add_sub(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  const bool sub = in.opcode == PtxOpcode::sub;
  const int first = in.dest_count;
  std::uint64_t* d = x.reg(in.ops[0]);
  std::uint64_t* carry_out = (in.flags & kPtxCarryOut) ? x.reg(in.ops[1]) : nullptr;
  const std::uint64_t* a = x.reg(in.ops[static_cast<std::size_t>(first)]);
  const std::uint64_t* b = x.reg(in.ops[static_cast<std::size_t>(first + 1)]);
  const std::uint64_t* carry_in =
      (in.flags & kPtxCarryIn) ? x.reg(in.ops[static_cast<std::size_t>(first + 2)]) : nullptr;
  each_lane(active, [&](int l) {
    const unsigned __int128 ua = wrap(get<T>(a[l])), ub = wrap(get<T>(b[l]));
    const unsigned __int128 cin = carry_in ? (carry_in[l] & 1) : 0;
    if ((in.flags & kPtxSat) && std::is_signed_v<T>) {
      const __int128 wide =
          sub ? __int128(get<T>(a[l])) - get<T>(b[l]) : __int128(get<T>(a[l])) + get<T>(b[l]);
      const __int128 lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
      d[l] = put<T>(static_cast<T>(std::clamp(wide, lo, hi)));
      return;
    }
    // PTX's carry flag after a subtraction is the borrow: a - b - borrow == a + ~b + 1 - borrow,
    // whose carry out is !borrow
    const unsigned __int128 full =
        sub ? ua + (~ub & width_mask(sizeof(T))) + (1 - cin) : ua + ub + cin;
    d[l] = put<T>(static_cast<T>(static_cast<std::uint64_t>(full)));
    if (carry_out) {
      const bool out = (full >> kBits<T>) != 0;
      carry_out[l] = sub ? !out : out;
    }
  });
  x.flow(in, active);
  return true;
}

// mul/mad .lo/.hi/.wide (mad: + c), and mul24/mad24.
template <class T> bool multiply(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  const auto mode = static_cast<PtxMulMode>(in.mode);
  const bool mad = in.opcode == PtxOpcode::mad || in.opcode == PtxOpcode::mad24;
  const bool is24 = in.opcode == PtxOpcode::mul24 || in.opcode == PtxOpcode::mad24;
  const int first = in.dest_count;
  std::uint64_t* d = x.reg(in.ops[0]);
  std::uint64_t* carry_out = (in.flags & kPtxCarryOut) ? x.reg(in.ops[1]) : nullptr;
  const std::uint64_t* a = x.reg(in.ops[static_cast<std::size_t>(first)]);
  const std::uint64_t* b = x.reg(in.ops[static_cast<std::size_t>(first + 1)]);
  const std::uint64_t* c = mad ? x.reg(in.ops[static_cast<std::size_t>(first + 2)]) : nullptr;
  const std::uint64_t* carry_in =
      (in.flags & kPtxCarryIn) ? x.reg(in.ops[static_cast<std::size_t>(first + 3)]) : nullptr;
  each_lane(active, [&](int l) {
    T va = get<T>(a[l]), vb = get<T>(b[l]);
    std::uint64_t product = 0;
    if (is24) { // 24-bit operands, 48-bit product: .lo its low 32 bits, .hi bits 16 to 47
      const auto low24 = [](T v) {
        return std::is_signed_v<T> ? (static_cast<std::int64_t>(wrap(v) << 40) >> 40)
                                   : static_cast<std::int64_t>(wrap(v) & 0xffffff);
      };
      const std::int64_t p = low24(va) * low24(vb);
      product = static_cast<std::uint64_t>(mode == PtxMulMode::hi ? p >> 16 : p);
    } else if (mode == PtxMulMode::hi) {
      product = wrap(MulHi::apply(va, vb));
    } else if (mode == PtxMulMode::wide) {
      using Wide = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
      product = static_cast<std::uint64_t>(static_cast<Wide>(va) * static_cast<Wide>(vb));
    } else {
      product = wrap(va) * wrap(vb);
    }
    const int bits = mode == PtxMulMode::wide ? 2 * kBits<T> : kBits<T>;
    const std::uint64_t mask = width_mask(bits / 8);
    unsigned __int128 sum = product & mask;
    if (c)
      sum += (c[l] & mask) + (carry_in ? (carry_in[l] & 1) : 0);
    d[l] = static_cast<std::uint64_t>(sum) & mask;
    if (carry_out)
      carry_out[l] = (sum >> bits) != 0;
  });
  x.flow(in, active);
  return true;
}

template <class T> bool divide(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  const std::uint64_t* b = x.reg(in.ops[2]);
  const std::uint32_t known = active & ~(x.unk(in.ops[1]) | x.unk(in.ops[2]));
  int zero = -1;
  each_lane(known, [&](int l) {
    if (zero < 0 && get<T>(b[l]) == 0)
      zero = l;
  });
  if (zero >= 0) {
    x.report(StopKind::division_by_zero, zero, true,
             "a division by zero (an integer " + in.name +
                 " whose result the GPU leaves undefined); the warp stops here");
    return false;
  }
  const bool rem = in.opcode == PtxOpcode::rem;
  each_lane(active, [&](int l) {
    const T va = get<T>(a[l]), vb = get<T>(b[l]);
    if (vb == 0)
      d[l] = 0; // only where b is unknown: the result is unknown too
    else if (std::is_signed_v<T> && vb == T(-1))
      d[l] = rem ? 0 : put<T>(static_cast<T>(Unsigned<T>(0) - static_cast<Unsigned<T>>(va)));
    else
      d[l] = put<T>(static_cast<T>(rem ? va % vb : va / vb));
  });
  x.flow(in, active);
  return true;
}

template <class T> bool abs_neg(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  const bool neg = in.opcode == PtxOpcode::neg;
  each_lane(active, [&](int l) {
    const T v = get<T>(a[l]);
    const bool flip = neg || v < 0;
    d[l] = flip ? put<T>(static_cast<T>(Unsigned<T>(0) - static_cast<Unsigned<T>>(v))) : put<T>(v);
  });
  x.flow(in, active);
  return true;
}

template <class T, class Op> bool min_max(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  const std::uint64_t* b = x.reg(in.ops[2]);
  const bool relu = (in.flags & kPtxRelu) != 0;
  each_lane(active, [&](int l) {
    T v = Op::apply(get<T>(a[l]), get<T>(b[l]));
    if (relu && v < T(0))
      v = T(0);
    d[l] = put<T>(v);
  });
  x.flow(in, active);
  return true;
}

// popc, clz, brev, bfind.
template <class T> bool bits_of(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  each_lane(active, [&](int l) {
    const auto v = static_cast<Unsigned<T>>(get<T>(a[l]));
    switch (in.opcode) {
    case PtxOpcode::popc:
      d[l] = static_cast<std::uint64_t>(std::popcount(v));
      break;
    case PtxOpcode::clz:
      d[l] = static_cast<std::uint64_t>(std::countl_zero(v));
      break;
    case PtxOpcode::brev: {
      Unsigned<T> r = 0;
      for (int i = 0; i < kBits<T>; ++i)
        r = static_cast<Unsigned<T>>(r | (((v >> i) & 1u) << (kBits<T> - 1 - i)));
      d[l] = r;
      break;
    }
    default: { // bfind: the most significant bit unlike the sign (for signed types)
      const Unsigned<T> bits =
          std::is_signed_v<T> && get<T>(a[l]) < 0 ? static_cast<Unsigned<T>>(~v) : v;
      const int index = bits == 0 ? -1 : kBits<T> - 1 - std::countl_zero(bits);
      d[l] = index < 0                        ? 0xffffffffu
             : (in.flags & kPtxShiftAmt) != 0 ? static_cast<std::uint64_t>(kBits<T> - 1 - index)
                                              : static_cast<std::uint64_t>(index);
    }
    }
  });
  x.flow(in, active);
  return true;
}

template <class T> bool bit_field(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  const std::uint64_t* b = x.reg(in.ops[2]);
  const std::uint64_t* c = x.reg(in.ops[3]);
  const int msb = kBits<T> - 1;
  if (in.opcode == PtxOpcode::bfe) {
    each_lane(active, [&](int l) {
      const int pos = static_cast<int>(b[l] & 0xff), len = static_cast<int>(c[l] & 0xff);
      const std::uint64_t v = wrap(get<T>(a[l]));
      const std::uint64_t sign =
          (!std::is_signed_v<T> || len == 0) ? 0 : (v >> std::min(pos + len - 1, msb)) & 1;
      std::uint64_t r = 0;
      for (int i = 0; i <= msb; ++i)
        r |= ((i < len && pos + i <= msb) ? (v >> (pos + i)) & 1 : sign) << i;
      d[l] = r;
    });
  } else { // bfi d, a (the field), b (the base), c (pos), len
    const std::uint64_t* len_reg = x.reg(in.ops[4]);
    each_lane(active, [&](int l) {
      const int pos = static_cast<int>(c[l] & 0xff), len = static_cast<int>(len_reg[l] & 0xff);
      std::uint64_t r = wrap(get<T>(b[l]));
      for (int i = 0; i < len && pos + i <= msb; ++i)
        r = (r & ~(1ull << (pos + i))) | (((a[l] >> i) & 1) << (pos + i));
      d[l] = r;
    });
  }
  x.flow(in, active);
  return true;
}

template <class T> bool lop3(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  const std::uint64_t* b = x.reg(in.ops[2]);
  const std::uint64_t* c = x.reg(in.ops[3]);
  const std::uint8_t table = in.mode;
  each_lane(active, [&](int l) {
    std::uint64_t r = 0;
    for (int i = 0; i < 8; ++i)
      if ((table >> i) & 1)
        r |= ((i & 4) ? a[l] : ~a[l]) & ((i & 2) ? b[l] : ~b[l]) & ((i & 1) ? c[l] : ~c[l]);
    d[l] = r & width_mask(sizeof(T));
  });
  x.flow(in, active);
  return true;
}

template <class T> bool funnel_shift(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  const std::uint64_t* b = x.reg(in.ops[2]);
  const std::uint64_t* c = x.reg(in.ops[3]);
  each_lane(active, [&](int l) {
    const std::uint64_t joined =
        (static_cast<std::uint64_t>(static_cast<std::uint32_t>(b[l])) << 32) |
        static_cast<std::uint32_t>(a[l]);
    const std::uint32_t n = (in.flags & kPtxClamp)
                                ? std::min<std::uint32_t>(static_cast<std::uint32_t>(c[l]), 32)
                                : static_cast<std::uint32_t>(c[l]) & 31;
    d[l] = (in.flags & kPtxLeft) ? static_cast<std::uint32_t>((joined << n) >> 32)
                                 : static_cast<std::uint32_t>(joined >> n);
  });
  x.flow(in, active);
  return true;
}

template <class T> bool sad(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  const std::uint64_t* b = x.reg(in.ops[2]);
  const std::uint64_t* c = x.reg(in.ops[3]);
  each_lane(active, [&](int l) {
    const T va = get<T>(a[l]), vb = get<T>(b[l]);
    const std::uint64_t diff = va < vb ? wrap(vb) - wrap(va) : wrap(va) - wrap(vb);
    d[l] = put<T>(static_cast<T>(diff + c[l]));
  });
  x.flow(in, active);
  return true;
}

// dp4a / dp2a: c plus the products of a's and b's bytes (or a's halves with two of b's bytes).
bool compares(std::uint64_t a, std::uint64_t b, PtxCompare c, bool is_signed) {
  if (is_signed) {
    const auto sa = static_cast<std::int64_t>(a), sb = static_cast<std::int64_t>(b);
    switch (c) {
    case PtxCompare::lt:
      return sa < sb;
    case PtxCompare::le:
      return sa <= sb;
    case PtxCompare::gt:
      return sa > sb;
    case PtxCompare::ge:
      return sa >= sb;
    default:
      break;
    }
  }
  switch (c) {
  case PtxCompare::eq:
    return a == b;
  case PtxCompare::ne:
    return a != b;
  case PtxCompare::lt:
  case PtxCompare::lo:
    return a < b;
  case PtxCompare::le:
  case PtxCompare::ls:
    return a <= b;
  case PtxCompare::gt:
  case PtxCompare::hi:
    return a > b;
  default: // ge, hs
    return a >= b;
  }
}

// setp and set on integers: the comparison (on sign-extended values for signed types), then
// combined with c by the boolean op.
template <class T> bool compare(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  const bool two = in.opcode == PtxOpcode::setp && in.dest_count == 2;
  const int first = in.dest_count;
  std::uint64_t* p = x.reg(in.ops[0]);
  std::uint64_t* q = two ? x.reg(in.ops[1]) : nullptr;
  const std::uint64_t* a = x.reg(in.ops[static_cast<std::size_t>(first)]);
  const std::uint64_t* b = x.reg(in.ops[static_cast<std::size_t>(first + 1)]);
  const std::uint64_t* c =
      in.bool_op != PtxBoolOp::none ? x.reg(in.ops[static_cast<std::size_t>(first + 2)]) : nullptr;
  const bool negate_c = (in.flags & kPtxNegate) != 0;
  const bool is_set = in.opcode == PtxOpcode::set;
  const bool float_result = in.type == PtxType::f32;
  each_lane(active, [&](int l) {
    const auto va = static_cast<std::uint64_t>(static_cast<std::int64_t>(get<T>(a[l])));
    const auto vb = static_cast<std::uint64_t>(static_cast<std::int64_t>(get<T>(b[l])));
    const bool is_signed = std::is_signed_v<T>;
    const bool r = compares(is_signed ? va : wrap(get<T>(a[l])),
                            is_signed ? vb : wrap(get<T>(b[l])), in.compare, is_signed);
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
    if (is_set)
      p[l] = pr ? (float_result ? 0x3f800000u : 0xffffffffu) : 0;
    else
      p[l] = pr;
    if (q)
      q[l] = qr;
  });
  x.flow(in, active);
  return true;
}

template <class T> Handler typed_int_handler(const PtxInstruction& in) {
  switch (in.opcode) {
  case PtxOpcode::add:
  case PtxOpcode::sub:
    return add_sub<T>;
  case PtxOpcode::mul:
  case PtxOpcode::mad:
  case PtxOpcode::mul24:
  case PtxOpcode::mad24:
    return multiply<T>;
  case PtxOpcode::div:
  case PtxOpcode::rem:
    return divide<T>;
  case PtxOpcode::abs:
  case PtxOpcode::neg:
    return abs_neg<T>;
  case PtxOpcode::min:
    return min_max<T, Min>;
  case PtxOpcode::max:
    return min_max<T, Max>;
  case PtxOpcode::popc:
  case PtxOpcode::clz:
  case PtxOpcode::brev:
  case PtxOpcode::bfind:
    return bits_of<T>;
  case PtxOpcode::bfe:
  case PtxOpcode::bfi:
    return bit_field<T>;
  case PtxOpcode::lop3:
    return lop3<T>;
  case PtxOpcode::and_:
    return binary<T, And>;
  case PtxOpcode::or_:
    return binary<T, Or>;
  case PtxOpcode::xor_:
    return binary<T, Xor>;
  case PtxOpcode::not_:
  case PtxOpcode::cnot:
    return unary_not<T>;
  case PtxOpcode::shl:
    return binary<T, Shl>;
  case PtxOpcode::shr:
    return binary<T, Shr>;
  case PtxOpcode::shf:
    return funnel_shift<T>;
  case PtxOpcode::sad:
    return sad<T>;
  case PtxOpcode::setp:
  case PtxOpcode::set:
    return compare<T>;
  default:
    return nullptr;
  }
}

// Which combinations of opcode and integer type PTX has (and the model runs).
bool int_type_fits(const PtxInstruction& in, PtxType type) {
  const int bytes = ptx_type_bytes(type);
  switch (in.opcode) {
  case PtxOpcode::mul24:
  case PtxOpcode::mad24:
    return in.type == PtxType::u32 || in.type == PtxType::s32;
  case PtxOpcode::popc:
  case PtxOpcode::clz:
  case PtxOpcode::brev:
  case PtxOpcode::bfe:
  case PtxOpcode::bfind:
  case PtxOpcode::bfi:
    return bytes == 4 || bytes == 8;
  case PtxOpcode::lop3:
  case PtxOpcode::shf:
    return bytes == 4;
  case PtxOpcode::add:
  case PtxOpcode::sub:
    return !(in.flags & kPtxSat) || in.type == PtxType::s32;
  case PtxOpcode::mad:
  case PtxOpcode::mul:
    return !(in.flags & kPtxSat) && bytes >= 2;
  default:
    return bytes > 0;
  }
}

} // namespace

Handler integer_handler(const PtxInstruction& in, PtxType operand_type) {
  if (operand_type == PtxType::pred) {
    switch (in.opcode) {
    case PtxOpcode::and_:
      return predicate<And>;
    case PtxOpcode::or_:
      return predicate<Or>;
    case PtxOpcode::xor_:
      return predicate<Xor>;
    case PtxOpcode::not_:
    case PtxOpcode::cnot:
      return unary_not<std::uint8_t>;
    default:
      return nullptr;
    }
  }
  if (!int_type_fits(in, operand_type))
    return nullptr;
  return int_typed(operand_type, [&](auto t) { return typed_int_handler<decltype(t)>(in); });
}

} // namespace wl::ptx_detail
