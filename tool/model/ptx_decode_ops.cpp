// Decoding arithmetic, comparisons, conversions and warp-wide instructions (ptx_decoder.h):
// which modifiers each takes, its types, and its operands as registers (an immediate becomes a
// pseudo-register of the type the operand has: a shift amount is a u32 whatever the type).

#include "model/ptx_decoder.h"

#include <algorithm>

namespace wl::ptx_detail {

using Kind = RawOperand::Kind;

void Decoder::float_flags() {
  if (take("ftz"))
    m_out.flags |= kPtxFtz;
  if (take("sat"))
    m_out.flags |= kPtxSat;
  if (take("approx"))
    m_out.flags |= kPtxApprox;
  if (take("relu"))
    m_out.flags |= kPtxRelu;
}

bool Decoder::cvt() {
  m_out.opcode = PtxOpcode::cvt;
  float_flags();
  m_out.round = m_mods.round;
  m_out.type = type(0);
  m_out.type2 = type(1);
  if (!done(2))
    return false;
  const bool pair = m_out.type == PtxType::f16x2 || m_out.type == PtxType::bf16x2;
  if (pair) // cvt.rn.f16x2.f32 d, a, b: a to the upper half, b to the lower
    return count() == 3 && m_out.type2 == PtxType::f32 &&
           operands({dest(op(0))}, {value(1, m_out.type2), value(2, m_out.type2)});
  return count() == 2 && operands({dest(op(0))}, {value(1, m_out.type2)});
}

bool Decoder::add_sub() {
  const bool carry_in = m_base == "addc" || m_base == "subc";
  m_out.opcode = m_base[0] == 'a' ? PtxOpcode::add : PtxOpcode::sub;
  float_flags();
  const bool carry_out = take("cc");
  m_out.round = m_mods.round;
  m_out.type = type();
  if (!done(1) || count() != 3)
    return false;
  return arithmetic_operands(3, carry_in, carry_out);
}

// d, a, b[, c] with the carry flag after them: a second destination for .cc, a last source
// for addc/madc.
bool Decoder::arithmetic_operands(std::size_t n, bool carry_in, bool carry_out) {
  if (carry_in || carry_out) {
    const int bytes = ptx_type_bytes(m_out.type);
    if ((bytes != 4 && bytes != 8) || ptx_type_is_float(m_out.type))
      return false;
  }
  if (!push_dest(dest(op(0))))
    return false;
  if (carry_out) {
    m_out.flags |= kPtxCarryOut;
    if (!push_dest(m_builder.carry_register()))
      return false;
  }
  for (std::size_t i = 1; i < n; ++i)
    if (!push_source(value(i, source_type(i))))
      return false;
  if (carry_in) {
    m_out.flags |= kPtxCarryIn;
    return push_source(m_builder.carry_register());
  }
  return true;
}

// The type an immediate in operand i takes: the instruction's, but a shift amount, a bit
// position or a length is a u32.
PtxType Decoder::source_type(std::size_t i) const {
  switch (m_out.opcode) {
  case PtxOpcode::shl:
  case PtxOpcode::shr:
    return i == 2 ? PtxType::u32 : m_out.type;
  case PtxOpcode::bfe:
    return i >= 2 ? PtxType::u32 : m_out.type;
  case PtxOpcode::bfi:
    return i >= 3 ? PtxType::u32 : m_out.type;
  case PtxOpcode::shf:
    return i == 3 ? PtxType::u32 : m_out.type;
  case PtxOpcode::mad:
    return i == 3 && m_out.mode == static_cast<std::uint8_t>(PtxMulMode::wide) ? m_out.type2
                                                                               : m_out.type;
  case PtxOpcode::dp4a:
  case PtxOpcode::dp2a:
    return i == 3 ? m_out.type2 : m_out.type;
  default:
    return m_out.type;
  }
}

PtxType Decoder::wider(PtxType t) {
  switch (t) {
  case PtxType::u16:
    return PtxType::u32;
  case PtxType::s16:
    return PtxType::s32;
  case PtxType::u32:
    return PtxType::u64;
  case PtxType::s32:
    return PtxType::s64;
  default:
    return PtxType::none;
  }
}

bool Decoder::multiply() {
  const bool carry_in = m_base == "madc";
  const bool mad = m_base == "mad" || m_base == "madc" || m_base == "mad24";
  const bool is24 = m_base == "mul24" || m_base == "mad24";
  m_out.opcode =
      is24 ? (mad ? PtxOpcode::mad24 : PtxOpcode::mul24) : (mad ? PtxOpcode::mad : PtxOpcode::mul);
  PtxMulMode mode = PtxMulMode::lo;
  static const std::pair<std::string_view, PtxMulMode> kModes[] = {
      {"lo", PtxMulMode::lo}, {"hi", PtxMulMode::hi}, {"wide", PtxMulMode::wide}};
  const bool has_mode = take_one(kModes, mode);
  m_out.mode = static_cast<std::uint8_t>(mode);
  float_flags();
  const bool carry_out = take("cc");
  m_out.round = m_mods.round;
  m_out.type = type();
  if (!done(1) || count() != (mad ? 4u : 3u))
    return false;
  if (ptx_type_is_float(m_out.type)) {
    if (has_mode)
      return false;
    if (mad)
      m_out.opcode = PtxOpcode::fma; // mad.rn.f32 is fma.rn.f32
  } else if (!has_mode) {
    return false;
  }
  if (mode == PtxMulMode::wide) {
    m_out.type2 = wider(m_out.type);
    if (m_out.type2 == PtxType::none)
      return false;
  }
  return arithmetic_operands(mad ? 4 : 3, carry_in, carry_out);
}

bool Decoder::compare(bool is_set) {
  static const std::pair<std::string_view, PtxCompare> kCompares[] = {
      {"eq", PtxCompare::eq},   {"ne", PtxCompare::ne},   {"lt", PtxCompare::lt},
      {"le", PtxCompare::le},   {"gt", PtxCompare::gt},   {"ge", PtxCompare::ge},
      {"lo", PtxCompare::lo},   {"ls", PtxCompare::ls},   {"hi", PtxCompare::hi},
      {"hs", PtxCompare::hs},   {"equ", PtxCompare::equ}, {"neu", PtxCompare::neu},
      {"ltu", PtxCompare::ltu}, {"leu", PtxCompare::leu}, {"gtu", PtxCompare::gtu},
      {"geu", PtxCompare::geu}, {"num", PtxCompare::num}, {"nan", PtxCompare::nan}};
  static const std::pair<std::string_view, PtxBoolOp> kBools[] = {
      {"and", PtxBoolOp::and_}, {"or", PtxBoolOp::or_}, {"xor", PtxBoolOp::xor_}};
  m_out.opcode = is_set ? PtxOpcode::set : PtxOpcode::setp;
  if (!take_one(kCompares, m_out.compare))
    return false;
  take_one(kBools, m_out.bool_op);
  float_flags();
  const PtxType source = is_set ? type(1) : type(0);
  m_out.type = is_set ? type(0) : PtxType::pred;
  m_out.type2 = source;
  if (!done(is_set ? 2 : 1) || source == PtxType::pred)
    return false;
  const std::size_t n = m_out.bool_op == PtxBoolOp::none ? 3 : 4;
  if (count() != n || !push_dest(dest(op(0))))
    return false;
  if (!is_set && op(0).reg2 != -1 && !push_dest(second_dest(op(0))))
    return false;
  if (!push_source(value(1, source)) || !push_source(value(2, source)))
    return false;
  if (n == 4) {
    if (op(3).negated)
      m_out.flags |= kPtxNegate;
    return push_source(value(3, PtxType::pred));
  }
  return true;
}

bool Decoder::shuffle() {
  static const std::pair<std::string_view, PtxShflMode> kModes[] = {{"up", PtxShflMode::up},
                                                                    {"down", PtxShflMode::down},
                                                                    {"bfly", PtxShflMode::bfly},
                                                                    {"idx", PtxShflMode::idx}};
  const bool sync = take("sync");
  PtxShflMode mode = PtxShflMode::up;
  if (!take_one(kModes, mode) || !done(1) || ptx_type_bytes(type()) != 4)
    return false;
  m_out.opcode = PtxOpcode::shfl;
  m_out.mode = static_cast<std::uint8_t>(mode);
  m_out.type = PtxType::b32;
  if (count() != (sync ? 5u : 4u) || !push_dest(dest(op(0))))
    return false;
  if (op(0).reg2 != -1 && !push_dest(second_dest(op(0))))
    return false;
  for (std::size_t i = 1; i < 4; ++i)
    if (!push_source(value(i, PtxType::b32)))
      return false;
  return push_source(sync ? value(4, PtxType::b32) : m_builder.bits(0xffffffffu));
}

bool Decoder::vote() {
  static const std::pair<std::string_view, PtxVoteMode> kModes[] = {
      {"all", PtxVoteMode::all},
      {"any", PtxVoteMode::any},
      {"uni", PtxVoteMode::uni},
      {"ballot", PtxVoteMode::ballot}};
  const bool sync = take("sync");
  PtxVoteMode mode = PtxVoteMode::all;
  if (!take_one(kModes, mode) || !done(1))
    return false;
  m_out.opcode = PtxOpcode::vote;
  m_out.mode = static_cast<std::uint8_t>(mode);
  m_out.type = type();
  if ((mode == PtxVoteMode::ballot) != (m_out.type == PtxType::b32) || count() != (sync ? 3u : 2u))
    return false;
  if (op(1).negated)
    m_out.flags |= kPtxNegate;
  return operands({dest(op(0))}, {value(1, PtxType::pred),
                                  sync ? value(2, PtxType::b32) : m_builder.bits(0xffffffffu)});
}

// activemask, match, redux, elect.
bool Decoder::warp_level() {
  if (m_base == "activemask") {
    m_out.opcode = PtxOpcode::activemask;
    m_out.type = PtxType::b32;
    return done(1) && count() == 1 && operands({dest(op(0))}, {});
  }
  if (m_base == "match") {
    const bool all = take("all");
    if (!all && !take("any"))
      return false;
    m_out.opcode = PtxOpcode::match;
    m_out.mode = all ? 1 : 0;
    m_out.type = type();
    if (!take("sync") || !done(1) || ptx_type_bytes(type()) < 4 || count() != 3)
      return false;
    if (!push_dest(dest(op(0))) || (op(0).reg2 != -1 && !push_dest(second_dest(op(0)))))
      return false;
    return push_source(value(1, type())) && push_source(value(2, PtxType::b32));
  }
  if (m_base == "redux") {
    static const std::pair<std::string_view, PtxReduxOp> kOps[] = {
        {"add", PtxReduxOp::add},  {"min", PtxReduxOp::min}, {"max", PtxReduxOp::max},
        {"and", PtxReduxOp::and_}, {"or", PtxReduxOp::or_},  {"xor", PtxReduxOp::xor_}};
    PtxReduxOp r = PtxReduxOp::add;
    if (!take("sync") || !take_one(kOps, r) || !done(1) || ptx_type_bytes(type()) != 4 ||
        ptx_type_is_float(type()) || count() != 3)
      return false;
    m_out.opcode = PtxOpcode::redux;
    m_out.mode = static_cast<std::uint8_t>(r);
    m_out.type = type();
    return operands({dest(op(0))}, {value(1, type()), value(2, PtxType::b32)});
  }
  if (m_base == "elect") {
    m_out.opcode = PtxOpcode::elect;
    m_out.type = PtxType::b32;
    if (!take("sync") || !done(0) || count() != 2)
      return false;
    return operands({dest(op(0)), second_dest(op(0))}, {value(1, PtxType::b32)});
  }
  return false;
}

bool Decoder::arithmetic() {
  static const Shape kShapes[] = {{"sad", PtxOpcode::sad, 4},
                                  {"div", PtxOpcode::div, 3},
                                  {"rem", PtxOpcode::rem, 3},
                                  {"abs", PtxOpcode::abs, 2},
                                  {"neg", PtxOpcode::neg, 2},
                                  {"min", PtxOpcode::min, 3},
                                  {"max", PtxOpcode::max, 3},
                                  {"popc", PtxOpcode::popc, 2},
                                  {"clz", PtxOpcode::clz, 2},
                                  {"brev", PtxOpcode::brev, 2},
                                  {"bfind", PtxOpcode::bfind, 2},
                                  {"bfe", PtxOpcode::bfe, 4},
                                  {"bfi", PtxOpcode::bfi, 5},
                                  {"prmt", PtxOpcode::prmt, 4},
                                  {"lop3", PtxOpcode::lop3, 5},
                                  {"and", PtxOpcode::and_, 3},
                                  {"or", PtxOpcode::or_, 3},
                                  {"xor", PtxOpcode::xor_, 3},
                                  {"not", PtxOpcode::not_, 2},
                                  {"cnot", PtxOpcode::cnot, 2},
                                  {"shl", PtxOpcode::shl, 3},
                                  {"shr", PtxOpcode::shr, 3},
                                  {"shf", PtxOpcode::shf, 4},
                                  {"fma", PtxOpcode::fma, 4},
                                  {"rcp", PtxOpcode::rcp, 2},
                                  {"sqrt", PtxOpcode::sqrt, 2},
                                  {"rsqrt", PtxOpcode::rsqrt, 2},
                                  {"sin", PtxOpcode::sin, 2},
                                  {"cos", PtxOpcode::cos, 2},
                                  {"lg2", PtxOpcode::lg2, 2},
                                  {"ex2", PtxOpcode::ex2, 2},
                                  {"tanh", PtxOpcode::tanh, 2},
                                  {"copysign", PtxOpcode::copysign, 3},
                                  {"testp", PtxOpcode::testp, 2},
                                  {"selp", PtxOpcode::selp, 4},
                                  {"slct", PtxOpcode::slct, 4},
                                  {"dp4a", PtxOpcode::dp4a, 4},
                                  {"dp2a", PtxOpcode::dp2a, 4}};
  const Shape* shape = nullptr;
  for (const Shape& s : kShapes)
    if (m_base == s.base)
      shape = &s;
  if (!shape)
    return false;
  m_out.opcode = shape->opcode;
  if (!opcode_words())
    return false;
  float_flags();
  m_out.round = m_mods.round;
  const std::size_t types = two_types() ? 2 : 1;
  m_out.type = type(0);
  m_out.type2 = type(1);
  if (!done(types) || count() != static_cast<std::size_t>(shape->operands))
    return false;
  if (m_out.opcode == PtxOpcode::lop3) { // the last operand, the truth table, is a number
    if (op(4).kind != Kind::integer)
      return false;
    m_out.mode = static_cast<std::uint8_t>(op(4).bits);
    return arithmetic_operands(4, false, false);
  }
  if (m_out.opcode == PtxOpcode::testp)
    return operands({dest(op(0))}, {value(1, m_out.type)});
  if (m_out.opcode == PtxOpcode::selp)
    return operands({dest(op(0))},
                    {value(1, m_out.type), value(2, m_out.type), value(3, PtxType::pred)});
  if (m_out.opcode == PtxOpcode::slct)
    return operands({dest(op(0))},
                    {value(1, m_out.type), value(2, m_out.type), value(3, m_out.type2)});
  return arithmetic_operands(static_cast<std::size_t>(shape->operands), false, false);
}

bool Decoder::two_types() const {
  return m_out.opcode == PtxOpcode::slct || m_out.opcode == PtxOpcode::dp4a ||
         m_out.opcode == PtxOpcode::dp2a;
}

// The words only some arithmetic opcodes take.
bool Decoder::opcode_words() {
  switch (m_out.opcode) {
  case PtxOpcode::div:
  case PtxOpcode::rcp:
  case PtxOpcode::sqrt:
    take("full");
    return true;
  case PtxOpcode::min:
  case PtxOpcode::max:
    if (take("NaN"))
      m_out.flags |= kPtxNaN;
    return true;
  case PtxOpcode::bfind:
    if (take("shiftamt"))
      m_out.flags |= kPtxShiftAmt;
    return true;
  case PtxOpcode::shf:
    if (take("l"))
      m_out.flags |= kPtxLeft;
    else if (!take("r"))
      return false;
    if (take("clamp"))
      m_out.flags |= kPtxClamp;
    else if (!take("wrap"))
      return false;
    return true;
  case PtxOpcode::prmt: {
    static const std::pair<std::string_view, PtxPrmtMode> kModes[] = {
        {"f4e", PtxPrmtMode::f4e}, {"b4e", PtxPrmtMode::b4e}, {"rc8", PtxPrmtMode::rc8},
        {"ecl", PtxPrmtMode::ecl}, {"ecr", PtxPrmtMode::ecr}, {"rc16", PtxPrmtMode::rc16}};
    PtxPrmtMode mode = PtxPrmtMode::none;
    take_one(kModes, mode);
    m_out.mode = static_cast<std::uint8_t>(mode);
    return true;
  }
  case PtxOpcode::testp: {
    static const std::pair<std::string_view, PtxTestp> kTests[] = {
        {"finite", PtxTestp::finite}, {"infinite", PtxTestp::infinite},
        {"number", PtxTestp::number}, {"notanumber", PtxTestp::notanumber},
        {"normal", PtxTestp::normal}, {"subnormal", PtxTestp::subnormal}};
    PtxTestp test = PtxTestp::finite;
    const bool found = take_one(kTests, test);
    m_out.mode = static_cast<std::uint8_t>(test);
    return found;
  }
  case PtxOpcode::dp2a:
    if (take("hi"))
      m_out.mode = 1;
    else if (!take("lo"))
      return false;
    return true;
  default:
    return true;
  }
}

} // namespace wl::ptx_detail
