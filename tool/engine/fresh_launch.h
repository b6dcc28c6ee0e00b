#pragma once
// A launch run again from a fresh load of its code. CUPTI's PC sampling places samples only in
// code loaded while sampling is enabled: a module loaded earlier in a process where CUPTI has
// started (a first Run's counters, a kernel file opened after) is sampled as a "non-user kernel",
// every sample counted and none on an instruction (seen on the H200). So the sampled launch is the
// session's launch captured as a graph (its kernels, grid, block, shared memory and arguments,
// whatever the kernel's launch code does), its kernels found by name in a fresh load of the cubin
// they come from, and that graph run inside the sampling window.

#include "engine/library.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime.h>

namespace wl {

class FreshLaunch {
public:
  // Captures what `enqueue` puts on the stream it is given (nothing runs). Throws DeviceError
  // where the launch cannot be captured.
  explicit FreshLaunch(const std::function<void(cudaStream_t)>& enqueue);
  ~FreshLaunch();
  FreshLaunch(const FreshLaunch&) = delete;
  FreshLaunch& operator=(const FreshLaunch&) = delete;

  // Loads `cubin` anew, points each captured kernel it holds (by its symbol name) at its fresh
  // copy, with the original's dynamic shared memory allowance, and runs the launch on `stream`,
  // calling `after_launch` once it is enqueued (a kernel file's watch) and then waiting for it.
  // Returns how many of the captured kernels ran from the fresh load (0: none of them is in the
  // cubin, and the launch ran as captured). The loads stay until destruction: CUPTI reads their
  // code after the launch.
  int run(const unsigned char* cubin, std::size_t size, cudaStream_t stream,
          const std::function<void(cudaStream_t)>& after_launch = {});

private:
  cudaGraph_t m_graph = nullptr;
  std::vector<cudaLibrary_t> m_loads;
  std::vector<std::vector<std::uint64_t>> m_images; // each load's cubin, aligned as an ELF image
};

} // namespace wl
