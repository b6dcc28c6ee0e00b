// Running one block of the PTX machine: its state set up, then its warps scheduled.
//
// Scheduling. A warp keeps its lanes in groups by PC and always runs the group at the smallest
// PC: after an if/else the lanes that took the earlier block run first, then the rest catch up
// and merge at the join, as the compiler's code reconverges on the GPU. Warps run one after
// another: warp 0 until all its lanes wait at a barrier or exit, then warp 1, and so on; once
// every thread that has not exited waits, the barrier releases them all (any barrier id counts
// as one barrier, and a thread count is ignored). So shared memory one warp writes before a
// barrier is there for the others after it. Threads that exit count as arrived, as on the GPU,
// so the model cannot deadlock; a barrier that some lanes of a warp reach while others of the
// same warp run elsewhere (`if (threadIdx.x < 16) __syncthreads();`) is undefined in CUDA and
// may hang the GPU: the model reports it and goes on, the others running on to their exit.
//
// Unknown values (ptx_state.h) never become wrong numbers: an access with an unknown address is
// reported as a stop entry rather than an access, a branch on an unknown predicate stops its
// warp, and a warp that stops makes the block's shared memory unknown (what it would have
// written is missing). Its global writes are missing too, for later blocks: not tracked.

#include "base/error.h"
#include "model/ptx_machine.h"
#include "model/ptx_state.h"

#include <algorithm>
#include <cstdio>

namespace wl {

using namespace ptx_detail;

namespace {

constexpr int kMaxThreads = 1024;

// A warp's lane mask, as 0x0000ffff.
std::string hex(std::uint32_t mask) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", mask);
  return text;
}

void check_launch(const PtxMachineState& s, const PtxLaunch& launch, Dim3 index) {
  const Dim3& b = launch.block;
  const std::uint64_t threads = std::uint64_t(b.x) * b.y * b.z;
  if (b.x == 0 || b.y == 0 || b.z == 0 || threads > kMaxThreads || b.z > 64)
    throw UsageError("a block has 1 to 1024 threads (z at most 64), not " + std::to_string(b.x) +
                     "x" + std::to_string(b.y) + "x" + std::to_string(b.z));
  const Dim3& g = launch.grid;
  if (g.x == 0 || g.y == 0 || g.z == 0 || g.y > 65535 || g.z > 65535)
    throw UsageError("a grid has 1 to 2^31-1 blocks in x and 1 to 65535 in y and z");
  if (index.x >= g.x || index.y >= g.y || index.z >= g.z)
    throw UsageError("block (" + std::to_string(index.x) + ", " + std::to_string(index.y) + ", " +
                     std::to_string(index.z) + ") is outside the grid");
  if (launch.params.size() != s.kernel.params.size())
    throw UsageError("kernel " + s.kernel.name + " takes " +
                     std::to_string(s.kernel.params.size()) + " parameters, not " +
                     std::to_string(launch.params.size()));
  for (std::size_t i = 0; i < launch.params.size(); ++i)
    if (launch.params[i].size() != s.kernel.params[i].size)
      throw UsageError("parameter " + std::to_string(i) + " of " + s.kernel.name + " takes " +
                       std::to_string(s.kernel.params[i].size) + " bytes, not " +
                       std::to_string(launch.params[i].size()));
  if (s.dynamic_shared_offset + launch.dynamic_shared_bytes > kPtxMaxSharedBytes)
    throw UsageError("the block's shared memory (" + std::to_string(s.static_shared) +
                     " static + " + std::to_string(launch.dynamic_shared_bytes) +
                     " dynamic bytes) passes 228 KiB");
  const std::uint64_t stride = (threads + 31) / 32 * 32;
  const std::uint64_t state =
      static_cast<std::uint64_t>(s.kernel.register_count()) * stride * 8 + s.local_bytes * threads;
  if (state > kPtxMaxBlockStateBytes)
    throw UsageError("kernel " + s.kernel.name + " with " + std::to_string(threads) +
                     " threads needs more than the model's 512 MiB of registers and local memory");
}

std::uint64_t special_value(const PtxMachineState& s, PtxSpecial special, int t,
                            const PtxLaunch& launch) {
  const Dim3& b = s.block;
  const std::uint64_t lane = static_cast<std::uint64_t>(t) % 32;
  switch (special) {
  case PtxSpecial::tid_x:
    return static_cast<std::uint64_t>(t) % b.x;
  case PtxSpecial::tid_y:
    return static_cast<std::uint64_t>(t) / b.x % b.y;
  case PtxSpecial::tid_z:
    return static_cast<std::uint64_t>(t) / (b.x * b.y) % b.z;
  case PtxSpecial::ntid_x:
    return b.x;
  case PtxSpecial::ntid_y:
    return b.y;
  case PtxSpecial::ntid_z:
    return b.z;
  case PtxSpecial::ctaid_x:
    return s.block_index.x;
  case PtxSpecial::ctaid_y:
    return s.block_index.y;
  case PtxSpecial::ctaid_z:
    return s.block_index.z;
  case PtxSpecial::nctaid_x:
    return s.grid.x;
  case PtxSpecial::nctaid_y:
    return s.grid.y;
  case PtxSpecial::nctaid_z:
    return s.grid.z;
  case PtxSpecial::laneid:
    return lane;
  case PtxSpecial::warpid:
    return static_cast<std::uint64_t>(t) / 32;
  case PtxSpecial::nwarpid:
    return 64;
  case PtxSpecial::nsmid:
    return 132;
  case PtxSpecial::lanemask_eq:
    return 1ull << lane;
  case PtxSpecial::lanemask_lt:
    return (1ull << lane) - 1;
  case PtxSpecial::lanemask_le:
    return (2ull << lane) - 1;
  case PtxSpecial::lanemask_gt:
    return 0xffffffffull & ~((2ull << lane) - 1);
  case PtxSpecial::lanemask_ge:
    return 0xffffffffull & ~((1ull << lane) - 1);
  case PtxSpecial::dynamic_smem_size:
    return launch.dynamic_shared_bytes;
  case PtxSpecial::total_smem_size:
    return s.dynamic_shared_offset + launch.dynamic_shared_bytes;
  case PtxSpecial::cluster_one:
    return 1;
  default: // smid, gridid, cluster_zero
    return 0;
  }
}

void fill_constants(PtxMachineState& s, const PtxLaunch& launch) {
  const std::size_t base = s.kernel.registers.size();
  for (std::size_t k = 0; k < s.kernel.constants.size(); ++k) {
    const PtxConstant& c = s.kernel.constants[k];
    std::uint64_t* v = &s.values[(base + k) * s.stride];
    std::uint64_t value = c.bits;
    if (c.kind == PtxConstantKind::variable)
      value = s.variable_address[static_cast<std::size_t>(c.symbol)] + c.bits;
    else if (c.kind == PtxConstantKind::param)
      value = s.kernel.params[static_cast<std::size_t>(c.symbol)].offset + c.bits;
    if (c.kind != PtxConstantKind::special) {
      std::fill(v, v + s.stride, value);
      continue;
    }
    for (std::size_t t = 0; t < s.stride; ++t)
      v[t] = special_value(s, c.special, static_cast<int>(t), launch);
    if (c.special == PtxSpecial::smid || c.special == PtxSpecial::warpid ||
        c.special == PtxSpecial::gridid) // where the block runs: no model can know it
      for (int w = 0; w < s.warps; ++w) {
        const std::size_t at = (base + k) * static_cast<std::size_t>(s.warps) + w;
        s.unknown[at] = ~0u;
        s.origins[at] = make_origin(TaintKind::gpu_state, static_cast<int>(c.special));
      }
  }
}

void start_block(PtxMachineState& s, const PtxLaunch& launch, Dim3 index) {
  s.grid = launch.grid;
  s.block = launch.block;
  s.block_index = index;
  s.threads = static_cast<int>(launch.block.x * launch.block.y * launch.block.z);
  s.warps = (s.threads + 31) / 32;
  s.stride = static_cast<std::size_t>(s.warps) * 32;
  const std::size_t registers = static_cast<std::size_t>(s.kernel.register_count());
  s.values.resize(registers * s.stride);
  s.unknown.assign(registers * static_cast<std::size_t>(s.warps), 0);
  s.origins.assign(registers * static_cast<std::size_t>(s.warps), 0);
  for (int r = 0; r < s.thread_registers(); ++r)
    for (int w = 0; w < s.warps; ++w) {
      const std::size_t at = static_cast<std::size_t>(r) * s.warps + w;
      s.unknown[at] = ~0u;
      s.origins[at] = make_origin(TaintKind::uninitialised, r);
    }
  fill_constants(s, launch);
  s.params.reset(s.kernel.param_bytes, false, 0);
  for (std::size_t i = 0; i < launch.params.size(); ++i)
    std::copy(launch.params[i].begin(), launch.params[i].end(),
              s.params.bytes.begin() + s.kernel.params[i].offset);
  s.shared.reset(s.dynamic_shared_offset + launch.dynamic_shared_bytes, true,
                 make_origin(TaintKind::shared_unwritten, 0));
  s.locals.resize(s.local_bytes > 0 ? static_cast<std::size_t>(s.threads) : 0);
  for (Region& local : s.locals)
    local.reset(s.local_bytes, true, make_origin(TaintKind::local_unwritten, 0));
  s.warp_state.assign(static_cast<std::size_t>(s.warps), Warp{});
  for (int w = 0; w < s.warps; ++w) {
    Warp& warp = s.warp_state[static_cast<std::size_t>(w)];
    const int lanes = std::min(32, s.threads - 32 * w);
    warp.index = w;
    warp.present = lanes == 32 ? ~0u : (1u << lanes) - 1;
    warp.groups[0] = {0, warp.present};
    warp.group_count = 1;
  }
  s.executed = s.thread_instructions = 0;
  s.reported.clear();
}

// The warp stops here: its lanes neither run nor wait, and the shared memory it would still
// have written is missing, so all of it becomes unknown.
void stop_warp(PtxMachineState& s, Warp& w, int pc) {
  w.stopped = true;
  w.group_count = w.waiting_count = 0;
  s.shared.taint_all(make_origin(TaintKind::stopped_warp, pc));
}

// Lanes whose guard predicate holds (`active`) and lanes whose guard is unknown (`maybe`).
void guard_lanes(const Exec& x, const PtxInstruction& in, std::uint32_t mask, std::uint32_t& active,
                 std::uint32_t& maybe) {
  const std::uint64_t* p = x.reg(in.guard);
  std::uint32_t holds = 0;
  each_lane(mask, [&](int l) { holds |= static_cast<std::uint32_t>(p[l] & 1) << l; });
  if (in.guard_negated)
    holds = ~holds;
  maybe = x.unk(in.guard) & mask;
  active = holds & mask & ~maybe;
}

bool is_memory(PtxOpcode op) {
  return op == PtxOpcode::ld || op == PtxOpcode::st || op == PtxOpcode::atom ||
         op == PtxOpcode::red;
}

// An instruction whose guard is unknown in `maybe` lanes: what it writes there is unknown. A
// memory access is not shown at all then (its mask is not known), and does nothing: its
// destinations and the memory it may write become unknown. False when the handler must not run.
bool unknown_guard(Exec& x, const PtxInstruction& in, std::uint32_t active, std::uint32_t maybe) {
  const Origin why = x.origin(in.guard);
  const bool memory = is_memory(in.opcode);
  const std::uint32_t lanes = memory ? active | maybe : maybe;
  if (memory) {
    x.report(StopKind::guard_unknown, -1, false,
             "whether this access happens depends on " + x.m.origin_text(why) +
                 ", so it is not shown");
    if (in.opcode != PtxOpcode::ld)
      taint_space(x, in.space, lanes, why);
  }
  for (int i = 0; i < in.dest_count; ++i)
    x.set_unknown(in.ops[i], lanes, why);
  return !memory;
}

enum class WarpEnd { done, budget };

void branch(Warp& w, const PtxInstruction& in, int pc, std::uint32_t mask, std::uint32_t taken) {
  if (taken == mask && w.group_count == 1) {
    w.groups[0].pc = in.target;
    return;
  }
  --w.group_count;
  w.insert(pc + 1, mask & ~taken);
  w.insert(in.target, taken);
}

void barrier(Exec& x, Warp& w, const PtxInstruction& in, int pc, std::uint32_t mask,
             std::uint32_t active) {
  const std::uint32_t running = w.running();
  --w.group_count;
  if (active != running)
    x.report(StopKind::barrier_divergent, -1, false,
             in.name + " reached by lanes " + hex(active) + " of warp " + std::to_string(w.index) +
                 " while its lanes " + hex(running & ~active) +
                 " run elsewhere: CUDA leaves a barrier in divergent code undefined (the GPU "
                 "may hang); the model lets them run on and releases the barrier once every "
                 "thread waits or has exited");
  w.insert(pc + 1, mask & ~active);
  if (active == 0)
    return;
  int i = 0;
  while (i < w.waiting_count && w.waiting[static_cast<std::size_t>(i)].pc != pc)
    ++i;
  if (i == w.waiting_count)
    w.waiting[static_cast<std::size_t>(w.waiting_count++)] = {pc, 0};
  w.waiting[static_cast<std::size_t>(i)].mask |= active;
}

WarpEnd run_warp(PtxMachineState& s, Warp& w) {
  Exec x{s, s.values.data(), s.unknown.data(), s.origins.data(), s.stride, s.warps, w.index, 0, &w};
  const PtxInstruction* code = s.kernel.instructions.data();
  while (w.group_count > 0) {
    Group& g = w.groups[static_cast<std::size_t>(w.group_count - 1)];
    const int pc = g.pc;
    const PtxInstruction& in = code[pc];
    x.pc = pc;
    if (s.executed >= s.limit) {
      s.report(pc, StopKind::budget, w.index, -1, true,
               "past the model's budget of " + std::to_string(s.limit) +
                   " warp instructions for a block (a loop that runs too long or forever); the "
                   "block stops here");
      return WarpEnd::budget;
    }
    ++s.executed;
    const std::uint32_t mask = g.mask;
    s.thread_instructions += std::popcount(mask);
    std::uint32_t active = mask, maybe = 0;
    if (in.guard >= 0)
      guard_lanes(x, in, mask, active, maybe);
    switch (s.control[static_cast<std::size_t>(pc)]) {
    case Control::normal: {
      const bool runs = maybe == 0 || unknown_guard(x, in, active, maybe);
      if (runs && !s.handlers[static_cast<std::size_t>(pc)](x, in, active)) {
        stop_warp(s, w, pc);
        return WarpEnd::done;
      }
      g.pc = pc + 1;
      if (w.group_count > 1 && w.groups[static_cast<std::size_t>(w.group_count - 2)].pc == g.pc) {
        w.groups[static_cast<std::size_t>(w.group_count - 2)].mask |= mask;
        --w.group_count;
      }
      break;
    }
    case Control::branch:
      if (maybe) {
        x.report(StopKind::branch_unknown, -1, true,
                 "the branch depends on " + s.origin_text(x.origin(in.guard)) +
                     "; the warp stops here");
        stop_warp(s, w, pc);
        return WarpEnd::done;
      }
      branch(w, in, pc, mask, active);
      break;
    case Control::exit:
      if (maybe) {
        x.report(StopKind::branch_unknown, -1, true,
                 "whether the threads exit depends on " + s.origin_text(x.origin(in.guard)) +
                     "; the warp stops here");
        stop_warp(s, w, pc);
        return WarpEnd::done;
      }
      w.exited |= active;
      --w.group_count;
      w.insert(pc + 1, mask & ~active);
      break;
    case Control::barrier:
      if (maybe) {
        x.report(StopKind::branch_unknown, -1, true,
                 "whether the threads wait at the barrier depends on " +
                     s.origin_text(x.origin(in.guard)) + "; the warp stops here");
        stop_warp(s, w, pc);
        return WarpEnd::done;
      }
      barrier(x, w, in, pc, mask, active);
      break;
    case Control::trap:
      if ((active | maybe) == 0) { // a guarded trap nobody takes
        --w.group_count;
        w.insert(pc + 1, mask);
        break;
      }
      x.report(StopKind::trap, -1, true,
               in.opcode == PtxOpcode::trap
                   ? "the kernel traps here (trap, or a failed assert): the launch would fail"
                   : in.name + " is not modelled (where the warp goes is unknown); the warp "
                               "stops here");
      stop_warp(s, w, pc);
      return WarpEnd::done;
    }
  }
  return WarpEnd::done;
}

// Calls each(exec, instruction, lanes) for the lanes waiting at a bar.red.
template <class Each> void each_reduction(PtxMachineState& s, Each each) {
  for (Warp& w : s.warp_state)
    for (int i = 0; i < w.waiting_count; ++i) {
      const Group& g = w.waiting[static_cast<std::size_t>(i)];
      const PtxInstruction& in = s.kernel.instructions[static_cast<std::size_t>(g.pc)];
      const auto mode = static_cast<PtxBarMode>(in.mode);
      if (mode != PtxBarMode::red_popc && mode != PtxBarMode::red_and && mode != PtxBarMode::red_or)
        continue;
      Exec x{s,        s.values.data(), s.unknown.data(), s.origins.data(),
             s.stride, s.warps,         w.index,          g.pc,
             &w};
      each(x, in, g.mask);
    }
}

// bar.red (__syncthreads_count/_and/_or): the reduction over every thread waiting at it,
// written to each one's destination.
void reduce_barrier(PtxMachineState& s) {
  std::uint64_t count = 0;
  bool all = true, any = false;
  Origin why = 0;
  each_reduction(s, [&](Exec& x, const PtxInstruction& in, std::uint32_t mask) {
    const std::uint64_t* p = x.reg(in.ops[1]);
    each_lane(mask, [&](int l) {
      const bool v = ((p[l] & 1) != 0) != ((in.flags & kPtxNegate) != 0);
      count += v;
      all = all && v;
      any = any || v;
    });
    if (why == 0)
      why = x.unknown_origin(in.ops[1], mask);
  });
  each_reduction(s, [&](Exec& x, const PtxInstruction& in, std::uint32_t mask) {
    const auto mode = static_cast<PtxBarMode>(in.mode);
    const std::uint64_t value = mode == PtxBarMode::red_popc  ? count
                                : mode == PtxBarMode::red_and ? all
                                                              : any;
    std::uint64_t* d = x.reg(in.ops[0]);
    each_lane(mask, [&](int l) { d[l] = value; });
    x.unk(in.ops[0]) &= ~mask;
    if (why != 0)
      x.set_unknown(in.ops[0], mask, why);
  });
}

// Releases the barrier once no thread can run: false when nobody waits (the block is done).
bool release_barrier(PtxMachineState& s) {
  bool any = false;
  for (const Warp& w : s.warp_state)
    any = any || w.waiting_count > 0;
  if (!any)
    return false;
  reduce_barrier(s);
  for (Warp& w : s.warp_state) {
    for (int i = 0; i < w.waiting_count; ++i)
      w.insert(w.waiting[static_cast<std::size_t>(i)].pc + 1,
               w.waiting[static_cast<std::size_t>(i)].mask);
    w.waiting_count = 0;
  }
  return true;
}

} // namespace

PtxBlockRun PtxMachine::run_block(const PtxLaunch& launch, Dim3 block_index,
                                  const PtxBudget& budget,
                                  const std::function<void(const PtxAccess&)>& on_access) {
  PtxMachineState& s = *m_state;
  check_launch(s, launch, block_index);
  start_block(s, launch, block_index);
  PtxBlockRun run;
  s.run = &run;
  s.on_access = &on_access;
  s.limit = std::max<std::int64_t>(budget.max_warp_instructions_per_block, 0);
  bool over_budget = false;
  do {
    for (Warp& w : s.warp_state)
      if (run_warp(s, w) == WarpEnd::budget) {
        over_budget = true;
        break;
      }
  } while (!over_budget && release_barrier(s));
  run.completed = !over_budget;
  for (const Warp& w : s.warp_state)
    run.completed = run.completed && !w.stopped;
  run.warp_instructions = s.executed;
  run.thread_instructions = s.thread_instructions;
  s.run = nullptr;
  s.on_access = nullptr;
  return run;
}

} // namespace wl
