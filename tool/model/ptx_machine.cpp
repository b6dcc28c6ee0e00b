// The PTX machine (ptx_machine.h): where memory goes (the caller's buffers, the module's
// variables from kPtxVariableBase, each kernel's shared and local layout), the instructions'
// handlers chosen once, and the reports. ptx_schedule.cpp runs blocks.

#include "model/ptx_machine.h"

#include "base/error.h"
#include "model/ptx_state.h"

#include <algorithm>
#include <cstdio>

namespace wl {

using namespace ptx_detail;

namespace {

std::uint64_t align_up(std::uint64_t value, std::uint64_t align) {
  return align <= 1 ? value : (value + align - 1) / align * align;
}

std::uint64_t type_mask(PtxType type) {
  return type == PtxType::pred ? 1 : width_mask(ptx_type_bytes(type));
}

std::string hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

} // namespace

// ---- Reports

std::string PtxMachineState::where(int pc) const {
  const PtxSource& s = kernel.instructions[static_cast<std::size_t>(pc)].source;
  return s.line > 0 ? "line " + std::to_string(s.line) : "ptx instruction " + std::to_string(pc);
}

std::string PtxMachineState::origin_text(Origin origin) const {
  const int i = origin_index(origin);
  const auto name = [&] { return kernel.instructions[static_cast<std::size_t>(i)].name; };
  switch (origin_kind(origin)) {
  case TaintKind::unsupported:
    return name() + " at " + where(i) + ", which is not modelled";
  case TaintKind::uninitialised:
    return "register " + kernel.registers[static_cast<std::size_t>(i)].name +
           ", which is read before it is set";
  case TaintKind::shared_unwritten:
    return "shared memory read before any thread of the block wrote it";
  case TaintKind::local_unwritten:
    return "local memory read before it was written";
  case TaintKind::unknown_store:
    return "memory the store at " + where(i) + " may have written (its address is unknown)";
  case TaintKind::stopped_warp:
    return "shared memory a warp that stopped at " + where(i) + " did not write";
  case TaintKind::not_converged:
    return name() + " at " + where(i) + " reading a lane that was not running with it";
  case TaintKind::call:
    return "the " + name() + " at " + where(i) + ", which is not modelled";
  case TaintKind::gpu_state: // index: the special register, or -1 - the clock's instruction
    if (i < 0)
      return "the GPU's clock (" + kernel.instructions[static_cast<std::size_t>(-1 - i)].name +
             " at " + where(-1 - i) + "), known only as the kernel runs";
    return std::string(static_cast<PtxSpecial>(i) == PtxSpecial::smid ? "%smid (which SM"
                       : static_cast<PtxSpecial>(i) == PtxSpecial::warpid
                           ? "%warpid (which warp slot"
                           : "%gridid (which launch") +
           " runs it), known only on the GPU";
  default:
    return "a value the model does not know";
  }
}

void PtxMachineState::report(int pc, StopKind kind, int warp, int lane, bool stopping,
                             const std::string& what) {
  if (!reported.insert({pc, static_cast<int>(kind)}).second)
    return;
  const PtxSource& s = kernel.instructions[static_cast<std::size_t>(pc)].source;
  PtxStop stop;
  stop.file = s.file;
  stop.line = s.line;
  stop.warp = warp;
  stop.lane = lane;
  stop.instruction = pc;
  stop.stopping = stopping;
  stop.reason = where(pc);
  if (lane >= 0)
    stop.reason += ", warp " + std::to_string(warp) + ", lane " + std::to_string(lane);
  else if (warp >= 0 && stopping)
    stop.reason += ", warp " + std::to_string(warp);
  stop.reason += ": " + what;
  run->stops.push_back(std::move(stop));
}

void PtxMachineState::taint_globals(Origin why) {
  for (Region& r : globals)
    if (!r.constant)
      r.taint_all(why);
}

const Region* PtxMachineState::find_global(std::uint64_t address, std::uint64_t bytes) {
  const auto inside = [&](const Region& r) {
    return address >= r.address && address - r.address <= r.size() &&
           bytes <= r.size() - (address - r.address);
  };
  if (region_hint < static_cast<int>(globals.size()) && inside(globals[region_hint]))
    return &globals[region_hint];
  const auto after =
      std::upper_bound(by_address.begin(), by_address.end(), address,
                       [&](std::uint64_t a, int r) { return a < globals[r].address; });
  if (after == by_address.begin())
    return nullptr;
  const int r = *(after - 1);
  if (!inside(globals[r]))
    return nullptr;
  region_hint = r;
  return &globals[r];
}

// ---- Construction

namespace {

void place_globals(PtxMachineState& s) {
  std::uint64_t next = kPtxVariableBase;
  for (std::size_t v = 0; v < s.variables.size(); ++v) {
    const PtxVariable& var = s.variables[v];
    if (var.space != PtxSpace::global && var.space != PtxSpace::constant)
      continue;
    next = align_up(next, std::max<std::uint64_t>(256, var.align));
    Region r;
    r.address = next;
    r.bytes.assign(var.size, std::byte{0});
    std::copy_n(var.init.begin(), std::min<std::size_t>(var.init.size(), var.size),
                r.bytes.begin());
    r.variable = static_cast<int>(v);
    r.constant = var.space == PtxSpace::constant;
    s.variable_address[v] = next;
    next += std::max<std::uint64_t>(var.size, 1);
    s.by_address.push_back(static_cast<int>(s.globals.size()));
    s.globals.push_back(std::move(r));
  }
}

// Kernel-scope layout: static shared variables in declaration order, then the dynamic array;
// local variables (and a body's .param scratch) in a thread's local memory.
void place_block_variables(PtxMachineState& s) {
  std::uint64_t shared = 0, local = 0, dynamic_align = 16;
  for (int v : s.kernel.variables) {
    const PtxVariable& var = s.variables[static_cast<std::size_t>(v)];
    if (var.space == PtxSpace::shared && !var.dynamic_shared) {
      shared = align_up(shared, var.align);
      s.variable_address[static_cast<std::size_t>(v)] = shared;
      shared += var.size;
    } else if (var.space == PtxSpace::shared) {
      dynamic_align = std::max<std::uint64_t>(dynamic_align, var.align);
    } else if (var.space == PtxSpace::local || var.space == PtxSpace::param) {
      local = align_up(local, var.align);
      s.variable_address[static_cast<std::size_t>(v)] =
          var.space == PtxSpace::param ? kParamScratch + local : local;
      local += var.size;
    }
    if (shared > kPtxMaxSharedBytes)
      throw UsageError("kernel " + s.kernel.name + " declares more than 228 KiB of shared memory");
    if (local > kPtxMaxLocalBytes)
      throw UsageError("kernel " + s.kernel.name +
                       " needs more than 512 KiB of local memory a thread, the model's limit");
  }
  s.static_shared = shared;
  s.dynamic_shared_offset = align_up(shared, dynamic_align);
  for (int v : s.kernel.variables)
    if (s.variables[static_cast<std::size_t>(v)].dynamic_shared)
      s.variable_address[static_cast<std::size_t>(v)] = s.dynamic_shared_offset;
  s.local_bytes = align_up(local, 16);
}

// Initializers holding variables' addresses.
void relocate(PtxMachineState& s) {
  for (Region& r : s.globals) {
    const PtxVariable& var = s.variables[static_cast<std::size_t>(r.variable)];
    for (const PtxVariable::Address& a : var.addresses) {
      const PtxVariable& target = s.variables[static_cast<std::size_t>(a.variable)];
      std::uint64_t value = s.variable_address[static_cast<std::size_t>(a.variable)] +
                            static_cast<std::uint64_t>(a.addend);
      if (a.generic && target.space == PtxSpace::shared)
        value += kPtxSharedWindow;
      for (int b = 0; b < a.bytes && a.offset + static_cast<std::uint64_t>(b) < r.bytes.size(); ++b)
        r.bytes[a.offset + static_cast<std::uint64_t>(b)] =
            static_cast<std::byte>(value >> (8 * b));
    }
  }
}

void decode_handlers(PtxMachineState& s) {
  const std::size_t n = s.kernel.instructions.size();
  s.handlers.assign(n, nullptr);
  s.control.assign(n, Control::normal);
  s.unsupported_why.assign(n, {});
  for (std::size_t i = 0; i < n; ++i) {
    const PtxInstruction& in = s.kernel.instructions[i];
    switch (in.opcode) {
    case PtxOpcode::bra:
      s.control[i] = in.target >= 0 ? Control::branch : Control::trap;
      continue;
    case PtxOpcode::exit:
      s.control[i] = Control::exit;
      continue;
    case PtxOpcode::trap:
      s.control[i] = Control::trap;
      continue;
    case PtxOpcode::bar:
      if (in.mode != static_cast<std::uint8_t>(PtxBarMode::arrive)) {
        s.control[i] = Control::barrier;
        continue;
      }
      break;
    default:
      break;
    }
    if (in.opcode == PtxOpcode::unsupported && in.name.rfind("brx", 0) == 0) {
      s.control[i] = Control::trap; // an indirect branch: where the warp goes is unknown
      continue;
    }
    std::string why;
    s.handlers[i] = handler_for(in, why);
    if (!s.handlers[i]) {
      s.handlers[i] = exec_unsupported;
      s.unsupported_why[i] = why.empty() ? in.text + " is not modelled" : why;
    }
  }
}

} // namespace

PtxMachine::PtxMachine(const PtxProgram& program, std::string kernel_name)
    : m_state(std::make_unique<PtxMachineState>()) {
  const PtxFunction* kernel = program.find_function(kernel_name);
  if (!kernel || !kernel->is_entry)
    throw UsageError("the PTX has no kernel named " + kernel_name);
  PtxMachineState& s = *m_state;
  s.kernel = *kernel;
  s.variables = program.variables;
  s.variable_address.assign(s.variables.size(), 0);
  place_globals(s);
  place_block_variables(s);
  relocate(s);
  for (const PtxRegister& r : s.kernel.registers)
    s.register_mask.push_back(type_mask(r.type));
  decode_handlers(s);
}

PtxMachine::~PtxMachine() = default;
PtxMachine::PtxMachine(PtxMachine&&) noexcept = default;
PtxMachine& PtxMachine::operator=(PtxMachine&&) noexcept = default;

int PtxMachine::add_buffer(std::uint64_t address, std::vector<std::byte> bytes) {
  Region r;
  r.address = address;
  r.bytes = std::move(bytes);
  return place_buffer(std::move(r));
}

int PtxMachine::add_lazy_buffer(std::uint64_t address, std::uint64_t size,
                                std::function<void(std::uint64_t, std::span<std::byte>)> fill) {
  Region r;
  r.address = address;
  r.make_lazy(size, std::move(fill));
  return place_buffer(std::move(r));
}

int PtxMachine::place_buffer(ptx_detail::Region r) {
  PtxMachineState& s = *m_state;
  const std::uint64_t address = r.address, size = r.size();
  if (address % 256 != 0 || address == 0)
    throw UsageError("a buffer's address must be a non-zero multiple of 256, not " + hex(address));
  if (address >= kPtxVariableBase || size > kPtxVariableBase - address)
    throw UsageError("a buffer must end below " + hex(kPtxVariableBase));
  for (int i : s.buffer_region) {
    const Region& other = s.globals[static_cast<std::size_t>(i)];
    if (address < other.end() && other.address < address + size)
      throw UsageError("the buffer at " + hex(address) + " overlaps the buffer at " +
                       hex(other.address));
  }
  r.buffer = static_cast<int>(s.buffer_region.size());
  const int index = static_cast<int>(s.globals.size());
  s.buffer_region.push_back(index);
  s.globals.push_back(std::move(r));
  const auto at = std::upper_bound(
      s.by_address.begin(), s.by_address.end(), address,
      [&](std::uint64_t a, int g) { return a < s.globals[static_cast<std::size_t>(g)].address; });
  s.by_address.insert(at, index);
  return s.globals.back().buffer;
}

const std::vector<std::byte>& PtxMachine::buffer(int index) const {
  const PtxMachineState& s = *m_state;
  if (index < 0 || index >= static_cast<int>(s.buffer_region.size()) ||
      s.globals[static_cast<std::size_t>(s.buffer_region[static_cast<std::size_t>(index)])].lazy())
    throw UsageError("no buffer " + std::to_string(index) + " whose bytes are all held");
  return s.globals[static_cast<std::size_t>(s.buffer_region[static_cast<std::size_t>(index)])]
      .bytes;
}

std::uint64_t PtxMachine::variable_address(std::string_view name) const {
  const PtxMachineState& s = *m_state;
  for (std::size_t v = 0; v < s.variables.size(); ++v)
    if (s.variables[v].name == name && s.variables[v].function < 0)
      return s.variable_address[v];
  throw UsageError("the PTX has no module variable named " + std::string(name));
}

} // namespace wl
