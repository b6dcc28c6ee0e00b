#pragma once
// Inside the PTX parser: the parser of a module's structure. ptx_program.cpp reads directives,
// function bodies and instructions; ptx_declarations.cpp reads declarations (variables and their
// initializers, registers, parameters). Every size a declaration asks for is capped here, so a
// hostile file cannot make the model allocate without bound.

#include "model/ptx_decode.h"
#include "model/ptx_lexer.h"
#include "model/ptx_program.h"
#include "model/ptx_scopes.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wl::ptx_detail {

// The caps.
inline constexpr int kMaxScopeDepth = 256;
inline constexpr std::int64_t kMaxFunctionRegisters = 1 << 16;
inline constexpr std::int64_t kMaxModuleRegisters = 1 << 20;
inline constexpr std::uint64_t kMaxVariableBytes = 1ull << 32;     // any one variable
inline constexpr std::uint64_t kMaxInitializedBytes = 64ull << 20; // .global/.const, all together
inline constexpr std::uint32_t kMaxParamBytes = 64 * 1024;         // CUDA allows 32 KiB
inline constexpr std::size_t kMaxTextChars = 160;                  // an instruction's kept text

// One pass over the tokens: module statements, then each function body with its scopes.
class Parser {
public:
  explicit Parser(std::string_view text) : m_text(text), m_tokens(tokenize(text)) {}

  PtxProgram run();

private:
  // ---- Tokens
  const Token& peek(std::size_t ahead = 0) const {
    return m_tokens[std::min(m_at + ahead, m_tokens.size() - 1)];
  }
  const Token& next() {
    const Token& token = peek();
    if (m_at + 1 < m_tokens.size())
      ++m_at;
    return token;
  }
  bool take(std::string_view text) {
    if (!peek().is(text))
      return false;
    next();
    return true;
  }
  // Each of these takes what it names or throws UsageError saying what came instead.
  void expect(std::string_view text, std::string_view where);
  std::string found() const;
  std::string_view word(std::string_view what);
  std::uint64_t whole(std::string_view what);
  // Skips the rest of a statement, through its ';'.
  void skip_statement();
  // Skips the tokens on the current line (the argument of .version, .target, ...).
  void skip_line(int line);

  // ---- The module (ptx_program.cpp)
  void module_statement();
  void file();    // .file N "path"
  void section(); // .section .debug_str { ... }: skipped
  void function();

  // ---- Declarations (ptx_declarations.cpp)
  struct VariableType {
    PtxType type = PtxType::b8;
    std::uint32_t element = 1; // bytes of one element (a .v4 .f32 is 16)
    std::uint32_t align = 0;
  };
  // [.align N] [.v2/.v4] .type and the attributes PTX allows around them.
  VariableType variable_type();
  void skip_parenthesised();
  // Array dimensions [N][M]...: the element count; nullopt for an unsized [].
  std::optional<std::uint64_t> dimensions();
  // .global/.const/.shared/.local/.param declarations, at module scope (function -1) or in a body.
  void variables(int function, bool is_extern);
  void add_variable(PtxVariable v);
  // = value, or = { values } with nested braces, flattened in order.
  void initializer(PtxVariable& v, const VariableType& vt);
  void initializer_element(PtxVariable& v, PtxType type, std::uint32_t size, std::uint64_t offset);
  static std::uint64_t literal_bits(const RawOperand& n, PtxType type);
  // A parameter list, laid out at each parameter's alignment.
  void params(PtxFunction& f);
  // .reg .type %r<N>, names, ...;
  void registers();

  // ---- Bodies and instructions (ptx_program.cpp)
  void body();
  void body_directive(PtxSource& source);
  // .loc file line column [, function_name label, inlined_at file line column]
  void loc(PtxSource& source);
  void instruction(FunctionBuilder& builder, const PtxSource& source);
  RawOperand operand();
  // A register (or a pair %p|%q), special register, variable, parameter, label or function.
  RawOperand named(int line);
  // [reg], [reg+offset], [reg+-offset], [reg-offset], [symbol+offset], [address]; a texture or
  // surface operand ([tex, {x, y}]) is kept as an address the decoder does not take.
  RawOperand memory(int line);

  std::string_view m_text;
  std::vector<Token> m_tokens;
  std::size_t m_at = 0;
  PtxProgram m_program;
  Scopes m_scopes;
  PtxFunction* m_function = nullptr; // the function whose body is being read
  std::uint64_t m_initialized_bytes = 0;
  std::int64_t m_module_registers = 0;
};

} // namespace wl::ptx_detail
