// Fuzzes the PTX model: the bytes are a PTX module for parse_ptx; when it parses, each of its
// first kernels runs one block (40 threads: a whole warp and a partial one) under a small budget,
// its pointer parameters pointing at filled buffers and its others at small numbers. Whatever
// the text, parsing and running either work or refuse with a UsageError; and every access the
// machine reports must be one model/access.h can analyse, inside the memory it names.

#include "fuzz_support.h"
#include "model/access.h"
#include "model/ptx_machine.h"
#include "model/ptx_program.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr std::uint64_t kBase = 0x7f0000000000ull;
constexpr std::size_t kBufferBytes = 4096;
constexpr int kKernels = 2;
constexpr int kBuffers = 16; // pointer parameters past these point at null

void check(const wl::PtxAccess& a) {
  const auto fail = [&](const char* what) {
    std::fprintf(stderr, "access at instruction %d: %s\n", a.instruction, what);
    std::abort();
  };
  if (a.lanes.active_mask == 0)
    fail("no active lane");
  const int w = a.lanes.width;
  if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16)
    fail("a width access.h does not take");
  for (int l = 0; l < wl::kWarpSize; ++l)
    if (a.lanes.active(l) &&
        a.lanes.address[static_cast<std::size_t>(l)] % static_cast<unsigned>(w))
      fail("a misaligned lane was reported rather than stopped");
  if (a.space == wl::PtxSpace::global && a.buffer >= 0) {
    for (int l = 0; l < wl::kWarpSize; ++l) {
      const std::uint64_t address = a.lanes.address[static_cast<std::size_t>(l)];
      const std::uint64_t start = kBase + (static_cast<std::uint64_t>(a.buffer) << 16);
      if (a.lanes.active(l) &&
          (address < start || address + static_cast<unsigned>(w) > start + kBufferBytes))
        fail("a lane outside the buffer the access names");
    }
  }
  try {
    if (a.space == wl::PtxSpace::shared)
      wl::analyse_shared(a.lanes);
    else
      wl::analyse_global(a.lanes);
  } catch (const wl::UsageError& e) {
    fail(e.what());
  }
}

void run_kernel(const wl::PtxProgram& program, const std::string& name) {
  wl::PtxMachine machine(program, name);
  const wl::PtxFunction& kernel = *program.find_function(name);
  wl::PtxLaunch launch;
  launch.grid = {3, 2, 1};
  launch.block = {40, 1, 1};
  launch.dynamic_shared_bytes = 512;
  int buffers = 0;
  for (const wl::PtxParam& p : kernel.params) {
    std::vector<std::byte> bytes(p.size);
    if (p.size == 8 && buffers < kBuffers) {
      const std::uint64_t address = kBase + (static_cast<std::uint64_t>(buffers) << 16);
      std::vector<std::byte> data(kBufferBytes);
      for (std::size_t i = 0; i < data.size(); ++i)
        data[i] = static_cast<std::byte>(i % 4 == 0 ? i / 4 % 64 : 0);
      machine.add_buffer(address, std::move(data));
      ++buffers;
      std::memcpy(bytes.data(), &address, 8);
    } else if (!bytes.empty()) {
      bytes[0] = std::byte{33};
    }
    launch.params.push_back(std::move(bytes));
  }
  wl::PtxBudget budget;
  budget.max_warp_instructions_per_block = 20000;
  const wl::PtxBlockRun run = machine.run_block(launch, {1, 1, 0}, budget, check);
  if (run.warp_instructions > budget.max_warp_instructions_per_block) {
    std::fprintf(stderr, "ran past the budget\n");
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  wl::fuzz::read_or_refuse([&] {
    const wl::PtxProgram program = wl::parse_ptx(wl::fuzz::as_text(data, size));
    const std::vector<std::string> names = wl::ptx_kernel_names(program);
    for (std::size_t i = 0; i < names.size() && i < kKernels; ++i)
      wl::fuzz::read_or_refuse([&] { run_kernel(program, names[i]); });
  });
  return 0;
}
