// Reading a PTX module: its directives (.version, .file, .section, variables, .entry and .func),
// then each function body: declarations in nested { } scopes, .loc lines, labels and
// instructions, which ptx_decode.cpp decodes. Loops only, no recursion: 100,000 nested braces
// cost time in proportion, never stack (blocks nest at most 256 deep).

#include "model/ptx_parser.h"

#include <algorithm>

namespace wl {
namespace ptx_detail {

PtxProgram Parser::run() {
  m_scopes.push(); // module scope: variables
  while (peek().kind != TokenKind::end)
    module_statement();
  return std::move(m_program);
}

void Parser::expect(std::string_view text, std::string_view where) {
  if (!take(text))
    fail(peek().line,
         "expected '" + std::string(text) + "' " + std::string(where) + ", found " + found());
}

std::string Parser::found() const {
  return peek().kind == TokenKind::end ? "the end of the file" : in_quotes(peek().text);
}

std::string_view Parser::word(std::string_view what) {
  if (peek().kind != TokenKind::word)
    fail(peek().line, "expected " + std::string(what) + ", found " + found());
  return next().text;
}

std::uint64_t Parser::whole(std::string_view what) {
  if (peek().kind != TokenKind::number)
    fail(peek().line, "expected " + std::string(what) + ", found " + found());
  const RawOperand n = parse_number(next(), false);
  if (n.kind != RawOperand::Kind::integer)
    fail(peek().line, std::string(what) + " must be a whole number");
  return n.bits;
}

// Skips the rest of a statement, through its ';'.
void Parser::skip_statement() {
  while (peek().kind != TokenKind::end && !peek().is(";"))
    next();
  expect(";", "to end the statement");
}

// Skips the tokens on the current line (the argument of .version, .target, ...).
void Parser::skip_line(int line) {
  while (peek().kind != TokenKind::end && peek().line == line)
    next();
}

void Parser::module_statement() {
  const Token& t = peek();
  if (t.kind != TokenKind::word || t.text[0] != '.')
    fail(t.line, "expected a directive (.version, .entry, ...), found " + found());
  if (t.is(".version") || t.is(".target") || t.is(".address_size")) {
    const int line = next().line;
    if (t.is(".address_size") && peek().is("32"))
      m_program.address_size = 32;
    return skip_line(line);
  }
  if (t.is(".file"))
    return file();
  if (t.is(".section"))
    return section();
  if (t.is(".pragma") || t.is(".alias"))
    return skip_statement();
  bool is_extern = false;
  while (peek().is(".visible") || peek().is(".extern") || peek().is(".weak") ||
         peek().is(".common"))
    is_extern = next().is(".extern") || is_extern;
  if (peek().is(".entry") || peek().is(".func"))
    return function();
  if (peek().is(".global") || peek().is(".const") || peek().is(".shared") || peek().is(".local") ||
      peek().is(".tex"))
    return variables(-1, is_extern);
  fail(peek().line, "unknown directive " + found());
}

void Parser::file() {
  const int line = next().line;
  const int index = static_cast<int>(std::min<std::uint64_t>(whole("a file number"), 1 << 30));
  if (peek().kind != TokenKind::string)
    fail(line, ".file needs a quoted path");
  std::string_view path = next().text;
  path = path.substr(1, path.size() - 2);
  m_program.files.push_back({index, std::string(path)});
  skip_line(line); // an optional timestamp and size
}

void Parser::section() {
  const int line = next().line;
  while (peek().kind != TokenKind::end && !peek().is("{"))
    next();
  expect("{", "after .section");
  for (int depth = 1; depth > 0;) {
    if (peek().kind == TokenKind::end)
      fail(line, "the .section is never closed");
    const Token& t = next();
    depth += t.is("{") ? 1 : t.is("}") ? -1 : 0;
  }
}

void Parser::function() {
  const bool is_entry = next().is(".entry");
  const int line = peek().line;
  PtxFunction f;
  f.is_entry = is_entry;
  f.line = line;
  m_scopes.push();
  if (!is_entry && peek().is("("))
    params(f); // the return values of a .func
  f.name = std::string(word("a function name"));
  if (peek().is("("))
    params(f);
  while (!peek().is("{") && !peek().is(";")) {
    if (peek().kind == TokenKind::end || peek().is("}"))
      fail(line, "the function " + in_quotes(f.name) + " has no body or ';'");
    next(); // .maxntid 256, 1, 1 and the other performance directives
  }
  if (take(";")) { // a prototype only
    std::vector<PtxInstruction> none;
    m_scopes.pop(none);
    return;
  }
  expect("{", "to open the function body");
  m_program.functions.push_back(std::move(f));
  m_function = &m_program.functions.back();
  body();
  m_function = nullptr;
}

void Parser::body() {
  PtxFunction& f = *m_function;
  FunctionBuilder builder(f);
  m_scopes.push();
  const std::size_t depth = m_scopes.depth();
  PtxSource source;
  while (m_scopes.depth() >= depth) {
    const Token& t = peek();
    if (t.kind == TokenKind::end)
      fail(f.line, "the body of " + in_quotes(f.name) + " is never closed");
    if (t.is("{")) {
      next();
      if (m_scopes.depth() - depth >= kMaxScopeDepth)
        fail(t.line, "blocks nested more than 256 deep");
      m_scopes.push();
    } else if (t.is("}")) {
      next();
      m_scopes.pop(f.instructions);
    } else if (t.is(";")) {
      next();
    } else if (t.kind == TokenKind::word && peek(1).is(":")) {
      m_scopes.label(std::string(t.text), static_cast<int>(f.instructions.size()), t.line);
      next(), next();
    } else if (t.kind == TokenKind::word && t.text[0] == '.') {
      body_directive(source);
    } else if (t.is("@") || t.kind == TokenKind::word) {
      instruction(builder, source);
    } else {
      fail(t.line, "expected an instruction, found " + found());
    }
  }
  m_scopes.pop(f.instructions, true); // the parameters' scope
  PtxInstruction end;
  end.opcode = PtxOpcode::exit;
  end.name = end.text = "exit";
  end.source = source;
  f.instructions.push_back(std::move(end)); // falling off the end returns
  builder.finish();
  std::sort(f.variables.begin(), f.variables.end());
  f.variables.erase(std::unique(f.variables.begin(), f.variables.end()), f.variables.end());
}

void Parser::body_directive(PtxSource& source) {
  const Token& t = peek();
  if (t.is(".reg"))
    return registers();
  if (t.is(".loc"))
    return loc(source);
  if (t.is(".local") || t.is(".shared") || t.is(".param") || t.is(".global") || t.is(".const"))
    return variables(static_cast<int>(m_program.functions.size() - 1), false);
  if (t.is(".extern") || t.is(".visible") || t.is(".weak")) {
    const bool is_extern = next().is(".extern");
    return variables(static_cast<int>(m_program.functions.size() - 1), is_extern);
  }
  skip_statement(); // .pragma, .callprototype after its label, ...
}

// .loc file line column [, function_name label, inlined_at file line column]
void Parser::loc(PtxSource& source) {
  const int line = next().line;
  source = {};
  source.file = static_cast<int>(std::min<std::uint64_t>(whole("a file number"), 1 << 30));
  source.line = static_cast<int>(std::min<std::uint64_t>(whole("a line number"), 1 << 30));
  if (peek().kind == TokenKind::number && peek().line == line)
    source.column = static_cast<int>(std::min<std::uint64_t>(whole("a column"), 1 << 30));
  while (peek().line == line && take(",")) {
    if (take("inlined_at") && peek().kind == TokenKind::number) {
      source.inlined_file = static_cast<int>(std::min<std::uint64_t>(whole("a file"), 1 << 30));
      source.inlined_line = static_cast<int>(std::min<std::uint64_t>(whole("a line"), 1 << 30));
    }
    while (peek().line == line && !peek().is(",") && peek().kind != TokenKind::end)
      next();
  }
  skip_line(line);
}

void Parser::instruction(FunctionBuilder& builder, const PtxSource& source) {
  PtxFunction& f = *m_function;
  PtxInstruction in;
  in.source = source;
  if (take("@")) {
    in.guard_negated = take("!");
    const Token& g = peek();
    const std::optional<int> reg = m_scopes.register_named(std::string(word("a predicate")));
    if (!reg)
      fail(g.line, "the guard " + in_quotes(g.text) + " is not a declared register");
    in.guard = *reg;
  }
  const Token& op = peek();
  const std::string_view opcode = word("an instruction");
  std::vector<RawOperand> operands;
  if (!take(";")) {
    do {
      operands.push_back(operand());
    } while (take(","));
    if (!take(";"))
      fail(peek().line,
           "expected ',' or ';' after an operand of " + in_quotes(opcode) + ", found " + found());
  }
  const Token& last = m_tokens[m_at - 1];
  const std::size_t begin = static_cast<std::size_t>(op.text.data() - m_text.data());
  const std::size_t end = static_cast<std::size_t>(last.text.data() - m_text.data());
  in.text = std::string(m_text.substr(begin, std::min(end - begin, kMaxTextChars)));
  std::replace_if(
      in.text.begin(), in.text.end(), [](char c) { return c == '\n' || c == '\t'; }, ' ');
  std::string label;
  ptx_detail::decode_instruction(opcode, operands, builder, in, label);
  if (!label.empty())
    m_scopes.branch(static_cast<int>(f.instructions.size()), std::move(label), op.line);
  f.instructions.push_back(std::move(in));
}

RawOperand Parser::operand() {
  const Token& t = peek();
  if (take("["))
    return memory(t.line);
  if (take("{") || take("(")) {
    const bool braces = t.is("{");
    RawOperand list;
    list.kind = braces ? RawOperand::Kind::vector : RawOperand::Kind::list;
    if (!take(braces ? "}" : ")")) {
      do {
        list.elements.push_back(operand());
        if (list.elements.back().kind == RawOperand::Kind::vector ||
            list.elements.back().kind == RawOperand::Kind::list)
          fail(t.line, "lists inside lists are not PTX");
      } while (take(","));
      expect(braces ? "}" : ")", "to close the list");
    }
    return list;
  }
  if (take("!")) {
    RawOperand negated = operand();
    if (negated.kind != RawOperand::Kind::reg)
      fail(t.line, "'!' needs a predicate register");
    negated.negated = true;
    return negated;
  }
  if (take("-")) {
    if (peek().kind != TokenKind::number)
      fail(t.line, "expected a number after '-', found " + found());
    return parse_number(next(), true);
  }
  if (peek().kind == TokenKind::number)
    return parse_number(next(), false);
  if (peek().kind == TokenKind::word)
    return named(t.line);
  fail(t.line, "expected an operand, found " + found());
}

// A register (or a pair %p|%q), special register, variable, parameter, label or function.
RawOperand Parser::named(int line) {
  const std::string name(next().text);
  RawOperand out;
  if (name == "_") {
    out.kind = RawOperand::Kind::reg;
    return out;
  }
  if (const std::optional<int> reg = m_scopes.register_named(name)) {
    out.kind = RawOperand::Kind::reg;
    out.reg = *reg;
    if (take("|")) {
      const std::string second(word("a second register after '|'"));
      const std::optional<int> reg2 = m_scopes.register_named(second);
      if (!reg2 && second != "_")
        fail(line, "register " + in_quotes(second) + " is not declared");
      out.reg2 = reg2 ? *reg2 : -2; // -2: the sink
    }
    return out;
  }
  if (const Binding* b = m_scopes.find(name)) {
    out.kind = RawOperand::Kind::symbol;
    out.symbol_kind =
        b->kind == Binding::Kind::param ? PtxConstantKind::param : PtxConstantKind::variable;
    out.symbol = b->index;
    if (out.symbol_kind == PtxConstantKind::variable)
      m_function->variables.push_back(b->index);
    if (peek().is("+") && peek(1).kind == TokenKind::number) {
      next();
      out.offset = static_cast<std::int64_t>(whole("an offset"));
    }
    return out;
  }
  if (name == "%clock" || name == "%clock64" || name == "%globaltimer" ||
      name == "%globaltimer_lo" || name == "%globaltimer_hi") {
    out.kind = RawOperand::Kind::clock;
    return out;
  }
  if (ptx_detail::special_register(name, out.special)) {
    out.kind = RawOperand::Kind::special;
    return out;
  }
  if (name[0] == '%' && name.find('.') == std::string::npos && name.rfind("%envreg", 0) != 0 &&
      name.rfind("%pm", 0) != 0 && name.rfind("%reserved", 0) != 0 &&
      name.rfind("%cluster", 0) != 0)
    fail(line, "register " + in_quotes(name) + " is not declared");
  out.kind = RawOperand::Kind::label; // a label or function, or a special register we lack
  out.name = name;
  return out;
}

// [reg], [reg+offset], [reg+-offset], [reg-offset], [symbol+offset], [address]; a texture or
// surface operand ([tex, {x, y}]) is kept as an address the decoder does not take.
RawOperand Parser::memory(int line) {
  RawOperand out;
  out.kind = RawOperand::Kind::memory;
  if (peek(1).is(",") || (peek().kind == TokenKind::word && peek(1).is("{"))) {
    for (int depth = 1; depth > 0;) {
      if (peek().kind == TokenKind::end || peek().is(";"))
        fail(line, "an address is not closed by ']'");
      const Token& t = next();
      depth += t.is("[") ? 1 : t.is("]") ? -1 : 0;
    }
    out.complex = true;
    return out;
  }
  if (peek().kind == TokenKind::number) {
    const RawOperand n = parse_number(next(), false);
    if (n.kind != RawOperand::Kind::integer)
      fail(line, "an address must be a whole number");
    out.base_is_number = true;
    out.bits = n.bits;
  } else {
    const RawOperand base = named(line);
    if (base.kind == RawOperand::Kind::reg && base.reg >= 0 && base.reg2 == -1) {
      out.reg = base.reg;
    } else if (base.kind == RawOperand::Kind::symbol) {
      out.reg = -1;
      out.symbol_kind = base.symbol_kind;
      out.symbol = base.symbol;
      out.offset = base.offset;
    } else {
      fail(line, "the address " + in_quotes(base.name) + " is not a register or variable");
    }
  }
  if (peek().is("+") || peek().is("-")) {
    const bool minus = next().is("-");
    const bool negative = take("-") != minus;
    if (peek().kind != TokenKind::number)
      fail(line, "expected an offset in the address, found " + found());
    const RawOperand n = parse_number(next(), negative);
    if (n.kind != RawOperand::Kind::integer)
      fail(line, "an address offset must be a whole number");
    out.offset += static_cast<std::int64_t>(n.bits);
  }
  expect("]", "to close the address");
  return out;
}

} // namespace ptx_detail

int ptx_type_bytes(PtxType type) {
  switch (type) {
  case PtxType::b8:
  case PtxType::u8:
  case PtxType::s8:
    return 1;
  case PtxType::b16:
  case PtxType::u16:
  case PtxType::s16:
  case PtxType::f16:
  case PtxType::bf16:
    return 2;
  case PtxType::b32:
  case PtxType::u32:
  case PtxType::s32:
  case PtxType::f32:
  case PtxType::f16x2:
  case PtxType::bf16x2:
    return 4;
  case PtxType::b64:
  case PtxType::u64:
  case PtxType::s64:
  case PtxType::f64:
    return 8;
  case PtxType::b128:
    return 16;
  default:
    return 0;
  }
}

bool ptx_type_is_float(PtxType type) {
  return type == PtxType::f16 || type == PtxType::f16x2 || type == PtxType::bf16 ||
         type == PtxType::bf16x2 || type == PtxType::f32 || type == PtxType::f64;
}

bool ptx_type_is_signed(PtxType type) {
  return type == PtxType::s8 || type == PtxType::s16 || type == PtxType::s32 ||
         type == PtxType::s64;
}

std::string PtxProgram::file_path(int index) const {
  for (const PtxFile& f : files)
    if (f.index == index)
      return f.path;
  return {};
}

const PtxFunction* PtxProgram::find_function(std::string_view name) const {
  for (const PtxFunction& f : functions)
    if (f.name == name)
      return &f;
  return nullptr;
}

PtxProgram parse_ptx(std::string_view ptx) { return ptx_detail::Parser(ptx).run(); }

std::vector<std::string> ptx_kernel_names(const PtxProgram& program) {
  std::vector<std::string> names;
  for (const PtxFunction& f : program.functions)
    if (f.is_entry)
      names.push_back(f.name);
  return names;
}

} // namespace wl
