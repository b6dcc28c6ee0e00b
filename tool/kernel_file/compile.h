#pragma once
// A person's kernel file compiled by NVRTC, which needs no GPU: for the worker's GPU when one
// measures, or for the preset's architecture in model mode, so registers and shared memory are
// the real ones either way. Each tunable is passed as -DNAME=VALUE and substituted in the kernel
// names (transpose<TILE, PAD> is asked for as transpose<32, 1>); -lineinfo keeps the source lines
// the per-site pass places instructions on; headers next to the file are found (-I its folder).

#include "base/system_check.h"
#include "model/kernel_resources.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace wl {

struct CompiledKernelFile {
  std::vector<char> cubin;
  std::string ptx;                                // what the per-line model interprets
  std::string log;                                // the compiler's warnings, as it wrote them
  std::map<std::string, std::string> lowered;     // "transpose<32, 1>" -> its mangled name
  std::map<std::string, CompiledResources> usage; // by the same names: registers, shared, local
  double seconds = 0;                             // the compile's wall time
};

struct KernelFileCompile {
  std::string text; // the file as saved
  std::string file; // its path: messages, -I its folder, the line table
  std::map<std::string, std::string> headers = {}; // "#include \"NAME\"" texts, as read beside it
  std::vector<std::string> kernels;                // names as the description gives them
  std::map<std::string, std::int64_t> tunables;    // the values of this compile
  int sm = 90;                                     // compute capability x 10
};

// "transpose<TILE, PAD>" with TILE=32, PAD=1 -> "transpose<32, 1>": whole words only.
std::string with_tunables(const std::string& name,
                          const std::map<std::string, std::int64_t>& tunables);

// Compiles an empty kernel, and forgets it: the first compile of a process loads and initialises
// NVRTC (about 300 ms), which the window pays on a thread of its own while it opens rather than
// on a person's first save.
void warm_up_compiler();

// "13.0, /usr/lib/warplens/libnvrtc.so.13": NVRTC's version and where it was loaded from.
std::string nvrtc_version();

// For `warplens doctor`: NVRTC compiles an empty kernel for compute capability `sm` (x 10), and
// one that includes cuda_fp16.h, which needs the CUDA toolkit's headers.
SystemChecks check_compiler(int sm);

// Throws UsageError "FILE:LINE: error: ..." with the compiler's first error (and how many more),
// or naming the kernel the file does not define.
CompiledKernelFile compile_kernel_file(const KernelFileCompile& request);

} // namespace wl
