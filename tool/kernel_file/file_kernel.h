#pragma once
// A person's kernel file made kernels the whole tool takes: each `// @warplens kernel` line becomes
// a KernelDesc of kind run_time, its parameters the file's sizes and tunables, its grid, shared
// memory, bytes and arithmetic the description's expressions, its block check the restrictions,
// and its registers and shared memory NVRTC's for the architecture asked (a compile per set of
// tunable values and architecture, kept). It has no sites: no per-site prediction is made.

#include "kernel.h"
#include "kernel_file/description.h"

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace wl {

struct KernelFile {
  std::filesystem::path path;
  std::string text;
  // The headers it includes with quotes (#include "NAME"), found beside it, and those they
  // include, by NAME as written: they travel with the text to a worker and are watched.
  std::map<std::string, std::string> headers;
  std::string hash; // of the text and its headers: "fnv1a64:0123456789abcdef"
  KernelFileDescription description;
};

// Kernel files are sent whole to a worker with their headers, on one request line with room for
// this after JSON's escapes; a kernel file and its headers are far smaller.
inline constexpr std::size_t kLargestKernelFile = 128 * 1024;
inline constexpr std::size_t kLargestHeaders = 128 * 1024; // all of them together

// Reads and describes the file. Throws UsageError naming the path for a folder, a missing or
// unreadable file, one over kLargestKernelFile, one that is not text (a NUL byte), or its
// description's first problem.
KernelFile read_kernel_file(const std::filesystem::path& path);
// The same for a file's text and headers as read elsewhere (a worker is sent what a person saved).
KernelFile kernel_file_from_text(const std::filesystem::path& path, std::string text,
                                 std::map<std::string, std::string> headers = {});

// "saxpy/saxpy" for the kernel saxpy of saxpy.cu: the file's stem, then the kernel's name (a
// template's without its arguments).
std::string file_kernel_id(const KernelFile& file, const std::string& kernel);

// The file's kernels, in the description's order.
std::vector<KernelDesc> file_kernels(const KernelFile& file);

// Whether the description's args fit the compiled kernel's parameters (`sizes` in bytes, in
// order): "" when they do, else one line naming the parameter it gets wrong or the count.
std::string parameters_problem(const std::string& kernel, const std::vector<std::size_t>& sizes,
                               const std::vector<RunTimeArgument>& arguments);

// Whether a kernel argument given on the command line names a kernel file ("path/to/x.cu",
// "x.cu:kernel") rather than a bundled kernel's id.
bool names_a_kernel_file(const std::string& text);
// The file's path in "x.cu:kernel" ("x.cu"); the text as it is where it names no kernel.
std::string kernel_file_path(const std::string& text);

// Adds the file's kernels at run time unless this text of this path was added last (a worker is
// sent the file with every request: the same text compiles once). Returns their ids. `kernels`:
// file_kernels(file) made already (the GUI compiles a save before it replaces the last one, and
// the compile is kept with them); empty: made here.
std::vector<std::string> use_kernel_file(const KernelFile& file,
                                         std::vector<KernelDesc> kernels = {});

// The file a kernel added at run time came from (as added last); nullptr for any other kernel.
std::shared_ptr<const KernelFile> kernel_file_of(const std::string& kernel_id);

// The fingerprint of the code a kernel is built from (text_hash): a kernel file's text and
// headers, or a bundled kernel's family file as this binary holds it. A tune's cache and a
// recording name the code they measured by it. Throws UsageError for a bundled kernel whose
// family file the binary does not hold.
std::string kernel_source_hash(const KernelDesc& kernel);
// What that code is called on screen: "matmul.cu" for a bundled kernel, a kernel file's name.
std::string kernel_source_name(const KernelDesc& kernel);

// Reads the file `text` names ("x.cu" or "x.cu:kernel"), adds its kernels at run time, and returns
// the id of the one named (the first when none is). Throws UsageError for a file it cannot use or
// a kernel it does not describe.
std::string add_kernel_file(const std::string& text);

// The id add_kernel_file gives `text`, from the version of the file added last where it was added
// before (a save that does not compile replaces nothing, so the kernel on screen keeps its id),
// else added now. For a lesson's step, whose kernel is asked for on every check.
std::string kernel_file_id(const std::string& text);

} // namespace wl
