#pragma once
// NVRTC kept apart from the program that asks for a compile. NVRTC has no time or memory limit of
// its own and cannot be stopped once called: a macro or template that expands without end, or
// `__device__ float big[100000000] = {1};`, would hold the GUI, a worker or `model` for as long as
// it runs, or until memory runs out, and a crash inside it would end them. So each compile is
// sent to a child process (`warplens compile-server`, one kept per process and started again after
// a failure) that runs under a memory cap and is killed at a deadline; the refusal names the file
// and the limit it hit.

#include "kernel_file/compile.h"

#include <cstddef>
#include <string>

namespace wl {

struct CompileLimits {
  double seconds = 30;                             // one compile, start to answer
  std::size_t memory_bytes = std::size_t{4} << 30; // what the child may add to its address space
};

// Compiles go through `program compile-server` from now on (the warplens binary: its path).
// Until this is called, and in programs other than warplens, they run in this process.
void use_compile_server(const std::string& program, const CompileLimits& limits = {});

// `request` compiled by the server where there is one, else here. Throws UsageError as
// compile_kernel_file does, and one naming the file and the limit when the compile ran past it.
CompiledKernelFile compile_apart(const KernelFileCompile& request);

// The server's side: reads one request a line on stdin, answers each on stdout, until stdin ends.
// `memory_bytes` caps this process first. Returns the exit code.
int serve_compiles(std::size_t memory_bytes);

} // namespace wl
