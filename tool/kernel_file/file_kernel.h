#pragma once
// A person's kernel file made kernels the whole tool takes: each `// @warplens kernel` line becomes
// a KernelDesc of kind run_time, its parameters the file's sizes and tunables, its grid, shared
// memory, bytes and arithmetic the description's expressions, its block check the restrictions,
// and its registers and shared memory NVRTC's for the architecture asked (a compile per set of
// tunable values and architecture, kept). It has no sites: no per-site prediction is made.

#include "kernel.h"
#include "kernel_file/description.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace wl {

struct KernelFile {
  std::filesystem::path path;
  std::string text;
  std::string hash; // of the text: "fnv1a64:0123456789abcdef", for sidecars and caches
  KernelFileDescription description;
};

// Kernel files are sent whole to a worker, on one request line with room for this after JSON's
// escapes; a kernel file is far smaller (shared code goes in a header beside it).
inline constexpr std::size_t kLargestKernelFile = 128 * 1024;

// Reads and describes the file. Throws UsageError naming the path for a folder, a missing or
// unreadable file, one over kLargestKernelFile, one that is not text (a NUL byte), or its
// description's first problem.
KernelFile read_kernel_file(const std::filesystem::path& path);
// The same for a file's text as read elsewhere (a worker is sent the text a person saved).
KernelFile kernel_file_from_text(const std::filesystem::path& path, std::string text);

// "saxpy/saxpy" for the kernel saxpy of saxpy.cu: the file's stem, then the kernel's name (a
// template's without its arguments).
std::string file_kernel_id(const KernelFile& file, const std::string& kernel);

// The file's kernels, in the description's order.
std::vector<KernelDesc> file_kernels(const KernelFile& file);

// Whether a kernel argument given on the command line names a kernel file ("path/to/x.cu",
// "x.cu:kernel") rather than a bundled kernel's id.
bool names_a_kernel_file(const std::string& text);

// Adds the file's kernels at run time unless this text of this path was added last (a worker is
// sent the file with every request: the same text compiles once). Returns their ids.
std::vector<std::string> use_kernel_file(const KernelFile& file);

// The file a kernel added at run time came from (as added last); nullptr for any other kernel.
std::shared_ptr<const KernelFile> kernel_file_of(const std::string& kernel_id);

// Reads the file `text` names ("x.cu" or "x.cu:kernel"), adds its kernels at run time, and returns
// the id of the one named (the first when none is). Throws UsageError for a file it cannot use or
// a kernel it does not describe.
std::string add_kernel_file(const std::string& text);

} // namespace wl
