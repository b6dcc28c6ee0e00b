#pragma once
// Inside the PTX parser: the operands of one instruction as written, and the decoder that turns
// an opcode and those operands into a PtxInstruction. ptx_program.cpp reads the module's
// structure (directives, declarations, scopes, labels) and calls decode_instruction for each
// instruction; ptx_decode.cpp and ptx_decode_ops.cpp know the opcodes (ptx_decoder.h).

#include "model/ptx_program.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace wl::ptx_detail {

// One operand as written, its names already looked up in the scope.
struct RawOperand {
  enum class Kind {
    reg,
    special,
    clock,
    symbol,
    label,
    integer,
    f32_bits,
    f64_bits,
    decimal,
    memory,
    vector,
    list,
    bad
  };
  Kind kind = Kind::bad;
  int reg = -1;         // reg: the register (-1 is the sink `_`); memory: the base register
  int reg2 = -1;        // a pair `%p|%q`: the second register (-1 when none)
  bool negated = false; // `!%p`
  PtxSpecial special = PtxSpecial::tid_x;
  PtxConstantKind symbol_kind = PtxConstantKind::variable; // symbol, or a memory base symbol
  int symbol = -1;         // the variable or parameter of a symbol (or a memory operand's base)
  std::uint64_t bits = 0;  // integer (two's complement), f32_bits, f64_bits; memory base address
  double decimal = 0;      // decimal
  std::int64_t offset = 0; // memory: the +offset
  bool base_is_number = false; // memory: [number]
  bool complex = false;        // memory: [tex, {x, y}] and other forms only unsupported ops use
  std::string name;            // label and function names, and the text of a bad operand
  std::vector<RawOperand> elements; // vector `{a, b}` and list `(a, b)`
};

// What the decoder needs from the function being built: pseudo-registers on demand.
class FunctionBuilder {
public:
  explicit FunctionBuilder(PtxFunction& function) : m_function(function) {}
  // The pseudo-register holding `constant` (one per distinct constant).
  int constant(const PtxConstant& constant);
  int bits(std::uint64_t value) { return constant({PtxConstantKind::bits, value, 0, {}}); }
  // The implicit registers: the carry flag of add.cc/addc and the sink `_`.
  int carry_register();
  int sink_register();
  PtxType register_type(int reg) const;
  bool is_thread_register(int reg) const {
    return reg >= 0 && reg < static_cast<int>(m_function.registers.size());
  }
  PtxFunction& function() { return m_function; }
  // While parsing, pseudo-registers are numbered from kConstantBase (registers may still be
  // declared); finish() renumbers them after the function's registers.
  static constexpr int kConstantBase = 1 << 24;
  void finish();

private:
  int implicit_register(const char* name, PtxType type, int& cached);
  PtxFunction& m_function;
  std::map<std::tuple<int, std::uint64_t, int, int>, int> m_constants;
  int m_carry = -1, m_sink = -1;
};

// Decodes `opcode` (e.g. "ld.global.v4.f32") with its operands into `out` (guard and source
// are set by the caller). An opcode, modifier or operand form it does not know leaves `out`
// unsupported, naming what. A branch's label is returned in `label` for the caller to resolve.
void decode_instruction(std::string_view opcode, std::vector<RawOperand>& operands,
                        FunctionBuilder& builder, PtxInstruction& out, std::string& label);

// The special register `name` (%tid.x, %laneid, ...), or false.
bool special_register(std::string_view name, PtxSpecial& special);

} // namespace wl::ptx_detail
