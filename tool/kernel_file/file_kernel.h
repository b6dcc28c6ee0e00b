#pragma once
// A person's kernel file made kernels the whole tool takes: each `// @warplens kernel` line becomes
// a KernelDesc of kind run_time, its parameters the file's sizes and tunables, its grid, shared
// memory, bytes and arithmetic the description's expressions, its block check the restrictions,
// and its registers and shared memory NVRTC's for the architecture asked (a compile per set of
// tunable values and architecture, kept). It has no sites: no per-site prediction is made.

#include "kernel.h"
#include "kernel_file/description.h"

#include <filesystem>
#include <string>
#include <vector>

namespace wl {

struct KernelFile {
  std::filesystem::path path;
  std::string text;
  std::string hash; // of the text: "fnv1a64:0123456789abcdef", for sidecars and caches
  KernelFileDescription description;
};

// Reads and describes the file. Throws UsageError naming the path for a folder, a missing or
// unreadable file, one over 4 MiB, one that is not text (a NUL byte), or its description's first
// problem.
KernelFile read_kernel_file(const std::filesystem::path& path);

// "saxpy/saxpy" for the kernel saxpy of saxpy.cu: the file's stem, then the kernel's name (a
// template's without its arguments).
std::string file_kernel_id(const KernelFile& file, const std::string& kernel);

// The file's kernels, in the description's order.
std::vector<KernelDesc> file_kernels(const KernelFile& file);

// Whether a kernel argument given on the command line names a kernel file ("path/to/x.cu",
// "x.cu:kernel") rather than a bundled kernel's id.
bool names_a_kernel_file(const std::string& text);

// Reads the file `text` names ("x.cu" or "x.cu:kernel"), adds its kernels at run time, and returns
// the id of the one named (the first when none is). Throws UsageError for a file it cannot use or
// a kernel it does not describe.
std::string add_kernel_file(const std::string& text);

} // namespace wl
