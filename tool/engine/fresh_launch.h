#pragma once
// A launch run again from a fresh load of its code. CUPTI's PC sampling places samples only in
// code loaded while sampling is enabled: a module loaded earlier in a process where CUPTI has
// started (a first Run's counters, a kernel file opened after) is sampled as a "non-user kernel",
// every sample counted and none on an instruction (seen on the H200). And it samples kernels
// launched one by one, not a graph's. So the sampled launch is the session's launch captured as a
// graph only to read its kernels, grids, blocks, shared memory and arguments (whatever the
// kernel's launch code does), and each kernel launched again from a fresh load of its cubin inside
// the sampling window.

#include "engine/library.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime.h>

namespace wl {

// A cubin loaded as a CUDA library for as long as the object lives (after its kernels are done:
// the caller waits for them first).
class FreshLibrary {
public:
  // Loads an aligned copy of `cubin`; loaded() is false where the device refuses it.
  FreshLibrary(const unsigned char* cubin, std::size_t size);
  ~FreshLibrary();
  FreshLibrary(const FreshLibrary&) = delete;
  FreshLibrary& operator=(const FreshLibrary&) = delete;
  bool loaded() const { return m_library != nullptr; }
  // The kernel of that symbol name, as the handle cudaLaunchKernel takes; nullptr where the
  // library holds none.
  const void* kernel(const std::string& name) const;

private:
  std::vector<std::uint64_t> m_image;
  cudaLibrary_t m_library = nullptr;
};

class FreshLaunch {
public:
  // Captures what `enqueue` puts on the stream it is given (nothing runs) and keeps each kernel's
  // launch. Throws DeviceError where the launch cannot be captured.
  explicit FreshLaunch(const std::function<void(cudaStream_t)>& enqueue);

  // Launches the captured kernels in order on `stream`, each that `library` holds (by its symbol
  // name) from there, with the original's arguments and dynamic shared memory allowance, the rest
  // as captured; calls `after_launch` once they are enqueued and waits for them. Returns how many
  // ran from `library`. Throws DeviceError where a launch fails.
  int run(const FreshLibrary& library, cudaStream_t stream,
          const std::function<void(cudaStream_t)>& after_launch = {}) const;

private:
  struct Kernel {
    const void* function = nullptr;
    dim3 grid, block;
    std::size_t shared_bytes = 0;
    std::vector<std::vector<unsigned char>> arguments;
  };
  std::vector<Kernel> m_kernels;
};

} // namespace wl
