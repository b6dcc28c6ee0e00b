// Decoding one PTX instruction: its opcode's parts (ld . global . v4 . f32) into an opcode enum,
// types, a space, a mode and flags, and its operands into register indices (immediates and
// addresses become pseudo-registers). Whatever is not understood, an opcode, a modifier or an
// operand form, makes the instruction unsupported with the reason, never an error: the machine
// then reports it on its line and treats what it writes as unknown.

#include "model/ptx_decoder.h"
#include "model/ptx_float.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace wl::ptx_detail {
namespace {

using Kind = RawOperand::Kind;

std::optional<PtxType> type_word(std::string_view w) {
  static const std::pair<std::string_view, PtxType> kTypes[] = {
      {"pred", PtxType::pred},   {"b8", PtxType::b8},     {"b16", PtxType::b16},
      {"b32", PtxType::b32},     {"b64", PtxType::b64},   {"b128", PtxType::b128},
      {"u8", PtxType::u8},       {"u16", PtxType::u16},   {"u32", PtxType::u32},
      {"u64", PtxType::u64},     {"s8", PtxType::s8},     {"s16", PtxType::s16},
      {"s32", PtxType::s32},     {"s64", PtxType::s64},   {"f16", PtxType::f16},
      {"f16x2", PtxType::f16x2}, {"bf16", PtxType::bf16}, {"bf16x2", PtxType::bf16x2},
      {"f32", PtxType::f32},     {"f64", PtxType::f64}};
  for (const auto& [name, type] : kTypes)
    if (w == name)
      return type;
  return std::nullopt;
}

// Words that say how memory is cached or ordered, not where: they change no address.
bool ignorable(std::string_view w) {
  static const std::string_view kWords[] = {
      "nc",       "ca",   "cg",      "cs",      "lu",      "cv",      "wb",   "wt",
      "volatile", "weak", "relaxed", "acquire", "release", "acq_rel", "sc",   "mmio",
      "cta",      "gpu",  "sys",     "cluster", "aligned", "unified", "noftz"};
  if (std::find(std::begin(kWords), std::end(kWords), w) != std::end(kWords))
    return true;
  return w.find("::") != std::string_view::npos && w.rfind("shared::", 0) != 0;
}

Modifiers scan(const std::vector<std::string_view>& parts) {
  Modifiers m;
  for (std::string_view w : parts) {
    if (auto t = type_word(w)) {
      m.types.push_back(*t);
    } else if (w == "global" || w == "shared" || w == "shared::cta" || w == "local" ||
               w == "const" || w == "param") {
      m.space = w == "global"  ? PtxSpace::global
                : w == "local" ? PtxSpace::local
                : w == "const" ? PtxSpace::constant
                : w == "param" ? PtxSpace::param
                               : PtxSpace::shared;
      m.has_space = true;
    } else if (w == "v2" || w == "v4" || w == "v8") {
      m.vector = w[1] - '0';
    } else if (w == "rn" || w == "rz" || w == "rm" || w == "rp" || w == "rni" || w == "rzi" ||
               w == "rmi" || w == "rpi") {
      static const std::pair<std::string_view, PtxRound> kRounds[] = {
          {"rn", PtxRound::rn},   {"rz", PtxRound::rz},   {"rm", PtxRound::rm},
          {"rp", PtxRound::rp},   {"rni", PtxRound::rni}, {"rzi", PtxRound::rzi},
          {"rmi", PtxRound::rmi}, {"rpi", PtxRound::rpi}};
      for (const auto& [name, round] : kRounds)
        if (w == name)
          m.round = round;
    } else if (w == "L2::cache_hint") {
      m.cache_hint = true;
    } else if (!ignorable(w)) {
      m.rest.push_back(w);
    }
  }
  return m;
}

} // namespace

Decoder::Decoder(std::string_view opcode, std::vector<RawOperand>& operands,
                 FunctionBuilder& builder, PtxInstruction& out, std::string& label)
    : m_ops(operands), m_builder(builder), m_out(out), m_label(label) {
  std::size_t start = 0;
  while (start <= opcode.size()) {
    const std::size_t dot = std::min(opcode.find('.', start), opcode.size());
    m_parts.push_back(opcode.substr(start, dot - start));
    start = dot + 1;
  }
  m_base = m_parts.front();
  m_parts.erase(m_parts.begin());
  m_out.name = std::string(m_base);
  if (!m_parts.empty()) // appended in place: "." + a temporary trips GCC 12's -Wrestrict at -O3
    m_out.name.append(".").append(m_parts.front());
  m_mods = scan(m_parts);
}

void Decoder::run() {
  if (!decode())
    unsupported();
}

bool Decoder::take(std::string_view word) {
  const auto found = std::find(m_mods.rest.begin(), m_mods.rest.end(), word);
  if (found == m_mods.rest.end())
    return false;
  m_mods.rest.erase(found);
  return true;
}

PtxType Decoder::type(std::size_t i) const {
  return i < m_mods.types.size() ? m_mods.types[i] : PtxType::none;
}

// A value read as `t`: a register, immediate, special register or address; -1 when not one.
int Decoder::value(const RawOperand& o, PtxType t) {
  switch (o.kind) {
  case Kind::reg:
    return o.reg >= 0 && o.reg2 == -1 ? o.reg : -1;
  case Kind::special:
    return m_builder.constant({PtxConstantKind::special, 0, 0, o.special});
  case Kind::symbol:
    return m_builder.constant({o.symbol_kind, static_cast<std::uint64_t>(o.offset), o.symbol, {}});
  case Kind::integer:
    return m_builder.bits(ptx_float::integer_literal_bits(o.bits, t));
  case Kind::f32_bits:
    return m_builder.bits(ptx_float::f32_literal_bits(static_cast<std::uint32_t>(o.bits), t));
  case Kind::f64_bits:
    return m_builder.bits(ptx_float::f64_literal_bits(o.bits, t));
  case Kind::decimal:
    return m_builder.bits(ptx_float::decimal_literal_bits(o.decimal, t));
  default:
    return -1;
  }
}

// A destination register (the sink `_` is a scratch register); -1 when not one.
int Decoder::dest(const RawOperand& o) {
  if (o.kind != Kind::reg || o.negated)
    return -1;
  return o.reg >= 0 ? o.reg : m_builder.sink_register();
}

int Decoder::second_dest(const RawOperand& o) {
  return o.reg2 >= 0 ? o.reg2 : o.reg2 == -2 ? m_builder.sink_register() : -1;
}

// Sets ops: the destinations, then the sources; false when any is missing.
bool Decoder::operands(std::initializer_list<int> dests, std::initializer_list<int> sources) {
  std::size_t n = 0;
  for (int r : dests) {
    if (r < 0 || n >= m_out.ops.size())
      return false;
    m_out.ops[n++] = r;
  }
  m_out.dest_count = static_cast<std::uint8_t>(n);
  for (int r : sources) {
    if (r < 0 || n >= m_out.ops.size())
      return false;
    m_out.ops[n++] = r;
  }
  m_out.op_count = static_cast<std::uint8_t>(n);
  return true;
}

bool Decoder::push_source(int r) {
  if (r < 0 || m_out.op_count >= m_out.ops.size())
    return false;
  m_out.ops[m_out.op_count++] = r;
  return true;
}

// [base + offset] into address and offset.
bool Decoder::memory(std::size_t i) {
  if (i >= count() || op(i).kind != Kind::memory)
    return false;
  const RawOperand& o = op(i);
  if (o.complex)
    return false;
  m_out.offset = o.offset;
  if (o.base_is_number)
    m_out.address = m_builder.bits(o.bits);
  else if (o.reg >= 0)
    m_out.address = o.reg;
  else
    m_out.address = m_builder.constant({o.symbol_kind, 0, o.symbol, {}});
  return true;
}

// The operand count, allowing the trailing cache policy of .L2::cache_hint.
bool Decoder::arity(std::size_t n) const {
  return count() == n || (m_mods.cache_hint && count() == n + 1);
}

bool Decoder::decode() {
  const std::string_view b = m_base;
  if (b == "mov")
    return mov();
  if (b == "ld" || b == "ldu")
    return load();
  if (b == "st")
    return store();
  if (b == "atom" || b == "red")
    return atomic(b == "red");
  if (b == "cvta")
    return cvta();
  if (b == "cvt")
    return cvt();
  if (b == "isspacep")
    return isspacep();
  if (b == "add" || b == "sub" || b == "addc" || b == "subc")
    return add_sub();
  if (b == "mul" || b == "mad" || b == "madc" || b == "mul24" || b == "mad24")
    return multiply();
  if (b == "setp" || b == "set")
    return compare(b == "set");
  if (b == "bra")
    return branch();
  if (b == "ret" || b == "exit")
    return simple(PtxOpcode::exit);
  if (b == "bar" || b == "barrier")
    return barrier();
  if (b == "shfl")
    return shuffle();
  if (b == "vote")
    return vote();
  if (b == "call")
    return call();
  if (b == "trap")
    return simple(PtxOpcode::trap);
  if (b == "membar" || b == "fence" || b == "prefetch" || b == "prefetchu" || b == "discard" ||
      b == "nanosleep" || b == "pmevent" || b == "applypriority" || b == "griddepcontrol" ||
      b == "setmaxnreg" || b == "brkpt") {
    m_out.opcode = PtxOpcode::nop;
    return true;
  }
  if (b == "createpolicy") {
    m_out.opcode = PtxOpcode::mov;
    m_out.type = PtxType::b64;
    return count() >= 1 && operands({dest(op(0))}, {m_builder.bits(0)});
  }
  return warp_level() || arithmetic();
}

bool Decoder::simple(PtxOpcode opcode) {
  m_out.opcode = opcode;
  return count() == 0 && done(0);
}

bool Decoder::mov() {
  const PtxType t = type();
  if (!done(1) || count() != 2)
    return false;
  if (op(0).kind == Kind::vector || op(1).kind == Kind::vector)
    return pack(t);
  m_out.type = t;
  if (op(1).kind == Kind::clock) {
    m_out.opcode = PtxOpcode::clock;
    return operands({dest(op(0))}, {});
  }
  m_out.opcode = PtxOpcode::mov;
  return operands({dest(op(0))}, {value(1, t)});
}

// mov.b64 {%r1, %r2}, %rd1 (unpack) and mov.b64 %rd1, {%r1, %r2} (pack).
bool Decoder::pack(PtxType t) {
  const bool unpack = op(0).kind == Kind::vector;
  const RawOperand& parts = unpack ? op(0) : op(1);
  const int n = static_cast<int>(parts.elements.size());
  const int bytes = ptx_type_bytes(t);
  if ((t != PtxType::b16 && t != PtxType::b32 && t != PtxType::b64) || (n != 2 && n != 4) ||
      bytes % n != 0 || (unpack && op(1).kind == Kind::vector))
    return false;
  m_out.type = t;
  m_out.vector = static_cast<std::uint8_t>(n);
  const PtxType part = bytes / n == 1 ? PtxType::b8 : bytes / n == 2 ? PtxType::b16 : PtxType::b32;
  if (unpack) {
    m_out.opcode = PtxOpcode::unpack;
    for (const RawOperand& e : parts.elements)
      if (!push_dest(dest(e)))
        return false;
    return push_source(value(1, t));
  }
  m_out.opcode = PtxOpcode::pack;
  if (!push_dest(dest(op(0))))
    return false;
  for (const RawOperand& e : parts.elements)
    if (!push_source(value(e, part)))
      return false;
  return true;
}

bool Decoder::push_dest(int r) {
  if (!push_source(r))
    return false;
  m_out.dest_count = m_out.op_count;
  return true;
}

// The elements of a vector operand (or the one register) as destinations or sources.
bool Decoder::elements(const RawOperand& o, bool as_dest, PtxType t) {
  const std::vector<RawOperand> one = {o};
  const std::vector<RawOperand>& list = o.kind == Kind::vector ? o.elements : one;
  if (static_cast<int>(list.size()) != m_mods.vector)
    return false;
  for (const RawOperand& e : list)
    if (!(as_dest ? push_dest(dest(e)) : push_source(value(e, t))))
      return false;
  return true;
}

bool Decoder::access_shape() {
  const PtxType t = type();
  const int bytes = ptx_type_bytes(t);
  if (!done(1) || bytes == 0 || t == PtxType::b128 || bytes * m_mods.vector > 16 ||
      t == PtxType::pred)
    return false;
  m_out.type = t;
  m_out.space = m_mods.space;
  m_out.vector = static_cast<std::uint8_t>(m_mods.vector);
  return true;
}

bool Decoder::load() {
  m_out.opcode = PtxOpcode::ld;
  return access_shape() && arity(2) && elements(op(0), true, type()) && memory(1);
}

bool Decoder::store() {
  m_out.opcode = PtxOpcode::st;
  return access_shape() && arity(2) && memory(0) && elements(op(1), false, type());
}

bool Decoder::atomic(bool reduction) {
  static const std::pair<std::string_view, PtxAtomOp> kOps[] = {
      {"add", PtxAtomOp::add},   {"min", PtxAtomOp::min},  {"max", PtxAtomOp::max},
      {"inc", PtxAtomOp::inc},   {"dec", PtxAtomOp::dec},  {"cas", PtxAtomOp::cas},
      {"exch", PtxAtomOp::exch}, {"and", PtxAtomOp::and_}, {"or", PtxAtomOp::or_},
      {"xor", PtxAtomOp::xor_}};
  PtxAtomOp a = PtxAtomOp::add;
  if (!take_one(kOps, a) || !done(1) || m_mods.vector != 1)
    return false;
  const PtxType t = type();
  if (ptx_type_bytes(t) != 4 && ptx_type_bytes(t) != 8)
    return false;
  if (ptx_type_is_float(t) && a != PtxAtomOp::add && a != PtxAtomOp::exch)
    return false;
  m_out.opcode = reduction ? PtxOpcode::red : PtxOpcode::atom;
  m_out.mode = static_cast<std::uint8_t>(a);
  m_out.type = t;
  m_out.space = m_mods.space;
  const std::size_t first = reduction ? 1 : 2; // the first value operand
  const std::size_t values = a == PtxAtomOp::cas ? 2 : 1;
  if (!arity(first + values) || !memory(first - 1))
    return false;
  if (!reduction && !push_dest(dest(op(0))))
    return false;
  for (std::size_t i = 0; i < values; ++i)
    if (!push_source(value(first + i, t)))
      return false;
  return true;
}

bool Decoder::cvta() {
  m_out.opcode = PtxOpcode::cvta;
  if (take("to"))
    m_out.flags |= kPtxTo;
  m_out.space = m_mods.space;
  m_out.type = type();
  return m_mods.has_space && done(1) && ptx_type_bytes(type()) >= 4 && count() == 2 &&
         operands({dest(op(0))}, {value(1, type())});
}

bool Decoder::isspacep() {
  m_out.opcode = PtxOpcode::isspacep;
  m_out.space = m_mods.space;
  m_out.type = PtxType::pred;
  return m_mods.has_space && done(0) && count() == 2 &&
         operands({dest(op(0))}, {value(1, PtxType::u64)});
}

bool Decoder::branch() {
  take("uni");
  m_out.opcode = PtxOpcode::bra;
  if (!done(0) || count() != 1 || op(0).kind != Kind::label)
    return false;
  m_label = op(0).name;
  return true;
}

bool Decoder::barrier() {
  if (std::find(m_parts.begin(), m_parts.end(), "cluster") != m_parts.end())
    return false; // barrier.cluster: blocks of a cluster are not modelled
  take("cta");
  if (take("warp")) {
    m_out.opcode = PtxOpcode::nop; // bar.warp.sync: the model's warps are always in step
    return take("sync") && done(0);
  }
  m_out.opcode = PtxOpcode::bar;
  PtxBarMode mode = PtxBarMode::sync;
  if (take("arrive")) {
    mode = PtxBarMode::arrive;
  } else if (take("red")) {
    mode = take("popc")  ? PtxBarMode::red_popc
           : take("and") ? PtxBarMode::red_and
           : take("or")  ? PtxBarMode::red_or
                         : PtxBarMode::sync;
    if (mode == PtxBarMode::sync)
      return false;
  } else {
    take("sync");
  }
  m_out.mode = static_cast<std::uint8_t>(mode);
  const bool reduces = mode != PtxBarMode::sync && mode != PtxBarMode::arrive;
  if (!done(reduces ? 1 : 0) || count() < 1)
    return false;
  if (!reduces)
    return count() <= 2;
  m_out.type = type();
  if (count() != 3 && count() != 4)
    return false;
  if (op(count() - 1).negated)
    m_out.flags |= kPtxNegate;
  return operands({dest(op(0))}, {value(count() - 1, PtxType::pred)});
}

// Always decodes (a call is reported by the machine, whatever it calls).
bool Decoder::call() {
  m_out.opcode = PtxOpcode::call;
  std::size_t i = 0;
  if (i < count() && op(i).kind == Kind::list) {
    for (const RawOperand& r : op(i).elements)
      if (r.kind == Kind::symbol && r.symbol_kind == PtxConstantKind::variable)
        m_out.taint_dests.push_back(r.symbol); // the return values' .param variables
    ++i;
  }
  PtxCall callee = PtxCall::other;
  if (i >= count())
    return true;
  if (op(i).kind == Kind::label && op(i).name == "vprintf")
    callee = PtxCall::vprintf;
  else if (op(i).kind == Kind::label && op(i).name == "__assertfail")
    callee = PtxCall::assertfail;
  m_out.mode = static_cast<std::uint8_t>(callee);
  m_out.name = "call " + (op(i).kind == Kind::label ? op(i).name : std::string("(indirect)"));
  return true;
}

void Decoder::unsupported() {
  m_out.opcode = PtxOpcode::unsupported;
  m_out.dest_count = m_out.op_count = 0;
  m_out.address = -1;
  m_label.clear();
  static const std::string_view kReadOnly[] = {"ld",       "ldu",  "ldmatrix",  "tex",
                                               "tld4",     "suld", "prefetch",  "prefetchu",
                                               "isspacep", "mapa", "getctarank"};
  const bool reads_only =
      std::find(std::begin(kReadOnly), std::end(kReadOnly), m_base) != std::end(kReadOnly);
  bool has_memory = false;
  for (const RawOperand& o : m_ops)
    has_memory = has_memory || o.kind == Kind::memory;
  m_out.writes_memory = has_memory && !reads_only;
  // What it may write: the first space its opcode names is the destination's (cp.async.ca.
  // shared.global writes shared memory), else any.
  m_out.space = PtxSpace::generic;
  for (std::string_view w : m_parts) {
    if (w == "global" || w == "local" || w.rfind("shared", 0) == 0) {
      m_out.space = w == "global"  ? PtxSpace::global
                    : w == "local" ? PtxSpace::local
                                   : PtxSpace::shared;
      break;
    }
  }
  if (m_ops.empty() || m_ops[0].kind == Kind::memory)
    return;
  const std::vector<RawOperand> one = {m_ops[0]};
  for (const RawOperand& e : m_ops[0].kind == Kind::vector ? m_ops[0].elements : one) {
    if (e.kind == Kind::reg && e.reg >= 0)
      m_out.taint_dests.push_back(e.reg);
    if (e.kind == Kind::reg && e.reg2 >= 0)
      m_out.taint_dests.push_back(e.reg2);
  }
}

int FunctionBuilder::constant(const PtxConstant& c) {
  const auto key =
      std::make_tuple(static_cast<int>(c.kind), c.bits, c.symbol, static_cast<int>(c.special));
  const auto found = m_constants.find(key);
  if (found != m_constants.end())
    return found->second;
  const int index = kConstantBase + static_cast<int>(m_function.constants.size());
  m_function.constants.push_back(c);
  m_constants.emplace(key, index);
  return index;
}

int FunctionBuilder::implicit_register(const char* name, PtxType type, int& cached) {
  if (cached < 0) {
    cached = static_cast<int>(m_function.registers.size());
    m_function.registers.push_back({name, type});
  }
  return cached;
}

int FunctionBuilder::carry_register() { return implicit_register("%carry", PtxType::b32, m_carry); }
int FunctionBuilder::sink_register() { return implicit_register("_", PtxType::b64, m_sink); }

PtxType FunctionBuilder::register_type(int reg) const {
  return is_thread_register(reg) ? m_function.registers[reg].type : PtxType::b64;
}

void FunctionBuilder::finish() {
  const int registers = static_cast<int>(m_function.registers.size());
  const auto remap = [&](std::int32_t& r) {
    if (r >= kConstantBase)
      r = registers + (r - kConstantBase);
  };
  for (PtxInstruction& in : m_function.instructions) {
    for (std::size_t i = 0; i < in.op_count; ++i)
      remap(in.ops[i]);
    remap(in.address);
  }
}

bool special_register(std::string_view name, PtxSpecial& special) {
  static const std::pair<std::string_view, PtxSpecial> kSpecials[] = {
      {"%tid.x", PtxSpecial::tid_x},
      {"%tid.y", PtxSpecial::tid_y},
      {"%tid.z", PtxSpecial::tid_z},
      {"%ntid.x", PtxSpecial::ntid_x},
      {"%ntid.y", PtxSpecial::ntid_y},
      {"%ntid.z", PtxSpecial::ntid_z},
      {"%ctaid.x", PtxSpecial::ctaid_x},
      {"%ctaid.y", PtxSpecial::ctaid_y},
      {"%ctaid.z", PtxSpecial::ctaid_z},
      {"%nctaid.x", PtxSpecial::nctaid_x},
      {"%nctaid.y", PtxSpecial::nctaid_y},
      {"%nctaid.z", PtxSpecial::nctaid_z},
      {"%clusterid.x", PtxSpecial::ctaid_x},
      {"%clusterid.y", PtxSpecial::ctaid_y},
      {"%clusterid.z", PtxSpecial::ctaid_z},
      {"%nclusterid.x", PtxSpecial::nctaid_x},
      {"%nclusterid.y", PtxSpecial::nctaid_y},
      {"%nclusterid.z", PtxSpecial::nctaid_z},
      {"%laneid", PtxSpecial::laneid},
      {"%warpid", PtxSpecial::warpid},
      {"%nwarpid", PtxSpecial::nwarpid},
      {"%smid", PtxSpecial::smid},
      {"%nsmid", PtxSpecial::nsmid},
      {"%gridid", PtxSpecial::gridid},
      {"%lanemask_eq", PtxSpecial::lanemask_eq},
      {"%lanemask_lt", PtxSpecial::lanemask_lt},
      {"%lanemask_le", PtxSpecial::lanemask_le},
      {"%lanemask_gt", PtxSpecial::lanemask_gt},
      {"%lanemask_ge", PtxSpecial::lanemask_ge},
      {"%dynamic_smem_size", PtxSpecial::dynamic_smem_size},
      {"%total_smem_size", PtxSpecial::total_smem_size},
      {"%aggr_smem_size", PtxSpecial::total_smem_size},
      {"%cluster_ctarank", PtxSpecial::cluster_zero},
      {"%cluster_ctaid.x", PtxSpecial::cluster_zero},
      {"%cluster_ctaid.y", PtxSpecial::cluster_zero},
      {"%cluster_ctaid.z", PtxSpecial::cluster_zero},
      {"%is_explicit_cluster", PtxSpecial::cluster_zero},
      {"%cluster_nctarank", PtxSpecial::cluster_one},
      {"%cluster_nctaid.x", PtxSpecial::cluster_one},
      {"%cluster_nctaid.y", PtxSpecial::cluster_one},
      {"%cluster_nctaid.z", PtxSpecial::cluster_one}};
  for (const auto& [n, s] : kSpecials)
    if (name == n) {
      special = s;
      return true;
    }
  return false;
}

void decode_instruction(std::string_view opcode, std::vector<RawOperand>& operands,
                        FunctionBuilder& builder, PtxInstruction& out, std::string& label) {
  Decoder(opcode, operands, builder, out, label).run();
}

} // namespace wl::ptx_detail
