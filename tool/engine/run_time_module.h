#pragma once
// A run-time kernel's code on the GPU: the cubin NVRTC made for this device loaded as a CUDA
// library, the kernel and its reference as the handles cudaLaunchKernel, cudaFuncGetAttributes and
// the occupancy calculator take, and each launch's argument list from the buffers' device
// pointers and the scalars' bytes. Loading checks the description's arguments against the
// kernel's own parameters, so a misdescribed kernel is refused with its parameter named rather
// than launched with the wrong bytes.

#include "engine/library.h"
#include "kernel.h"

namespace wl {

class RunTimeModule {
public:
  // Loads the code. Throws UsageError naming the kernel and the parameter whose size the
  // description gets wrong, or the count it gets wrong; DeviceError for a library the device
  // refuses.
  RunTimeModule(const std::string& kernel_id, RunTimeCode code);
  ~RunTimeModule();
  RunTimeModule(const RunTimeModule&) = delete;
  RunTimeModule& operator=(const RunTimeModule&) = delete;

  const void* function() const { return m_function; }
  const void* reference() const { return m_reference; } // nullptr: `check none`
  const std::string& reference_name() const { return m_code.reference_name; }
  const RunTimeCode& code() const { return m_code; } // the cubin and the kernel's mangled name

  // Enqueues `function` (the kernel or its reference) with the description's arguments: the
  // scalars' bytes, and for each buffer its pointer in `launch.buffers`.
  void launch(const void* function, const DeviceLaunch& launch) const;

private:
  RunTimeCode m_code;
  void* m_library = nullptr; // a cudaLibrary_t
  const void* m_function = nullptr;
  const void* m_reference = nullptr;
};

} // namespace wl
