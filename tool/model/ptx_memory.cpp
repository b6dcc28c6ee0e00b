// Loads, stores and atomics: each lane's address is found in its memory (a caller's buffer or a
// module variable for global and constant, the block's window for shared, the thread's own
// memory for local, the parameter buffer for param; a generic address by the window it falls
// in), checked (inside, aligned to the access's width), reported as one access per space, then
// performed. Atomics run lane by lane in lane order, so the results are deterministic.
//
// Unknown memory: each region keeps which bytes are unknown (ptx_state.h). A load of an unknown
// byte gives an unknown value; a store makes its bytes known or unknown with its value; a store
// whose address is unknown may have written anywhere in its space, so all of that space (in
// this block for shared, for the rest of the launch for global) becomes unknown.

#include "model/ptx_float.h"
#include "model/ptx_state.h"

#include <cmath>
#include <cstring>

namespace wl::ptx_detail {
namespace {

using ptx_float::flush_subnormal;

// Where one lane's access lands.
struct Target {
  PtxSpace space = PtxSpace::global;
  Region* region = nullptr;
  std::uint64_t offset = 0;   // in the region
  std::uint64_t reported = 0; // the address as the access reports it
};

struct Lanes {
  std::array<Target, 32> at;
};

std::string hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

const char* space_word(PtxSpace space) {
  switch (space) {
  case PtxSpace::shared:
    return "shared";
  case PtxSpace::local:
    return "local";
  case PtxSpace::constant:
    return "constant";
  case PtxSpace::param:
    return "parameter";
  default:
    return "global";
  }
}

// Finds the lane's target in `space`; false (with why in `why`) when the address is outside
// all memory.
bool locate(Exec& x, PtxSpace space, std::uint64_t address, int width, int lane, Target& t,
            std::string& why) {
  PtxMachineState& m = x.m;
  if (space == PtxSpace::generic) {
    const std::uint64_t window = address >> 56;
    if (window >= 1 && window <= 3 && (address & ((1ull << 56) - 1)) < kPtxWindowBytes) {
      space = window == 1 ? PtxSpace::shared : window == 2 ? PtxSpace::local : PtxSpace::param;
      address -= window << 56;
    }
  }
  t.space = space;
  t.reported = address;
  const auto fits = [&](std::uint64_t size) {
    return address <= size && static_cast<std::uint64_t>(width) <= size - address;
  };
  switch (space) {
  case PtxSpace::shared:
    t.region = &m.shared;
    t.offset = address;
    if (fits(m.shared.bytes.size()))
      return true;
    why = "shared address " + hex(address) + " is past the block's " +
          std::to_string(m.shared.bytes.size()) + " bytes of shared memory";
    return false;
  case PtxSpace::param:
    if (address < kParamScratch) {
      t.region = &m.params;
      t.offset = address;
      if (fits(m.params.bytes.size()))
        return true;
      why = "parameter address " + hex(address) + " is past the kernel's " +
            std::to_string(m.params.bytes.size()) + " bytes of parameters";
      return false;
    }
    address -= kParamScratch;
    [[fallthrough]];
  case PtxSpace::local:
    if (!fits(m.local_bytes)) {
      why = "local address " + hex(address) + " is past the thread's " +
            std::to_string(m.local_bytes) + " bytes of local memory";
      return false;
    }
    t.region = &m.locals[static_cast<std::size_t>(x.warp) * 32 + static_cast<std::size_t>(lane)];
    t.offset = address;
    return true;
  default: {
    const Region* r = m.find_global(address, static_cast<std::uint64_t>(width));
    if (r && (space != PtxSpace::constant || r->constant)) {
      t.region = const_cast<Region*>(r);
      t.offset = address - r->address;
      t.space = r->constant ? PtxSpace::constant : PtxSpace::global;
      return true;
    }
    why = "address " + hex(address) + " is outside every " +
          (space == PtxSpace::constant ? "constant variable" : "buffer");
    return false;
  }
  }
}

void emit(Exec& x, const PtxInstruction& in, PtxOp op, PtxSpace space, std::uint32_t mask,
          const Lanes& lanes, int width) {
  if (!*x.m.on_access)
    return;
  PtxAccess a;
  a.instruction = x.pc;
  a.file = in.source.file;
  a.line = in.source.line;
  a.inlined_line = in.source.inlined_line;
  a.space = space;
  a.op = op;
  a.warp = x.warp;
  a.lanes.active_mask = mask;
  a.lanes.width = width;
  if (space == PtxSpace::shared && op == PtxOp::atomic) {
    const auto kind = static_cast<PtxAtomOp>(in.mode);
    a.lanes.lane_passes = kind == PtxAtomOp::exch ? 1 : kind == PtxAtomOp::cas ? 2 : 0;
  }
  const Region* first = lanes.at[static_cast<std::size_t>(std::countr_zero(mask))].region;
  bool same = true;
  each_lane(mask, [&](int l) {
    a.lanes.address[static_cast<std::size_t>(l)] = lanes.at[static_cast<std::size_t>(l)].reported;
    same = same && lanes.at[static_cast<std::size_t>(l)].region == first;
  });
  if (same && (space == PtxSpace::global || space == PtxSpace::constant)) {
    a.buffer = first->buffer;
    a.variable = first->variable;
  }
  (*x.m.on_access)(a);
}

// What an access whose address (or guard) is unknown does: nothing reported, its results
// unknown, and memory it may have written unknown.
void skip_access(Exec& x, const PtxInstruction& in, std::uint32_t lanes, Origin why) {
  x.report(StopKind::address_unknown, -1, false,
           "the address depends on " + x.m.origin_text(why) + ", so this access is not shown");
  for (int i = 0; i < in.dest_count; ++i)
    x.set_unknown(in.ops[i], lanes, why);
  if (in.opcode != PtxOpcode::ld)
    taint_space(x, in.space, lanes, make_origin(TaintKind::unknown_store, x.pc));
}

enum class Prepared { ok, skipped, fault };

// Finds every active lane's target and reports the access (one a space the lanes fall in).
Prepared prepare(Exec& x, const PtxInstruction& in, std::uint32_t active, PtxOp op, int width,
                 Lanes& lanes) {
  if (const Origin why = x.unknown_origin(in.address, active)) {
    skip_access(x, in, active, why);
    return Prepared::skipped;
  }
  const std::uint64_t* base = x.reg(in.address);
  std::uint32_t spaces = 0;
  bool fault = false;
  std::string why;
  each_lane(active, [&](int l) {
    if (fault)
      return;
    Target& t = lanes.at[static_cast<std::size_t>(l)];
    const std::uint64_t address = base[l] + static_cast<std::uint64_t>(in.offset);
    if (locate(x, in.space, address, width, l, t, why) &&
        address % static_cast<std::uint64_t>(width) != 0)
      why = std::string(space_word(t.space)) + " address " + hex(t.reported) +
            " is not aligned to the access's " + std::to_string(width) + " bytes";
    if (!why.empty()) {
      x.report(StopKind::fault, l, true, why + " (the kernel would fault); the warp stops here");
      fault = true;
    }
    spaces |= 1u << static_cast<int>(t.space);
  });
  if (fault)
    return Prepared::fault;
  for (int sp = 0; sp < 5; ++sp) {
    if (!(spaces & (1u << sp)))
      continue;
    std::uint32_t mask = 0;
    each_lane(active, [&](int l) {
      if (static_cast<int>(lanes.at[static_cast<std::size_t>(l)].space) == sp)
        mask |= 1u << l;
    });
    emit(x, in, op, static_cast<PtxSpace>(sp), mask, lanes, width);
  }
  return Prepared::ok;
}

// Little-endian, as the GPU; each size its own fixed copy (a loop's hottest code).
std::uint64_t read_bytes(const std::byte* p, int n) {
  switch (n) {
  case 1:
    return static_cast<std::uint8_t>(*p);
  case 2: {
    std::uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  case 4: {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  default: {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  }
}

void write_bytes(std::byte* p, std::uint64_t v, int n) {
  switch (n) {
  case 1:
    *p = static_cast<std::byte>(v);
    break;
  case 2: {
    const auto w = static_cast<std::uint16_t>(v);
    std::memcpy(p, &w, 2);
    break;
  }
  case 4: {
    const auto w = static_cast<std::uint32_t>(v);
    std::memcpy(p, &w, 4);
    break;
  }
  default:
    std::memcpy(p, &v, 8);
  }
}

std::uint64_t extend(std::uint64_t raw, PtxType type, int bytes) {
  if (!ptx_type_is_signed(type) || bytes >= 8)
    return raw;
  const int shift = 64 - 8 * bytes;
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(raw << shift) >> shift);
}

bool exec_load(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  if (active == 0)
    return true;
  const int size = ptx_type_bytes(in.type);
  Lanes lanes;
  const Prepared p = prepare(x, in, active, PtxOp::load, size * in.vector, lanes);
  if (p != Prepared::ok)
    return p == Prepared::skipped;
  for (int e = 0; e < in.vector; ++e) {
    const int dest = in.ops[static_cast<std::size_t>(e)];
    std::uint64_t* d = x.reg(dest);
    const std::uint64_t mask = x.m.register_mask[static_cast<std::size_t>(dest)];
    std::uint32_t unknown = 0;
    Origin why = 0;
    each_lane(active, [&](int l) {
      const Target& t = lanes.at[static_cast<std::size_t>(l)];
      const std::uint64_t offset = t.offset + static_cast<std::uint64_t>(e * size);
      d[l] = extend(read_bytes(t.region->at(offset), size), in.type, size) & mask;
      if (t.region->any_unknown() && t.region->unknown_at(offset, size)) {
        unknown |= 1u << l;
        why = t.region->origin;
      }
    });
    x.unk(dest) &= ~active;
    x.set_unknown(dest, unknown, why);
  }
  return true;
}

bool exec_store(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  if (active == 0)
    return true;
  const int size = ptx_type_bytes(in.type);
  Lanes lanes;
  const Prepared p = prepare(x, in, active, PtxOp::store, size * in.vector, lanes);
  if (p != Prepared::ok)
    return p == Prepared::skipped;
  for (int e = 0; e < in.vector; ++e) {
    const int source = in.ops[static_cast<std::size_t>(e)];
    const std::uint64_t* v = x.reg(source);
    const std::uint32_t unknown = x.unk(source);
    each_lane(active, [&](int l) {
      const Target& t = lanes.at[static_cast<std::size_t>(l)];
      const std::uint64_t offset = t.offset + static_cast<std::uint64_t>(e * size);
      write_bytes(t.region->at(offset), v[l], size);
      if ((unknown >> l) & 1)
        t.region->set_unknown(offset, size, x.origin(source));
      else
        t.region->set_known(offset, size);
    });
  }
  return true;
}

// The new value of an atomic: `old` combined with b (and c for cas), `type`-wide.
std::uint64_t atomic_value(PtxAtomOp op, PtxType type, std::uint64_t old, std::uint64_t b,
                           std::uint64_t c) {
  const int bytes = ptx_type_bytes(type);
  const std::uint64_t mask = width_mask(bytes);
  const bool is_signed = ptx_type_is_signed(type);
  const auto s = [&](std::uint64_t v) {
    return bytes == 4 ? static_cast<std::int64_t>(static_cast<std::int32_t>(v))
                      : static_cast<std::int64_t>(v);
  };
  old &= mask, b &= mask, c &= mask;
  switch (op) {
  case PtxAtomOp::add:
    if (type == PtxType::f32) { // flushes subnormal inputs and result, as the GPU's atom.add.f32
      const float r =
          flush_subnormal(flush_subnormal(std::bit_cast<float>(static_cast<std::uint32_t>(old))) +
                          flush_subnormal(std::bit_cast<float>(static_cast<std::uint32_t>(b))));
      return std::isnan(r) ? 0x7fffffffu : std::bit_cast<std::uint32_t>(r);
    }
    if (type == PtxType::f64)
      return std::bit_cast<std::uint64_t>(std::bit_cast<double>(old) + std::bit_cast<double>(b));
    return (old + b) & mask;
  case PtxAtomOp::min:
    return is_signed ? (s(b) < s(old) ? b : old) : std::min(old, b);
  case PtxAtomOp::max:
    return is_signed ? (s(b) > s(old) ? b : old) : std::max(old, b);
  case PtxAtomOp::inc:
    return old >= b ? 0 : (old + 1) & mask;
  case PtxAtomOp::dec:
    return (old == 0 || old > b) ? b : old - 1;
  case PtxAtomOp::cas:
    return old == b ? c : old;
  case PtxAtomOp::exch:
    return b;
  case PtxAtomOp::and_:
    return old & b;
  case PtxAtomOp::or_:
    return old | b;
  default:
    return old ^ b;
  }
}

bool exec_atomic(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  if (active == 0)
    return true;
  const bool reduction = in.opcode == PtxOpcode::red;
  const int size = ptx_type_bytes(in.type);
  Lanes lanes;
  const Prepared p =
      prepare(x, in, active, reduction ? PtxOp::reduction : PtxOp::atomic, size, lanes);
  if (p != Prepared::ok)
    return p == Prepared::skipped;
  const auto op = static_cast<PtxAtomOp>(in.mode);
  const int first = in.dest_count;
  const std::uint64_t* b = x.reg(in.ops[static_cast<std::size_t>(first)]);
  const bool has_c = op == PtxAtomOp::cas;
  const std::uint64_t* c = has_c ? x.reg(in.ops[static_cast<std::size_t>(first + 1)]) : b;
  const std::uint32_t operand_unknown =
      x.unk(in.ops[static_cast<std::size_t>(first)]) |
      (has_c ? x.unk(in.ops[static_cast<std::size_t>(first + 1)]) : 0);
  const Origin operand_why = x.unknown_origin(in.ops[static_cast<std::size_t>(first)], active)
                                 ? x.origin(in.ops[static_cast<std::size_t>(first)])
                             : has_c ? x.origin(in.ops[static_cast<std::size_t>(first + 1)])
                                     : 0;
  std::uint32_t unknown = 0;
  Origin why = 0;
  std::array<std::uint64_t, 32> old{};
  each_lane(active, [&](int l) { // in lane order: each lane sees the ones before it
    const Target& t = lanes.at[static_cast<std::size_t>(l)];
    std::byte* at = t.region->at(t.offset);
    old[static_cast<std::size_t>(l)] = read_bytes(at, size);
    write_bytes(at, atomic_value(op, in.type, old[static_cast<std::size_t>(l)], b[l], c[l]), size);
    const bool old_unknown = t.region->any_unknown() && t.region->unknown_at(t.offset, size);
    if (old_unknown || ((operand_unknown >> l) & 1)) {
      unknown |= 1u << l;
      why = old_unknown ? t.region->origin : operand_why;
      t.region->set_unknown(t.offset, size, why);
    }
  });
  if (!reduction) {
    std::uint64_t* d = x.reg(in.ops[0]);
    each_lane(active, [&](int l) { d[l] = old[static_cast<std::size_t>(l)]; });
    x.unk(in.ops[0]) &= ~active;
    x.set_unknown(in.ops[0], unknown, why);
  }
  return true;
}

std::uint64_t window_of(PtxSpace space) {
  switch (space) {
  case PtxSpace::shared:
    return kPtxSharedWindow;
  case PtxSpace::local:
    return kPtxLocalWindow;
  case PtxSpace::param:
    return kPtxParamWindow;
  default:
    return 0; // global and constant addresses are generic as they are
  }
}

bool exec_cvta(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  const std::uint64_t window = window_of(in.space);
  const std::uint64_t mask = width_mask(ptx_type_bytes(in.type));
  if (in.flags & kPtxTo)
    each_lane(active, [&](int l) { d[l] = (a[l] - window) & mask; });
  else
    each_lane(active, [&](int l) { d[l] = (a[l] + window) & mask; });
  x.flow(in, active);
  return true;
}

bool exec_isspacep(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  each_lane(active, [&](int l) {
    const std::uint64_t window = a[l] >> 56;
    const bool in_window = (a[l] & ((1ull << 56) - 1)) < kPtxWindowBytes;
    switch (in.space) {
    case PtxSpace::shared:
      d[l] = window == 1 && in_window;
      break;
    case PtxSpace::local:
      d[l] = window == 2 && in_window;
      break;
    case PtxSpace::param:
      d[l] = window == 3 && in_window;
      break;
    case PtxSpace::constant: {
      const Region* r = x.m.find_global(a[l], 1);
      d[l] = r && r->constant;
      break;
    }
    default:
      d[l] = window == 0;
    }
  });
  x.flow(in, active);
  return true;
}

} // namespace

void taint_space(Exec& x, PtxSpace space, std::uint32_t lanes, Origin why) {
  PtxMachineState& m = x.m;
  if (space == PtxSpace::shared || space == PtxSpace::generic)
    m.shared.taint_all(why);
  if (space == PtxSpace::global || space == PtxSpace::generic)
    m.taint_globals(why);
  if (space == PtxSpace::local || space == PtxSpace::param || space == PtxSpace::generic)
    each_lane(lanes, [&](int l) {
      const std::size_t thread =
          static_cast<std::size_t>(x.warp) * 32 + static_cast<std::size_t>(l);
      if (thread < m.locals.size())
        m.locals[thread].taint_all(why);
    });
}

Handler memory_handler(const PtxInstruction& in, std::string& why) {
  (void)why;
  switch (in.opcode) {
  case PtxOpcode::ld:
    return exec_load;
  case PtxOpcode::st:
    return exec_store;
  case PtxOpcode::atom:
  case PtxOpcode::red:
    return exec_atomic;
  case PtxOpcode::cvta:
    return exec_cvta;
  case PtxOpcode::isspacep:
    return exec_isspacep;
  default:
    return nullptr;
  }
}

} // namespace wl::ptx_detail
