// The choice of a handler for every instruction, and the instructions that only move bits:
// mov and its pack/unpack forms, selp/slct, prmt, dp4a/dp2a. The families have their files:
// ptx_integer.cpp, ptx_float_ops.cpp, ptx_convert.cpp, ptx_memory.cpp, ptx_warp.cpp.

#include "model/ptx_state.h"

#include <algorithm>
#include <cmath>

namespace wl::ptx_detail {
namespace {

std::uint32_t permute(std::uint32_t a, std::uint32_t b, std::uint32_t c, PtxPrmtMode mode) {
  const std::uint64_t source = (static_cast<std::uint64_t>(b) << 32) | a;
  const auto byte = [&](unsigned i) {
    return static_cast<std::uint32_t>(source >> (8 * (i & 7))) & 0xff;
  };
  std::uint32_t r = 0;
  for (unsigned i = 0; i < 4; ++i) {
    std::uint32_t v = 0;
    const unsigned s = c & 3;
    switch (mode) {
    case PtxPrmtMode::f4e:
      v = byte(s + i);
      break;
    case PtxPrmtMode::b4e:
      v = byte(s - i);
      break;
    case PtxPrmtMode::rc8:
      v = byte(s);
      break;
    case PtxPrmtMode::ecl:
      v = byte(std::max(i, s));
      break;
    case PtxPrmtMode::ecr:
      v = byte(std::min(i, s));
      break;
    case PtxPrmtMode::rc16:
      v = byte((c & 1) * 2 + (i & 1));
      break;
    default: {
      const unsigned selector = (c >> (4 * i)) & 0xf;
      v = byte(selector & 7);
      if (selector & 8)
        v = (v & 0x80) ? 0xff : 0;
    }
    }
    r |= v << (8 * i);
  }
  return r;
}

bool prmt(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  const std::uint64_t* b = x.reg(in.ops[2]);
  const std::uint64_t* c = x.reg(in.ops[3]);
  const auto mode = static_cast<PtxPrmtMode>(in.mode);
  each_lane(active, [&](int l) {
    d[l] = permute(static_cast<std::uint32_t>(a[l]), static_cast<std::uint32_t>(b[l]),
                   static_cast<std::uint32_t>(c[l]), mode);
  });
  x.flow(in, active);
  return true;
}

bool dot(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  const std::uint64_t* b = x.reg(in.ops[2]);
  const std::uint64_t* c = x.reg(in.ops[3]);
  const bool sa = ptx_type_is_signed(in.type), sb = ptx_type_is_signed(in.type2);
  const auto part = [](std::uint64_t v, int bits, int i, bool is_signed) {
    const std::uint64_t raw = (v >> (bits * i)) & width_mask(bits / 8);
    return is_signed ? static_cast<std::int64_t>(raw << (64 - bits)) >> (64 - bits)
                     : static_cast<std::int64_t>(raw);
  };
  each_lane(active, [&](int l) {
    std::int64_t sum = static_cast<std::int64_t>(static_cast<std::uint32_t>(c[l]));
    if (sa || sb)
      sum = static_cast<std::int32_t>(c[l]);
    if (in.opcode == PtxOpcode::dp4a)
      for (int i = 0; i < 4; ++i)
        sum += part(a[l], 8, i, sa) * part(b[l], 8, i, sb);
    else
      for (int i = 0; i < 2; ++i)
        sum += part(a[l], 16, i, sa) * part(b[l], 8, i + 2 * in.mode, sb);
    d[l] = static_cast<std::uint32_t>(sum);
  });
  x.flow(in, active);
  return true;
}

bool select(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  const std::uint64_t* b = x.reg(in.ops[2]);
  const std::uint64_t* c = x.reg(in.ops[3]);
  const std::uint64_t mask = in.type == PtxType::pred ? 1 : width_mask(ptx_type_bytes(in.type));
  if (in.opcode == PtxOpcode::selp) {
    each_lane(active, [&](int l) { d[l] = ((c[l] & 1) ? a[l] : b[l]) & mask; });
  } else if (in.type2 == PtxType::s32) { // slct: c >= 0
    each_lane(active,
              [&](int l) { d[l] = (static_cast<std::int32_t>(c[l]) >= 0 ? a[l] : b[l]) & mask; });
  } else {
    each_lane(active, [&](int l) {
      float v = std::bit_cast<float>(static_cast<std::uint32_t>(c[l]));
      if ((in.flags & kPtxFtz) && std::fpclassify(v) == FP_SUBNORMAL)
        v = 0;
      d[l] = (v >= 0.0f ? a[l] : b[l]) & mask;
    });
  }
  x.flow(in, active);
  return true;
}

bool move(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  const std::uint64_t mask = in.type == PtxType::pred ? 1 : width_mask(ptx_type_bytes(in.type));
  each_lane(active, [&](int l) { d[l] = a[l] & mask; });
  x.flow(in, active);
  return true;
}

// mov.b64 %rd, {%r1, %r2}: the first part is the least significant.
bool pack(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const int parts = in.vector, bits = ptx_type_bytes(in.type) * 8 / parts;
  each_lane(active, [&](int l) {
    std::uint64_t r = 0;
    for (int i = 0; i < parts; ++i)
      r |= (x.reg(in.ops[static_cast<std::size_t>(1 + i)])[l] & width_mask(bits / 8)) << (bits * i);
    d[l] = r;
  });
  x.flow(in, active);
  return true;
}

bool unpack(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  const int parts = in.vector, bits = ptx_type_bytes(in.type) * 8 / parts;
  const std::uint64_t* a = x.reg(in.ops[static_cast<std::size_t>(parts)]);
  for (int i = 0; i < parts; ++i) {
    std::uint64_t* d = x.reg(in.ops[static_cast<std::size_t>(i)]);
    each_lane(active, [&](int l) { d[l] = (a[l] >> (bits * i)) & width_mask(bits / 8); });
  }
  x.flow(in, active);
  return true;
}

} // namespace

Handler handler_for(const PtxInstruction& in, std::string& why) {
  switch (in.opcode) {
  case PtxOpcode::ld:
  case PtxOpcode::st:
  case PtxOpcode::atom:
  case PtxOpcode::red:
  case PtxOpcode::cvta:
  case PtxOpcode::isspacep:
    return memory_handler(in, why);
  case PtxOpcode::cvt:
    return convert_handler(in, why);
  case PtxOpcode::mov:
    return move;
  case PtxOpcode::pack:
    return pack;
  case PtxOpcode::unpack:
    return unpack;
  case PtxOpcode::prmt:
    return in.type == PtxType::b32 ? prmt : nullptr;
  case PtxOpcode::selp:
  case PtxOpcode::slct:
    return in.opcode == PtxOpcode::selp || in.type2 == PtxType::s32 || in.type2 == PtxType::f32
               ? select
               : nullptr;
  case PtxOpcode::dp4a:
  case PtxOpcode::dp2a:
    return dot;
  default:
    break;
  }
  if (Handler h = warp_handler(in, why))
    return h;
  const PtxType operand_type =
      in.opcode == PtxOpcode::setp || in.opcode == PtxOpcode::set ? in.type2 : in.type;
  if (ptx_type_is_float(operand_type) || in.opcode == PtxOpcode::fma ||
      in.opcode == PtxOpcode::copysign || in.opcode == PtxOpcode::testp)
    return float_handler(in, why);
  return integer_handler(in, operand_type);
}

} // namespace wl::ptx_detail
