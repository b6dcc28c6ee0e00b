// Warp-wide instructions (shfl, vote, match, redux, elect, activemask), which read other lanes'
// registers, and the instructions the model does not run: unsupported ones and calls.
//
// A warp-wide instruction runs for the lanes at it together. A lane it reads that is not among
// them (diverged elsewhere, exited, or guarded off) gives an unknown result, not a guess: on the
// GPU the value is undefined, or the instruction would wait for a lane the model has not run.

#include "model/ptx_state.h"

#include <algorithm>

namespace wl::ptx_detail {
namespace {

// Lanes named in each lane's member mask that exist and have not exited but are not running
// this instruction with it: the hardware would wait for them; the model cannot.
std::uint32_t missing_members(const Exec& x, const std::uint64_t* members, std::uint32_t active) {
  const std::uint32_t alive = x.state->present & ~x.state->exited;
  std::uint32_t missing = 0;
  each_lane(active, [&](int l) {
    if ((static_cast<std::uint32_t>(members[l]) & alive & ~active) ||
        !((members[l] >> l) & 1)) // a lane outside its own mask: undefined
      missing |= 1u << l;
  });
  return missing;
}

std::uint32_t any_unknown(const Exec& x, const PtxInstruction& in, std::uint32_t active,
                          Origin& why) {
  std::uint32_t u = 0;
  for (int i = in.dest_count; i < in.op_count; ++i)
    if (x.unk(in.ops[i]) & active) {
      u |= x.unk(in.ops[i]) & active;
      if (why == 0)
        why = x.origin(in.ops[i]);
    }
  return u;
}

// The destinations are known in `active` except in `unknown` lanes.
void settle(Exec& x, const PtxInstruction& in, std::uint32_t active, std::uint32_t unknown,
            Origin why) {
  for (int i = 0; i < in.dest_count; ++i) {
    x.unk(in.ops[i]) &= ~active;
    x.set_unknown(in.ops[i], unknown & active, why);
  }
}

bool shfl(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  const int first = in.dest_count;
  std::uint64_t* d = x.reg(in.ops[0]);
  std::uint64_t* p = in.dest_count == 2 ? x.reg(in.ops[1]) : nullptr;
  const std::uint64_t* a = x.reg(in.ops[static_cast<std::size_t>(first)]);
  const std::uint64_t* b = x.reg(in.ops[static_cast<std::size_t>(first + 1)]);
  const std::uint64_t* c = x.reg(in.ops[static_cast<std::size_t>(first + 2)]);
  const std::uint64_t* members = x.reg(in.ops[static_cast<std::size_t>(first + 3)]);
  std::array<std::uint64_t, 32> source{};
  std::copy_n(a, 32, source.begin());
  const std::uint32_t a_unknown = x.unk(in.ops[static_cast<std::size_t>(first)]);
  Origin why = 0;
  std::uint32_t unknown = 0;
  // the lane index, b, c and the mask: unknown ones leave the result unknown
  for (int i = first + 1; i < in.op_count; ++i)
    if (const Origin o = x.unknown_origin(in.ops[static_cast<std::size_t>(i)], active)) {
      unknown |= x.unk(in.ops[static_cast<std::size_t>(i)]) & active;
      why = why ? why : o;
    }
  const std::uint32_t missing = missing_members(x, members, active);
  std::uint32_t data_unknown = 0;
  const auto mode = static_cast<PtxShflMode>(in.mode);
  each_lane(active, [&](int lane) {
    const int bval = static_cast<int>(b[lane] & 0x1f), cval = static_cast<int>(c[lane] & 0x1f);
    const int segmask = static_cast<int>((c[lane] >> 8) & 0x1f);
    const int max_lane = (lane & segmask) | (cval & ~segmask);
    const int min_lane = lane & segmask;
    int j = lane;
    bool pval = false;
    switch (mode) {
    case PtxShflMode::up:
      j = lane - bval, pval = j >= max_lane;
      break;
    case PtxShflMode::down:
      j = lane + bval, pval = j <= max_lane;
      break;
    case PtxShflMode::bfly:
      j = lane ^ bval, pval = j <= max_lane;
      break;
    default:
      j = min_lane | (bval & ~segmask), pval = j <= max_lane;
    }
    if (!pval)
      j = lane;
    d[lane] = source[static_cast<std::size_t>(j)] & 0xffffffffu;
    if (p)
      p[lane] = pval;
    if (!((active >> j) & 1) || ((missing >> lane) & 1))
      unknown |= 1u << lane;
    else if ((a_unknown >> j) & 1)
      data_unknown |= 1u << lane;
  });
  if (unknown && why == 0)
    why = make_origin(TaintKind::not_converged, x.pc);
  x.unk(in.ops[0]) &= ~active;
  x.set_unknown(in.ops[0], unknown, why);
  x.set_unknown(in.ops[0], data_unknown & ~unknown,
                x.origin(in.ops[static_cast<std::size_t>(first)]));
  if (p) {
    x.unk(in.ops[1]) &= ~active;
    x.set_unknown(in.ops[1], unknown, why);
  }
  return true;
}

// The predicate (or value) of each active lane, and whether the result can be known.
bool vote(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  const std::uint64_t* members = x.reg(in.ops[2]);
  const bool negate = (in.flags & kPtxNegate) != 0;
  Origin why = 0;
  std::uint32_t unknown = any_unknown(x, in, active, why) ? active : 0;
  if (missing_members(x, members, active)) {
    unknown = active;
    why = why ? why : make_origin(TaintKind::not_converged, x.pc);
  }
  std::uint32_t ballot = 0;
  each_lane(active,
            [&](int l) { ballot |= static_cast<std::uint32_t>(((a[l] & 1) != 0) != negate) << l; });
  each_lane(active, [&](int l) {
    const std::uint32_t in_mask = active & static_cast<std::uint32_t>(members[l]);
    const std::uint32_t votes = ballot & in_mask;
    switch (static_cast<PtxVoteMode>(in.mode)) {
    case PtxVoteMode::all:
      d[l] = votes == in_mask;
      break;
    case PtxVoteMode::any:
      d[l] = votes != 0;
      break;
    case PtxVoteMode::uni:
      d[l] = votes == 0 || votes == in_mask;
      break;
    default:
      d[l] = votes;
    }
  });
  settle(x, in, active, unknown, why);
  return true;
}

bool activemask(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  each_lane(active, [&](int l) { d[l] = active; });
  settle(x, in, active, 0, 0);
  return true;
}

bool match(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  const bool all = in.mode == 1;
  const int first = in.dest_count;
  std::uint64_t* d = x.reg(in.ops[0]);
  std::uint64_t* p = in.dest_count == 2 ? x.reg(in.ops[1]) : nullptr;
  const std::uint64_t* a = x.reg(in.ops[static_cast<std::size_t>(first)]);
  const std::uint64_t* members = x.reg(in.ops[static_cast<std::size_t>(first + 1)]);
  const std::uint64_t mask = width_mask(ptx_type_bytes(in.type));
  Origin why = 0;
  std::uint32_t unknown = any_unknown(x, in, active, why) ? active : 0;
  if (missing_members(x, members, active)) {
    unknown = active;
    why = why ? why : make_origin(TaintKind::not_converged, x.pc);
  }
  each_lane(active, [&](int l) {
    const std::uint32_t in_mask = active & static_cast<std::uint32_t>(members[l]);
    std::uint32_t same = 0;
    each_lane(in_mask, [&](int j) {
      same |= static_cast<std::uint32_t>((a[j] & mask) == (a[l] & mask)) << j;
    });
    if (all) {
      d[l] = same == in_mask ? in_mask : 0;
      if (p)
        p[l] = same == in_mask;
    } else {
      d[l] = same;
    }
  });
  settle(x, in, active, unknown, why);
  return true;
}

bool redux(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t* a = x.reg(in.ops[1]);
  const std::uint64_t* members = x.reg(in.ops[2]);
  const bool is_signed = in.type == PtxType::s32;
  Origin why = 0;
  std::uint32_t unknown = any_unknown(x, in, active, why) ? active : 0;
  if (missing_members(x, members, active)) {
    unknown = active;
    why = why ? why : make_origin(TaintKind::not_converged, x.pc);
  }
  const auto op = static_cast<PtxReduxOp>(in.mode);
  each_lane(active, [&](int l) {
    const std::uint32_t in_mask = active & static_cast<std::uint32_t>(members[l]);
    std::uint32_t r = op == PtxReduxOp::and_ ? ~0u : 0;
    bool first = true;
    each_lane(in_mask, [&](int j) {
      const auto v = static_cast<std::uint32_t>(a[j]);
      switch (op) {
      case PtxReduxOp::add:
        r += v;
        break;
      case PtxReduxOp::min:
        r = first       ? v
            : is_signed ? static_cast<std::uint32_t>(std::min<std::int32_t>(
                              static_cast<std::int32_t>(r), static_cast<std::int32_t>(v)))
                        : std::min(r, v);
        break;
      case PtxReduxOp::max:
        r = first       ? v
            : is_signed ? static_cast<std::uint32_t>(std::max<std::int32_t>(
                              static_cast<std::int32_t>(r), static_cast<std::int32_t>(v)))
                        : std::max(r, v);
        break;
      case PtxReduxOp::and_:
        r &= v;
        break;
      case PtxReduxOp::or_:
        r |= v;
        break;
      default:
        r ^= v;
      }
      first = false;
    });
    d[l] = r;
  });
  settle(x, in, active, unknown, why);
  return true;
}

bool elect(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  std::uint64_t* p = x.reg(in.ops[1]);
  const std::uint64_t* members = x.reg(in.ops[2]);
  Origin why = 0;
  const std::uint32_t unknown = any_unknown(x, in, active, why) ? active : 0;
  each_lane(active, [&](int l) {
    const std::uint32_t in_mask = active & static_cast<std::uint32_t>(members[l]);
    const int leader = in_mask ? std::countr_zero(in_mask) : -1;
    d[l] = static_cast<std::uint32_t>(leader);
    p[l] = leader == l;
  });
  settle(x, in, active, unknown, why);
  return true;
}

// %clock, %clock64, %globaltimer: unknown, as the GPU's timing is (the value is the block's
// instruction count, a clock that only moves on, where anything reads it regardless).
bool clock(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  std::uint64_t* d = x.reg(in.ops[0]);
  const std::uint64_t value =
      static_cast<std::uint64_t>(x.m.executed) & width_mask(ptx_type_bytes(in.type));
  each_lane(active, [&](int l) { d[l] = value; });
  settle(x, in, active, active, make_origin(TaintKind::gpu_state, -1 - x.pc));
  return true;
}

bool nop(Exec&, const PtxInstruction&, std::uint32_t) { return true; }

bool arrive(Exec& x, const PtxInstruction& in, std::uint32_t) {
  x.report(StopKind::barrier_arrive, -1, false,
           in.name + " is not modelled as a barrier (producer and consumer warps): the model "
                     "goes on without it");
  return true;
}

// The .param variables a call's callee would write (its return values) become unknown.
void taint_returns(Exec& x, const PtxInstruction& in, std::uint32_t active, Origin why) {
  PtxMachineState& m = x.m;
  for (int v : in.taint_dests) {
    const std::uint64_t address = m.variable_address[static_cast<std::size_t>(v)];
    if (address < kParamScratch)
      continue;
    const std::uint64_t offset = address - kParamScratch;
    const std::uint64_t size = m.variables[static_cast<std::size_t>(v)].size;
    each_lane(active, [&](int l) {
      const std::size_t thread =
          static_cast<std::size_t>(x.warp) * 32 + static_cast<std::size_t>(l);
      if (thread < m.locals.size() && offset + size <= m.local_bytes)
        m.locals[thread].set_unknown(offset, size, why);
    });
  }
}

} // namespace

bool exec_call(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  if (active == 0)
    return true;
  const Origin why = make_origin(TaintKind::call, x.pc);
  switch (static_cast<PtxCall>(in.mode)) {
  case PtxCall::assertfail:
    x.report(StopKind::trap, -1, true,
             "an assert fails here: the kernel would trap and the launch fail; the warp stops");
    return false;
  case PtxCall::vprintf:
    taint_returns(x, in, active, why); // printf writes no memory the kernel reads
    return true;
  default:
    x.report(StopKind::call, -1, false,
             in.name + " is not modelled (calls are not followed): what it returns and any "
                       "memory it may write are unknown");
    taint_returns(x, in, active, why);
    taint_space(x, PtxSpace::generic, active, why);
    return true;
  }
}

bool exec_unsupported(Exec& x, const PtxInstruction& in, std::uint32_t active) {
  const std::string& why = x.m.unsupported_why[static_cast<std::size_t>(x.pc)];
  x.report(StopKind::unsupported, -1, false,
           (why.empty() ? in.name + " is not modelled" : why) +
               (in.writes_memory ? " (its accesses are not shown; what it writes, registers and "
                                   "memory, is unknown)"
                                 : " (what it writes is unknown)"));
  if (active == 0)
    return true;
  const Origin origin = make_origin(TaintKind::unsupported, x.pc);
  for (int r : in.taint_dests)
    x.set_unknown(r, active, origin);
  for (int i = 0; i < in.dest_count; ++i)
    x.set_unknown(in.ops[static_cast<std::size_t>(i)], active, origin);
  if (in.writes_memory)
    taint_space(x, in.space, active, origin);
  return true;
}

Handler warp_handler(const PtxInstruction& in, std::string& why) {
  (void)why;
  switch (in.opcode) {
  case PtxOpcode::shfl:
    return shfl;
  case PtxOpcode::vote:
    return vote;
  case PtxOpcode::activemask:
    return activemask;
  case PtxOpcode::match:
    return match;
  case PtxOpcode::redux:
    return redux;
  case PtxOpcode::elect:
    return elect;
  case PtxOpcode::clock:
    return clock;
  case PtxOpcode::nop:
    return nop;
  case PtxOpcode::bar:
    return arrive; // the other barriers are the scheduler's
  case PtxOpcode::call:
    return exec_call;
  case PtxOpcode::unsupported:
    return exec_unsupported;
  default:
    return nullptr;
  }
}

} // namespace wl::ptx_detail
