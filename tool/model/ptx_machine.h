#pragma once
// Running a kernel's PTX for the warps of one block at a time, to see every warp-level memory
// access it makes: the 32 lane addresses, active mask and width that model/access.h turns into
// sectors and bank wavefronts, on the lines of the person's source.
//
// Each thread has its own registers; a warp runs min-PC (the lanes at the smallest PC run
// together), which reconverges the compiler's if/else and loops as the hardware does. Warps of
// a block run one after another between barriers. Values the model cannot know (results of
// unsupported instructions, uninitialised registers and memory) are tracked as unknown: an
// access whose address is unknown is not reported but named in the run's stops, and a branch
// on an unknown predicate stops its warp. See ptx_machine.cpp for the details.

#include "model/access.h"
#include "model/ptx_program.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wl {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

struct PtxLaunch {
  Dim3 grid, block;
  std::uint32_t dynamic_shared_bytes = 0;
  // Each parameter's bytes, in order, as cudaLaunchKernel takes them (a pointer: 8 bytes).
  std::vector<std::vector<std::byte>> params;
};

enum class PtxOp : std::uint8_t { load, store, atomic, reduction };

// One execution of one warp-level memory instruction.
struct PtxAccess {
  int instruction = 0;    // index in the kernel's instructions
  int file = 0, line = 0; // from .loc (0 when none): the innermost, inlined, source line
  int inlined_line = 0;   // the call site's line when inlined from a __device__ function
  PtxSpace space = PtxSpace::global;
  PtxOp op = PtxOp::load;
  // Lane addresses: global and constant ones as the buffers' addresses; shared ones as byte
  // offsets from the block's shared window; local and param ones as offsets in the thread's
  // (the parameters') memory. width: bytes a lane, a vector's elements together (v4.f32: 16).
  WarpAccess lanes;
  int warp = 0;      // warp index within the block
  int buffer = -1;   // global: the add_buffer index all active lanes fall in (-1: none or mixed)
  int variable = -1; // the module variable all active lanes fall in, if any (-1 otherwise)
};

// Why (part of) a run did not go as the GPU would, one line each, e.g.
// "line 14: mma.sync is not modelled (what it writes is unknown)". A stop names the warp and
// lane where one applies (-1 otherwise); `stopping` says whether the warp (or block) stopped
// there, rather than the run going on without one access or value.
struct PtxStop {
  int file = 0, line = 0;
  int warp = -1, lane = -1;
  int instruction = -1;
  bool stopping = false;
  std::string reason;
};

struct PtxBudget {
  // Past this many warp instructions the block stops (a loop that runs too long or forever).
  // The model runs some 3 to 10 million warp instructions a second.
  std::int64_t max_warp_instructions_per_block = 1'000'000;
};

struct PtxBlockRun {
  bool completed = false; // every warp ran to its end, none stopped
  std::int64_t warp_instructions = 0;
  std::int64_t thread_instructions = 0; // the lanes that executed each, summed
  std::vector<PtxStop> stops;           // one per instruction and kind, in the order met
};

// Where the model puts what the caller does not place: buffers must lie below
// kPtxVariableBase; the module's .global/.const variables sit from it; generic addresses of
// shared, local and parameter memory are their offsets plus a window base.
inline constexpr std::uint64_t kPtxVariableBase = 1ull << 54;
inline constexpr std::uint64_t kPtxSharedWindow = 1ull << 56;
inline constexpr std::uint64_t kPtxLocalWindow = 2ull << 56;
inline constexpr std::uint64_t kPtxParamWindow = 3ull << 56;
inline constexpr std::uint64_t kPtxWindowBytes = 1ull << 32;
// The model's limits: a block's shared memory, a thread's local memory, and all registers and
// local memory of a block together.
inline constexpr std::uint64_t kPtxMaxSharedBytes = 228 * 1024;
inline constexpr std::uint64_t kPtxMaxLocalBytes = 512 * 1024;
inline constexpr std::uint64_t kPtxMaxBlockStateBytes = 512ull << 20;

struct PtxMachineState;
namespace ptx_detail {
class Region;
}

// Global memory for one launch and the kernel to run over it. Buffers are placed where the
// caller says (256-byte aligned, as cudaMalloc places them) and hold the bytes the GPU would
// get; writes persist from block to block, as on the GPU (a fresh machine starts over). One
// thread at a time: a machine holds the running block's state.
class PtxMachine {
public:
  // Throws UsageError when the program has no kernel `kernel_name` (mangled), or its shared or
  // local variables pass the model's limits. The machine copies what it needs of the program.
  PtxMachine(const PtxProgram& program, std::string kernel_name);
  ~PtxMachine();
  PtxMachine(PtxMachine&&) noexcept;
  PtxMachine& operator=(PtxMachine&&) noexcept;

  // Returns the buffer's index. Throws UsageError for an address not 256-byte aligned, past
  // kPtxVariableBase, or overlapping another buffer.
  int add_buffer(std::uint64_t address, std::vector<std::byte> bytes);
  // A buffer of `size` bytes filled 256 bytes at a time, when the model first touches them:
  // `fill` writes the bytes [offset, offset + into.size()) as the GPU's buffer holds them. A
  // launch's buffers are often hundreds of MiB, of which the blocks modelled touch a few pages.
  int add_lazy_buffer(std::uint64_t address, std::uint64_t size,
                      std::function<void(std::uint64_t offset, std::span<std::byte> into)> fill);
  // The bytes of a buffer added whole (add_buffer).
  const std::vector<std::byte>& buffer(int index) const;
  // The address the model gave a module .global/.const variable (for tests and reports).
  std::uint64_t variable_address(std::string_view name) const;

  // Runs every warp of one block from its start to its end (or until stopped), calling
  // on_access (may be empty) for each warp-level memory instruction as it executes; block_index
  // counts from 0 in each dimension (give all three: Dim3's defaults are 1). Throws UsageError for
  // a launch the kernel cannot take (parameter count or sizes, a block of more than 1024 threads,
  // shared memory past 228 KiB, a block index outside the grid).
  PtxBlockRun run_block(const PtxLaunch& launch, Dim3 block_index, const PtxBudget& budget,
                        const std::function<void(const PtxAccess&)>& on_access);

private:
  int place_buffer(ptx_detail::Region region);

  std::unique_ptr<PtxMachineState> m_state;
};

} // namespace wl
