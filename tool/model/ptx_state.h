#pragma once
// Inside the PTX machine: its state and what its files share. ptx_machine.cpp lays memory out
// and picks each instruction's handler; ptx_schedule.cpp runs a block's warps; the handlers are
// in ptx_execute.cpp (the choice, moves), ptx_integer.cpp, ptx_float_ops.cpp, ptx_convert.cpp,
// ptx_warp.cpp (warp-wide, unsupported, calls) and ptx_memory.cpp (loads, stores, atomics);
// ptx_region.cpp keeps which bytes of memory are unknown.
//
// Registers are register-major: register r of thread t sits at values[r * stride + t], so one
// instruction walks the 32 lanes of a warp through contiguous memory. Each (register, warp) has
// a 32-bit unknown mask (bit i: lane i's value is unknown) and the origin of that unknown value.

#include "model/ptx_machine.h"

#include <array>
#include <bit>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace wl {
namespace ptx_detail {

// Where an unknown value came from, for the message naming it: a kind and an index (an
// instruction, or for an uninitialised value the register).
enum class TaintKind : std::uint8_t {
  none,
  unsupported,      // an instruction the model does not run
  uninitialised,    // a register read before any write
  shared_unwritten, // shared memory read before any write in the block
  local_unwritten,  // local memory read before any write
  unknown_store,    // memory a store with an unknown address (or value) may have written
  stopped_warp,     // shared memory a stopped warp would have written
  not_converged,    // a warp-wide instruction reading a lane that is not running with it
  call,             // a call the model does not follow
  gpu_state,        // what only the GPU knows: the clock, which SM or warp slot runs the block
};
using Origin = std::uint64_t;
inline Origin make_origin(TaintKind kind, int index) {
  return (static_cast<std::uint64_t>(kind) << 32) | static_cast<std::uint32_t>(index);
}
inline TaintKind origin_kind(Origin o) { return static_cast<TaintKind>(o >> 32); }
inline int origin_index(Origin o) { return static_cast<int>(static_cast<std::uint32_t>(o)); }

// A stretch of memory: a caller's buffer, a module variable, the block's shared memory, the
// parameters, or one thread's local memory. Which bytes are unknown is kept one bit a byte, in
// pages of 4 KiB made only when needed; making the whole region unknown is O(1) (an epoch that
// marks every page older than it all unknown), so no hostile loop makes taint cost its size.
class Region {
public:
  // Fills a lazy region's bytes [offset, offset + into.size()) the first time any is touched.
  using Filler = std::function<void(std::uint64_t offset, std::span<std::byte> into)>;

  std::uint64_t address = 0;
  std::vector<std::byte> bytes; // the region's bytes, unless it is lazy
  Origin origin = 0;            // of the first unknown byte
  int buffer = -1, variable = -1;
  bool constant = false;

  // A region of `size` bytes whose pages are made and filled only when first touched: a launch's
  // buffers hold hundreds of MiB, of which the blocks the model runs touch a few pages.
  void make_lazy(std::uint64_t size, Filler filler);
  bool lazy() const { return static_cast<bool>(m_filler); }
  std::uint64_t size() const { return lazy() ? m_size : bytes.size(); }
  std::uint64_t end() const { return address + size(); }
  // The byte at `offset`, and those after it up to the end of its 256-byte piece.
  std::byte* at(std::uint64_t offset) { return lazy() ? lazy_at(offset) : &bytes[offset]; }
  bool any_unknown() const { return m_epoch != 0 || m_dirty; }
  bool unknown_at(std::uint64_t offset, std::uint64_t n) const;
  void set_known(std::uint64_t offset, std::uint64_t n);
  void set_unknown(std::uint64_t offset, std::uint64_t n, Origin why);
  void taint_all(Origin why);
  void reset(std::size_t size, bool all_unknown, Origin why); // a fresh block's memory

private:
  static constexpr int kPageShift = 12;
  // A lazy region is filled 256 bytes at a time: a warp's access never crosses one (16 bytes a
  // lane at most, aligned), and a tile's rows touch many pieces of a row-major buffer, of which a
  // page at a time would fill sixteen times the bytes read.
  static constexpr int kLazyShift = 8;
  bool stale(std::size_t page) const {
    return m_page_epoch.empty() ? m_epoch != 0 : m_page_epoch[page] != m_epoch;
  }
  void make_pages();
  void refresh(std::size_t page); // a stale page's bits, all unknown, made current
  template <class Each> void each_page(std::uint64_t offset, std::uint64_t n, Each each);

  std::byte* lazy_at(std::uint64_t offset);

  std::uint32_t m_epoch = 0; // bumped by taint_all: every page from before is all unknown
  bool m_dirty = false;      // some bit was set since the last reset
  std::vector<std::uint32_t> m_page_epoch;
  std::vector<std::uint64_t> m_bits; // one bit a byte: unknown
  Filler m_filler;
  std::uint64_t m_size = 0;
  std::unordered_map<std::uint64_t, std::unique_ptr<std::byte[]>> m_pages; // a lazy one's pieces
};

// Lanes at one PC of a warp; a warp keeps them sorted by PC, the smallest last.
struct Group {
  std::int32_t pc = 0;
  std::uint32_t mask = 0;
};

struct Warp {
  int index = 0;
  std::uint32_t present = 0; // the lanes that exist (a partial last warp has fewer)
  std::uint32_t exited = 0;
  bool stopped = false;
  std::array<Group, 33> groups{}; // running, by PC descending
  int group_count = 0;
  std::array<Group, 33> waiting{}; // at a barrier: pc is the barrier's
  int waiting_count = 0;

  std::uint32_t running() const {
    std::uint32_t m = 0;
    for (int i = 0; i < group_count; ++i)
      m |= groups[i].mask;
    return m;
  }
  // Adds lanes at `pc`, merging with lanes already there.
  void insert(std::int32_t pc, std::uint32_t mask) {
    if (mask == 0)
      return;
    int i = group_count;
    while (i > 0 && groups[i - 1].pc < pc)
      --i;
    if (i > 0 && groups[i - 1].pc == pc) {
      groups[i - 1].mask |= mask;
      return;
    }
    for (int j = group_count; j > i; --j)
      groups[j] = groups[j - 1];
    groups[i] = {pc, mask};
    ++group_count;
  }
};

// Kinds of reasons, for reporting each once per instruction.
enum class StopKind : std::uint8_t {
  unsupported,
  call,
  address_unknown,
  guard_unknown,
  branch_unknown,
  fault,
  division_by_zero,
  trap,
  budget,
  barrier_divergent,
  barrier_arrive,
  too_large,
};

struct Exec;
// Runs one instruction for the active lanes of a warp; false when the warp must stop (the
// handler has reported why).
using Handler = bool (*)(Exec&, const PtxInstruction&, std::uint32_t active);

enum class Control : std::uint8_t { normal, branch, exit, barrier, trap };

} // namespace ptx_detail

struct PtxMachineState {
  using Region = ptx_detail::Region;
  using Origin = ptx_detail::Origin;

  PtxFunction kernel;
  std::vector<PtxVariable> variables; // the program's, all of them
  std::vector<ptx_detail::Handler> handlers;
  std::vector<ptx_detail::Control> control;
  std::vector<std::string> unsupported_why; // per instruction: why it has no handler ("" if it has)
  std::vector<std::uint64_t> register_mask; // per register: the bits its type holds

  // Layout: each variable's address in its own space (shared: offset in the window; local:
  // offset in a thread's memory; .param in a body: kPtxParamScratch + its local offset).
  std::vector<std::uint64_t> variable_address;
  std::uint64_t static_shared = 0, dynamic_shared_offset = 0, local_bytes = 0;

  std::vector<Region> globals;    // buffers and module .global/.const variables
  std::vector<int> by_address;    // globals sorted by address
  std::vector<int> buffer_region; // buffer index -> globals index
  int region_hint = 0;

  // The block being run.
  Dim3 grid, block, block_index;
  int threads = 0, warps = 0;
  std::size_t stride = 0; // threads rounded up to whole warps
  Region params, shared;
  std::vector<Region> locals; // one a thread (none when the kernel has no local memory)
  std::vector<std::uint64_t> values;
  std::vector<std::uint32_t> unknown;
  std::vector<Origin> origins;
  std::vector<ptx_detail::Warp> warp_state;
  std::int64_t executed = 0, limit = 0, thread_instructions = 0;
  std::uint64_t clock = 0;
  PtxBlockRun* run = nullptr;
  const std::function<void(const PtxAccess&)>* on_access = nullptr;
  std::set<std::pair<int, int>> reported;

  int thread_registers() const { return static_cast<int>(kernel.registers.size()); }
  // "line 14" (or "ptx instruction 7" where the compiler gave no line).
  std::string where(int pc) const;
  // What an unknown value came from, as a phrase: "mma.sync at line 40, which is not modelled".
  std::string origin_text(Origin origin) const;
  // Records a reason once per instruction and kind; the prefix names the line (and lane).
  void report(int pc, ptx_detail::StopKind kind, int warp, int lane, bool stopping,
              const std::string& what);
  // The block's global regions made unknown (a store whose address is unknown, ...).
  void taint_globals(Origin why);
  const Region* find_global(std::uint64_t address, std::uint64_t bytes);
};

namespace ptx_detail {

// One warp's view of the registers while it runs an instruction.
struct Exec {
  PtxMachineState& m;
  std::uint64_t* values;
  std::uint32_t* unknown;
  Origin* origins;
  std::size_t stride;
  int warps;
  int warp;
  int pc;
  Warp* state;

  std::uint64_t* reg(int r) const {
    return values + static_cast<std::size_t>(r) * stride + static_cast<std::size_t>(warp) * 32;
  }
  std::uint32_t& unk(int r) const { return unknown[static_cast<std::size_t>(r) * warps + warp]; }
  Origin& origin(int r) const { return origins[static_cast<std::size_t>(r) * warps + warp]; }

  // The destinations of `in` become unknown in `lanes` (from `why`), or known in `known`.
  void set_unknown(int r, std::uint32_t lanes, Origin why) const {
    if (lanes == 0)
      return;
    if ((unk(r) & ~lanes) == 0 || origin(r) == 0)
      origin(r) = why;
    unk(r) |= lanes;
  }
  // Values flow from the sources of `in` to its destinations: a destination lane is unknown
  // when any source lane is.
  void flow(const PtxInstruction& in, std::uint32_t active) const {
    std::uint32_t u = 0;
    for (int i = in.dest_count; i < in.op_count; ++i)
      u |= unk(in.ops[i]);
    u &= active;
    if (u == 0) {
      for (int i = 0; i < in.dest_count; ++i)
        unk(in.ops[i]) &= ~active;
      return;
    }
    Origin why = 0;
    for (int i = in.dest_count; i < in.op_count && why == 0; ++i)
      if (unk(in.ops[i]) & active)
        why = origin(in.ops[i]);
    for (int i = 0; i < in.dest_count; ++i) {
      unk(in.ops[i]) &= ~active;
      set_unknown(in.ops[i], u, why);
    }
  }
  // The first unknown origin among `regs` in `lanes` (0 when all known).
  Origin unknown_origin(int r, std::uint32_t lanes) const {
    return (unk(r) & lanes) ? origin(r) : 0;
  }
  void report(StopKind kind, int lane, bool stopping, const std::string& what) const {
    m.report(pc, kind, warp, lane, stopping, what);
  }
};

// Calls f(lane) for every lane of `mask`, the full warp without tests.
template <class F> inline void each_lane(std::uint32_t mask, F&& f) {
  if (mask == 0xffffffffu) {
    for (int l = 0; l < 32; ++l)
      f(l);
  } else {
    for (std::uint32_t m = mask; m; m &= m - 1)
      f(std::countr_zero(m));
  }
}

// kParamScratch + offset: the param-space address of a body's .param (in local memory).
inline constexpr std::uint64_t kParamScratch = 1ull << 31;

inline std::uint64_t width_mask(int bytes) {
  return bytes >= 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
}

// The handler for an instruction, or nullptr with `why` set when the model does not run it.
Handler handler_for(const PtxInstruction& in, std::string& why);
// Families, one a file.
Handler memory_handler(const PtxInstruction& in, std::string& why);  // ptx_memory.cpp
Handler convert_handler(const PtxInstruction& in, std::string& why); // ptx_convert.cpp
Handler warp_handler(const PtxInstruction& in, std::string& why);    // ptx_warp.cpp
Handler float_handler(const PtxInstruction& in, std::string& why);   // ptx_float_ops.cpp
// Integer, bit and predicate instructions whose operands are `operand_type` (ptx_integer.cpp).
Handler integer_handler(const PtxInstruction& in, PtxType operand_type);

// Unsupported instructions and calls: report, make what they write unknown, go on.
bool exec_unsupported(Exec& x, const PtxInstruction& in, std::uint32_t active);
bool exec_call(Exec& x, const PtxInstruction& in, std::uint32_t active);
// Memory of `space` that `lanes` may have written becomes unknown.
void taint_space(Exec& x, PtxSpace space, std::uint32_t lanes, Origin why);

} // namespace ptx_detail
} // namespace wl
