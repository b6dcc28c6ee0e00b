#include "engine/run_time_module.h"

#include "base/error.h"
#include "engine/cuda_check.h"
#include "kernel_file/file_kernel.h"

#include <cuda_runtime.h>

namespace wl {

namespace {

const void* kernel_handle(cudaLibrary_t library, const std::string& lowered, const char* what) {
  cudaKernel_t kernel = nullptr;
  cuda_check(cudaLibraryGetKernel(&kernel, library, lowered.c_str()), what);
  return reinterpret_cast<const void*>(kernel);
}

// The description's args against the compiled kernel's parameters as the runtime reports them.
void check_arguments(const std::string& kernel_id, const void* function,
                     const std::vector<RunTimeArgument>& arguments) {
  std::vector<std::size_t> sizes;
  for (std::size_t offset = 0, size = 0;
       cudaFuncGetParamInfo(function, sizes.size(), &offset, &size) == cudaSuccess;)
    sizes.push_back(size);
  cudaGetLastError(); // the query past the last parameter fails: no sticky error
  if (const std::string problem = parameters_problem(kernel_id, sizes, arguments); !problem.empty())
    throw UsageError(problem);
}

} // namespace

RunTimeModule::RunTimeModule(const std::string& kernel_id, RunTimeCode code)
    : m_code(std::move(code)) {
  cudaLibrary_t library = nullptr;
  cuda_check(
      cudaLibraryLoadData(&library, m_code.cubin->data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
      "cudaLibraryLoadData(the kernel file's cubin)");
  m_library = library;
  m_function = kernel_handle(library, m_code.function, "cudaLibraryGetKernel(the kernel)");
  check_arguments(kernel_id, m_function, m_code.arguments);
  if (!m_code.reference.empty()) {
    m_reference = kernel_handle(library, m_code.reference, "cudaLibraryGetKernel(the reference)");
    check_arguments(kernel_id + "'s reference " + m_code.reference_name, m_reference,
                    m_code.arguments);
  }
}

RunTimeModule::~RunTimeModule() {
  if (!m_library)
    return;
  // A launch of this code may still be queued or running (a measurement left by an exception,
  // a save that replaced the code mid-run): unloading it under the launch would fault the context.
  cudaDeviceSynchronize();
  cudaLibraryUnload(static_cast<cudaLibrary_t>(m_library));
}

void RunTimeModule::launch(const void* function, const DeviceLaunch& launch) const {
  std::vector<void*> pointers(m_code.arguments.size());
  std::vector<void*> arguments(m_code.arguments.size());
  for (std::size_t i = 0; i < m_code.arguments.size(); ++i) {
    const RunTimeArgument& a = m_code.arguments[i];
    if (a.buffer >= 0) {
      pointers[i] = launch.buffers.at(static_cast<std::size_t>(a.buffer));
      arguments[i] = &pointers[i];
    } else {
      arguments[i] = const_cast<unsigned char*>(a.value.data());
    }
  }
  const BlockShape& g = launch.shape.grid;
  const BlockShape& b = launch.shape.block;
  cuda_check(cudaLaunchKernel(function, dim3(g.x, g.y, g.z), dim3(b.x, b.y, b.z), arguments.data(),
                              static_cast<std::size_t>(launch.dynamic_smem),
                              static_cast<cudaStream_t>(launch.stream)),
             "cudaLaunchKernel");
}

} // namespace wl
