#pragma once
// Inside the PTX parser: the decoder of one instruction (ptx_decode.h). ptx_decode.cpp holds its
// framework (modifiers, operands) and the memory, move, control and call opcodes;
// ptx_decode_ops.cpp the arithmetic, comparisons, conversions and warp-wide opcodes.

#include "model/ptx_decode.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace wl::ptx_detail {

// What a modifier word is, when it is one that many opcodes share.
struct Modifiers {
  std::vector<PtxType> types;
  PtxSpace space = PtxSpace::generic;
  bool has_space = false;
  int vector = 1;
  PtxRound round = PtxRound::none;
  bool cache_hint = false; // .L2::cache_hint: one more operand, the policy, which is ignored
  std::vector<std::string_view> rest; // opcode-specific words
};

// One instruction's decoding: its opcode split at the dots, the shared modifiers scanned, then
// the opcode's own rules.
class Decoder {
public:
  Decoder(std::string_view opcode, std::vector<RawOperand>& operands, FunctionBuilder& builder,
          PtxInstruction& out, std::string& label);

  void run();

private:
  // ---- Modifiers
  bool take(std::string_view word); // the opcode-specific word, if the opcode has it
  // Exactly the given number of types and no word left that the opcode did not take.
  bool done(std::size_t types) const { return m_mods.rest.empty() && m_mods.types.size() == types; }
  PtxType type(std::size_t i = 0) const;
  template <class Enum, std::size_t N>
  bool take_one(const std::pair<std::string_view, Enum> (&table)[N], Enum& value) {
    for (const auto& [word, v] : table)
      if (take(word)) {
        value = v;
        return true;
      }
    return false;
  }

  // ---- Operands
  std::size_t count() const { return m_ops.size(); }
  const RawOperand& op(std::size_t i) const { return m_ops[i]; }

  // A value read as `t`: a register, immediate, special register or address; -1 when not one.
  int value(const RawOperand& o, PtxType t);
  int value(std::size_t i, PtxType t) { return i < count() ? value(op(i), t) : -1; }

  // A destination register (the sink `_` is a scratch register); -1 when not one.
  int dest(const RawOperand& o);
  int second_dest(const RawOperand& o);

  // Sets ops: the destinations, then the sources; false when any is missing.
  bool operands(std::initializer_list<int> dests, std::initializer_list<int> sources);
  bool push_source(int r);

  // [base + offset] into address and offset.
  bool memory(std::size_t i);

  // The operand count, allowing the trailing cache policy of .L2::cache_hint.
  bool arity(std::size_t n) const;

  // ---- Opcodes: each sets m_out and says whether it understood the instruction
  bool decode(); // by the opcode's first part
  bool simple(PtxOpcode opcode);

  // ptx_decode.cpp: moves, memory, control
  bool mov();
  // mov.b64 {%r1, %r2}, %rd1 (unpack) and mov.b64 %rd1, {%r1, %r2} (pack).
  bool pack(PtxType t);
  bool push_dest(int r);
  // The elements of a vector operand (or the one register) as destinations or sources.
  bool elements(const RawOperand& o, bool as_dest, PtxType t);
  bool access_shape(); // an ld/st's type, vector and space
  bool load();
  bool store();
  bool atomic(bool reduction);
  bool cvta();
  bool isspacep();
  bool branch();
  bool barrier();
  // Always decodes (a call is reported by the machine, whatever it calls).
  bool call();

  // ptx_decode_ops.cpp: arithmetic, comparisons, conversions, warp-wide
  void float_flags(); // .ftz .sat .approx .relu
  bool cvt();
  bool add_sub();
  // d, a, b[, c] with the carry flag after them: a second destination for .cc, a last source
  // for addc/madc.
  bool arithmetic_operands(std::size_t n, bool carry_in, bool carry_out);
  // The type an immediate in operand i takes: the instruction's, but a shift amount, a bit
  // position or a length is a u32.
  PtxType source_type(std::size_t i) const;
  static PtxType wider(PtxType t); // mul.wide's result type
  bool multiply();
  bool compare(bool is_set);
  bool shuffle();
  bool vote();
  bool warp_level(); // activemask, match, redux, elect
  // Arithmetic with one type and a fixed operand count.
  struct Shape {
    std::string_view base;
    PtxOpcode opcode;
    int operands; // destination included
  };
  bool arithmetic();
  bool two_types() const;
  bool opcode_words(); // the words only some arithmetic opcodes take

  // Not understood: unsupported, with what it writes (to become unknown).
  void unsupported();

  std::vector<RawOperand>& m_ops;
  FunctionBuilder& m_builder;
  PtxInstruction& m_out;
  std::string& m_label;
  std::string_view m_base;
  std::vector<std::string_view> m_parts;
  Modifiers m_mods;
};

} // namespace wl::ptx_detail
