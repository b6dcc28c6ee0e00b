#include "engine/run_time_module.h"

#include "base/error.h"
#include "engine/cuda_check.h"

#include <cuda_runtime.h>

namespace wl {

namespace {

const void* kernel_handle(cudaLibrary_t library, const std::string& lowered, const char* what) {
  cudaKernel_t kernel = nullptr;
  cuda_check(cudaLibraryGetKernel(&kernel, library, lowered.c_str()), what);
  return reinterpret_cast<const void*>(kernel);
}

std::size_t argument_bytes(const RunTimeArgument& a) {
  return a.buffer >= 0 ? sizeof(void*) : a.value.size();
}

// The description lists the kernel's parameters in order, each of the size the kernel takes;
// cudaFuncGetParamInfo says what the compiled kernel takes.
void check_arguments(const std::string& kernel_id, const void* function,
                     const std::vector<RunTimeArgument>& arguments) {
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    std::size_t offset = 0, size = 0;
    if (cudaFuncGetParamInfo(function, i, &offset, &size) != cudaSuccess) {
      cudaGetLastError(); // the failed query is no sticky error
      throw UsageError(kernel_id + " takes " + std::to_string(i) +
                       " parameters, but its description lists " +
                       std::to_string(arguments.size()) + " args (the first extra is '" +
                       arguments[i].name + "')");
    }
    if (size != argument_bytes(arguments[i]))
      throw UsageError(kernel_id + ": parameter " + std::to_string(i + 1) + " is " +
                       std::to_string(size) + " bytes, but its description's arg '" +
                       arguments[i].name + "' is " + std::to_string(argument_bytes(arguments[i])) +
                       (arguments[i].buffer >= 0 ? " (a pointer)" : "") +
                       "; list the args in the kernel's order with its types");
  }
  std::size_t offset = 0, size = 0;
  if (cudaFuncGetParamInfo(function, arguments.size(), &offset, &size) == cudaSuccess)
    throw UsageError(kernel_id + " takes more than the " + std::to_string(arguments.size()) +
                     " parameters its description lists; add an arg line for each");
  cudaGetLastError();
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
  if (m_library)
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
