// Reading PTX declarations (ptx_parser.h): variables with their initializers (nested braces
// flattened, generic(var) addresses kept for the machine to place), .reg lines (a %r<N> range is
// one binding, not N names), and parameter lists laid out at their alignments.

#include "model/ptx_float.h"
#include "model/ptx_parser.h"

#include <bit>

namespace wl::ptx_detail {

Parser::VariableType Parser::variable_type() {
  VariableType vt;
  std::uint32_t vector = 1;
  std::optional<PtxType> type;
  while (peek().kind == TokenKind::word && peek().text[0] == '.') {
    const Token& t = next();
    if (t.is(".align")) {
      const std::uint64_t align = whole("an alignment");
      if (align == 0 || align > 4096 || !std::has_single_bit(align))
        fail(t.line, ".align must be a power of two up to 4096");
      vt.align = static_cast<std::uint32_t>(align);
    } else if (t.is(".v2") || t.is(".v4") || t.is(".v8")) {
      vector = t.text[2] - '0';
    } else if (auto named = type_named(t.text)) {
      type = named;
    } else if (t.is(".ptr") || t.is(".global") || t.is(".shared") || t.is(".const") ||
               t.is(".local") || t.is(".param") || t.text.find("::") != std::string_view::npos) {
      // pointer attributes of a parameter
    } else if (t.is(".attribute")) {
      skip_parenthesised();
    } else {
      fail(t.line, "unknown attribute " + in_quotes(t.text) + " in a declaration");
    }
  }
  if (!type || *type == PtxType::pred)
    fail(peek().line, "a declaration needs a type such as .b8 or .f32");
  vt.type = *type;
  vt.element = static_cast<std::uint32_t>(ptx_type_bytes(*type)) * vector;
  if (vt.align == 0)
    vt.align = vt.element;
  return vt;
}

void Parser::skip_parenthesised() {
  expect("(", "after .attribute");
  while (peek().kind != TokenKind::end && !peek().is(")"))
    next();
  expect(")", "to close the attribute");
}

// Array dimensions [N][M]...: the element count; nullopt for an unsized [].
std::optional<std::uint64_t> Parser::dimensions() {
  std::uint64_t count = 1;
  bool unsized = false;
  while (take("[")) {
    if (take("]")) {
      unsized = true;
      continue;
    }
    const std::uint64_t n = whole("an array size");
    expect("]", "after an array size");
    if (n > kMaxVariableBytes || count * std::max<std::uint64_t>(n, 1) > kMaxVariableBytes)
      fail(peek().line, "an array of more than 2^32 elements");
    count *= n;
  }
  return unsized ? std::nullopt : std::optional<std::uint64_t>(count);
}

void Parser::variables(int function, bool is_extern) {
  const Token& space_token = next();
  const PtxSpace space = space_token.is(".const")    ? PtxSpace::constant
                         : space_token.is(".shared") ? PtxSpace::shared
                         : space_token.is(".local")  ? PtxSpace::local
                         : space_token.is(".param")  ? PtxSpace::param
                                                     : PtxSpace::global;
  const VariableType vt = variable_type();
  do {
    PtxVariable v;
    v.line = peek().line;
    v.name = std::string(word("a variable name"));
    v.space = space;
    v.align = vt.align;
    v.function = function;
    const std::optional<std::uint64_t> count = dimensions();
    v.size = count ? *count * vt.element : 0;
    if (v.size > kMaxVariableBytes)
      fail(v.line, "variable " + in_quotes(v.name) + " is larger than 4 GiB");
    if (take("="))
      initializer(v, vt);
    v.dynamic_shared = space == PtxSpace::shared && !count;
    if (!count && space != PtxSpace::shared && v.init.empty() && !is_extern)
      fail(v.line, "variable " + in_quotes(v.name) + " has no size");
    if (!count)
      v.size = std::max<std::uint64_t>(v.size, v.init.size());
    add_variable(std::move(v));
  } while (take(","));
  expect(";", "after a declaration");
}

void Parser::add_variable(PtxVariable v) {
  if (v.space == PtxSpace::global || v.space == PtxSpace::constant) {
    m_initialized_bytes += v.size;
    if (m_initialized_bytes > kMaxInitializedBytes)
      fail(v.line, "the module's .global and .const variables pass 64 MiB");
  }
  const int index = static_cast<int>(m_program.variables.size());
  m_scopes.bind(v.name, {Binding::Kind::variable, index});
  if (m_function)
    m_function->variables.push_back(index);
  m_program.variables.push_back(std::move(v));
}

// = value, or = { values } with nested braces, flattened in order.
void Parser::initializer(PtxVariable& v, const VariableType& vt) {
  const PtxType element_type = vt.type;
  const std::uint32_t size = static_cast<std::uint32_t>(ptx_type_bytes(element_type));
  std::uint64_t offset = 0;
  int depth = 0;
  do {
    while (take("{"))
      ++depth;
    if (v.size && offset + size > v.size)
      fail(peek().line, "the initializer of " + in_quotes(v.name) + " has too many elements");
    if (offset + size > kMaxInitializedBytes)
      fail(peek().line, "the initializer of " + in_quotes(v.name) + " is too long");
    initializer_element(v, element_type, size, offset);
    offset += size;
    while (depth > 0 && take("}"))
      --depth;
  } while (depth > 0 && take(","));
  if (depth != 0)
    fail(peek().line, "expected '}' to close the initializer, found " + found());
}

void Parser::initializer_element(PtxVariable& v, PtxType type, std::uint32_t size,
                                 std::uint64_t offset) {
  const bool negative = take("-");
  std::uint64_t bits = 0;
  if (peek().kind == TokenKind::number) {
    const RawOperand n = parse_number(next(), negative);
    bits = literal_bits(n, type);
  } else {
    PtxVariable::Address address;
    address.generic = peek().is("generic");
    if (address.generic) {
      next();
      expect("(", "after generic");
    }
    const std::string name(word("a value or a variable"));
    const Binding* b = m_scopes.find(name);
    if (!b || b->kind != Binding::Kind::variable)
      fail(peek().line, in_quotes(name) + " is not a variable");
    if (address.generic)
      expect(")", "after generic(variable");
    if (take("+"))
      address.addend = static_cast<std::int64_t>(whole("an offset"));
    address.offset = offset;
    address.variable = b->index;
    address.bytes = static_cast<int>(size);
    v.addresses.push_back(address);
  }
  if (v.init.size() < offset + size)
    v.init.resize(offset + size);
  for (std::uint32_t i = 0; i < size; ++i)
    v.init[offset + i] = static_cast<std::byte>(bits >> (8 * i));
}

std::uint64_t Parser::literal_bits(const RawOperand& n, PtxType type) {
  switch (n.kind) {
  case RawOperand::Kind::f32_bits:
    return ptx_float::f32_literal_bits(static_cast<std::uint32_t>(n.bits), type);
  case RawOperand::Kind::f64_bits:
    return ptx_float::f64_literal_bits(n.bits, type);
  case RawOperand::Kind::decimal:
    return ptx_float::decimal_literal_bits(n.decimal, type);
  default:
    return ptx_float::integer_literal_bits(n.bits, type);
  }
}

void Parser::params(PtxFunction& f) {
  expect("(", "to open the parameter list");
  while (!take(")")) {
    const Token& kind = next();
    if (!kind.is(".param") && !kind.is(".reg"))
      fail(kind.line, "expected .param in the parameter list, found " + in_quotes(kind.text));
    const VariableType vt = variable_type();
    PtxParam p;
    p.name = std::string(word("a parameter name"));
    const std::optional<std::uint64_t> count = dimensions();
    const std::uint64_t size = (count ? *count : 1) * vt.element;
    if (size > kMaxParamBytes)
      fail(kind.line, "parameter " + in_quotes(p.name) + " is larger than 64 KiB");
    p.size = static_cast<std::uint32_t>(size);
    p.align = vt.align;
    p.offset = static_cast<std::uint32_t>(align_up(f.param_bytes, p.align));
    f.param_bytes = p.offset + p.size;
    if (f.param_bytes > kMaxParamBytes)
      fail(kind.line, "the parameters pass 64 KiB (CUDA allows 32 KiB)");
    m_scopes.bind(p.name, {Binding::Kind::param, static_cast<int>(f.params.size())});
    f.params.push_back(std::move(p));
    if (!peek().is(")"))
      expect(",", "between parameters");
  }
}

void Parser::registers() {
  const int line = next().line;
  std::optional<PtxType> type;
  while (peek().kind == TokenKind::word && peek().text[0] == '.') {
    const Token& t = next();
    if (t.is(".v2") || t.is(".v4"))
      fail(t.line, "vector registers (.reg .v4) are not supported");
    type = type_named(t.text);
    if (!type)
      fail(t.line, "unknown register type " + in_quotes(t.text));
  }
  if (!type)
    fail(line, ".reg needs a type");
  do {
    const std::string name(word("a register name"));
    std::int64_t count = 1;
    const bool range = take("<");
    if (range) {
      count = static_cast<std::int64_t>(std::min<std::uint64_t>(whole("a count"), 1ull << 40));
      expect(">", "after a register count");
    }
    const std::int64_t first = static_cast<std::int64_t>(m_function->registers.size());
    m_module_registers += count;
    if (first + count > kMaxFunctionRegisters || m_module_registers > kMaxModuleRegisters)
      fail(line, "more registers than the model holds (65536 a function)");
    for (std::int64_t i = 0; i < count; ++i)
      m_function->registers.push_back({range ? name + std::to_string(i) : name, *type});
    if (range)
      m_scopes.bind_range(name, static_cast<int>(first), static_cast<int>(count));
    else
      m_scopes.bind(name, {Binding::Kind::reg, static_cast<int>(first)});
  } while (take(","));
  expect(";", "after .reg");
}

} // namespace wl::ptx_detail
