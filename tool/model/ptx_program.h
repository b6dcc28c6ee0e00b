#pragma once
// A PTX module as the interpreter (ptx_machine.h) runs it: the text NVRTC makes from a person's
// .cu file, parsed once into kernels whose instructions are pre-decoded (an opcode enum, types,
// register indices), so running them does no string work. Immediates, special registers (%tid.x)
// and variable addresses become read-only pseudo-registers after the declared ones, so every
// operand is a register index. An instruction the parser does not know is kept, marked
// unsupported with its text: the machine then treats its results as unknown (taint).

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wl {

// Where memory lives. `generic` only appears in instructions (an ld/st/atom without a space);
// every reported access names the real space its address falls in.
enum class PtxSpace : std::uint8_t { global, shared, local, constant, param, generic };

enum class PtxType : std::uint8_t {
  none,
  pred,
  b8,
  b16,
  b32,
  b64,
  b128,
  u8,
  u16,
  u32,
  u64,
  s8,
  s16,
  s32,
  s64,
  f16,
  f16x2,
  bf16,
  bf16x2,
  f32,
  f64,
};

int ptx_type_bytes(PtxType type); // 0 for none and pred
bool ptx_type_is_float(PtxType type);
bool ptx_type_is_signed(PtxType type); // s8..s64

enum class PtxOpcode : std::uint8_t {
  unsupported, // kept with its text; its destinations become unknown
  mov,
  pack,   // mov.b32 %r, {%h1, %h2}: lanes' parts into one register
  unpack, // mov.b64 {%r1, %r2}, %rd: one register into parts
  ld,
  st,
  atom,
  red,
  cvta,
  cvt,
  isspacep,
  add,
  sub,
  mul,
  mad,
  mul24,
  mad24,
  sad,
  div,
  rem,
  abs,
  neg,
  min,
  max,
  popc,
  clz,
  brev,
  bfind,
  bfe,
  bfi,
  prmt,
  lop3,
  and_,
  or_,
  xor_,
  not_,
  cnot,
  shl,
  shr,
  shf,
  fma,
  rcp,
  sqrt,
  rsqrt,
  sin,
  cos,
  lg2,
  ex2,
  tanh,
  copysign,
  testp,
  setp,
  set,
  selp,
  slct,
  dp4a,
  dp2a,
  bra,
  exit, // ret and exit: the thread ends (calls are not modelled)
  bar,  // bar.sync / barrier.sync / bar.red / bar.arrive
  trap,
  call,
  shfl,
  vote,
  activemask,
  match,
  redux,
  elect,
  clock, // mov from %clock, %clock64, %globaltimer: a counter
  nop,   // membar, fence, prefetch, discard, nanosleep, bar.warp.sync, ...
};

// Comparison of setp and set; the float ones ending in u are true when either side is NaN.
enum class PtxCompare : std::uint8_t {
  eq,
  ne,
  lt,
  le,
  gt,
  ge,
  lo,
  ls,
  hi,
  hs,
  equ,
  neu,
  ltu,
  leu,
  gtu,
  geu,
  num,
  nan,
};
enum class PtxBoolOp : std::uint8_t { none, and_, or_, xor_ };
enum class PtxRound : std::uint8_t { none, rn, rz, rm, rp, rni, rzi, rmi, rpi };

// The per-opcode mode kept in PtxInstruction::mode.
enum class PtxMulMode : std::uint8_t { lo, hi, wide };
enum class PtxAtomOp : std::uint8_t { add, min, max, inc, dec, cas, exch, and_, or_, xor_ };
enum class PtxShflMode : std::uint8_t { up, down, bfly, idx };
enum class PtxVoteMode : std::uint8_t { all, any, uni, ballot };
enum class PtxBarMode : std::uint8_t { sync, arrive, red_popc, red_and, red_or };
enum class PtxTestp : std::uint8_t { finite, infinite, number, notanumber, normal, subnormal };
enum class PtxPrmtMode : std::uint8_t { none, f4e, b4e, rc8, ecl, ecr, rc16 };
enum class PtxReduxOp : std::uint8_t { add, min, max, and_, or_, xor_ };
enum class PtxCall : std::uint8_t { other, vprintf, assertfail };

// Flags in PtxInstruction::flags.
inline constexpr std::uint16_t kPtxFtz = 1 << 0;
inline constexpr std::uint16_t kPtxSat = 1 << 1;
inline constexpr std::uint16_t kPtxApprox = 1 << 2;
inline constexpr std::uint16_t kPtxCarryOut = 1 << 3; // add.cc: writes the carry flag
inline constexpr std::uint16_t kPtxCarryIn = 1 << 4;  // addc: reads it
inline constexpr std::uint16_t kPtxTo = 1 << 5;       // cvta.to.space
inline constexpr std::uint16_t kPtxNegate = 1 << 6; // the predicate source is !%p (setp c, vote a)
inline constexpr std::uint16_t kPtxNaN = 1 << 7;    // min.NaN / max.NaN
inline constexpr std::uint16_t kPtxClamp = 1 << 8;  // shf.clamp, shfl up/down clamps anyway
inline constexpr std::uint16_t kPtxLeft = 1 << 9;   // shf.l
inline constexpr std::uint16_t kPtxShiftAmt = 1 << 10; // bfind.shiftamt
inline constexpr std::uint16_t kPtxRelu = 1 << 11;     // cvt.relu, min/max.relu

// Where an instruction came from: the last .loc before it (0 when none), and the call site the
// compiler names with `inlined_at` when the code was inlined from a __device__ function.
struct PtxSource {
  int file = 0, line = 0, column = 0;
  int inlined_file = 0, inlined_line = 0;
};

// One instruction, decoded. ops[0, dest_count) are destinations and ops[dest_count, op_count)
// sources, every one a register index of the function (pseudo-registers included); memory
// operands are [address + offset] apart from them.
struct PtxInstruction {
  PtxOpcode opcode = PtxOpcode::unsupported;
  PtxType type = PtxType::none;       // the instruction's type (the destination's for cvt)
  PtxType type2 = PtxType::none;      // cvt's and set's source type, mul.wide's result type
  PtxSpace space = PtxSpace::generic; // of ld/st/atom/cvta/isspacep; what an unsupported one writes
  std::uint8_t vector = 1;            // elements of an ld/st .v2/.v4
  std::uint8_t mode = 0;              // PtxMulMode, PtxAtomOp, PtxShflMode, ... by opcode
  PtxCompare compare = PtxCompare::eq;
  PtxBoolOp bool_op = PtxBoolOp::none;
  PtxRound round = PtxRound::none;
  std::uint16_t flags = 0;
  std::int32_t guard = -1; // predicate register of @%p, -1 when none
  bool guard_negated = false;
  std::uint8_t dest_count = 0, op_count = 0;
  std::array<std::int32_t, 8> ops{};
  std::int32_t address = -1; // base register of a memory operand
  std::int64_t offset = 0;
  std::int32_t target = -1; // a branch's instruction index
  // Registers an unsupported instruction would write: they become unknown. For a call, the
  // .param variables (indices in PtxProgram::variables) its callee would write its results to.
  std::vector<std::int32_t> taint_dests;
  // Unsupported but writes memory (cp.async, st.async, ...): in `space` (generic: any).
  bool writes_memory = false;
  PtxSource source;
  std::string name; // "mma.sync", "ld.global": the opcode's first two parts, for messages
  std::string text; // the whole instruction as written, for messages and debugging
};

// A read-only pseudo-register: the same value for every thread (an immediate, a variable's
// address) or one the machine computes per thread (a special register such as %tid.x).
enum class PtxSpecial : std::uint8_t {
  tid_x,
  tid_y,
  tid_z,
  ntid_x,
  ntid_y,
  ntid_z,
  ctaid_x,
  ctaid_y,
  ctaid_z,
  nctaid_x,
  nctaid_y,
  nctaid_z,
  laneid,
  warpid,
  nwarpid,
  smid,
  nsmid,
  gridid,
  lanemask_eq,
  lanemask_lt,
  lanemask_le,
  lanemask_gt,
  lanemask_ge,
  dynamic_smem_size,
  total_smem_size,
  cluster_zero, // %cluster_ctarank, %cluster_ctaid.*: one block per cluster
  cluster_one,  // %cluster_nctarank, %cluster_nctaid.*
};
enum class PtxConstantKind : std::uint8_t { bits, variable, param, special };
struct PtxConstant {
  PtxConstantKind kind = PtxConstantKind::bits;
  std::uint64_t bits = 0;  // kind bits
  std::int32_t symbol = 0; // kind variable: module variable index; param: the function's param
  PtxSpecial special = PtxSpecial::tid_x;
};

struct PtxRegister {
  std::string name;
  PtxType type = PtxType::b32;
};

struct PtxParam {
  std::string name;
  std::uint32_t size = 0, align = 1, offset = 0; // offset in the parameter buffer
};

// A .global/.const/.shared/.local variable, at module scope or inside a function (function set),
// or a .param declared inside a function body (space param, function set): per-thread scratch.
struct PtxVariable {
  std::string name;
  PtxSpace space = PtxSpace::global;
  std::uint32_t align = 1;
  std::uint64_t size = 0;      // 0 for an .extern .shared array (the dynamic shared memory)
  bool dynamic_shared = false; // .extern .shared name[]
  int function = -1;           // the declaring function, -1 at module scope
  std::vector<std::byte> init; // initial bytes from the start (the rest is zero)
  struct Address {             // an initializer element that is another variable's address
    std::uint64_t offset = 0;  // where, in this variable
    int variable = 0;          // whose address
    std::int64_t addend = 0;   // plus this
    int bytes = 8;             // element size
    bool generic = false;      // generic(var) rather than var
  };
  std::vector<Address> addresses;
  int line = 0; // in the PTX
};

struct PtxFunction {
  std::string name;
  bool is_entry = false;
  std::vector<PtxParam> params;
  std::uint32_t param_bytes = 0;
  std::vector<PtxRegister> registers;       // declared, then the implicit ones (carry flag, sink)
  std::vector<PtxConstant> constants;       // pseudo-register registers.size() + i
  std::vector<PtxInstruction> instructions; // ends with an implicit exit
  std::vector<int> variables; // indices of the module variables it uses or declares, in order
  int line = 0;
  int register_count() const { return static_cast<int>(registers.size() + constants.size()); }
};

struct PtxFile {
  int index = 0;
  std::string path;
};

struct PtxProgram {
  std::vector<PtxFunction> functions; // entries (kernels) and .func bodies, in text order
  std::vector<PtxVariable> variables; // module scope and function scope, in text order
  std::vector<PtxFile> files;         // the .file directives
  int address_size = 64;
  // The path of `.file index`, or "" when there is none.
  std::string file_path(int index) const;
  const PtxFunction* find_function(std::string_view name) const;
};

// Parses a whole module. Throws UsageError("ptx line N: ...") for text that is not PTX or is
// malformed (an unbalanced brace, an undeclared register, a branch to no label); an instruction
// it does not know is kept, marked unsupported.
PtxProgram parse_ptx(std::string_view ptx);

// The mangled names of the module's kernels (.entry), in text order.
std::vector<std::string> ptx_kernel_names(const PtxProgram& program);

} // namespace wl
