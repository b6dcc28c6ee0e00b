#include "engine/fresh_launch.h"

#include "engine/cuda_check.h"

#include <cstring>

namespace wl {

namespace {

// A CUDA call whose failure leaves the launch as it was: its error is read and cleared.
bool succeeded(cudaError_t status) {
  if (status == cudaSuccess)
    return true;
  cudaGetLastError();
  return false;
}

std::vector<cudaGraphNode_t> kernel_nodes(cudaGraph_t graph) {
  std::size_t count = 0;
  cuda_check(cudaGraphGetNodes(graph, nullptr, &count), "cudaGraphGetNodes");
  std::vector<cudaGraphNode_t> nodes(count), kernels;
  cuda_check(cudaGraphGetNodes(graph, nodes.data(), &count), "cudaGraphGetNodes");
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    cuda_check(cudaGraphNodeGetType(node, &type), "cudaGraphNodeGetType");
    if (type == cudaGraphNodeTypeKernel)
      kernels.push_back(node);
  }
  return kernels;
}

// A kernel node's argument values, copied while the graph holds them.
std::vector<std::vector<unsigned char>> copy_arguments(const void* function, void** given) {
  std::vector<std::vector<unsigned char>> values;
  std::size_t offset = 0, size = 0;
  for (std::size_t i = 0; given && succeeded(cudaFuncGetParamInfo(function, i, &offset, &size));
       ++i) {
    const auto* bytes = static_cast<const unsigned char*>(given[i]);
    values.emplace_back(bytes, bytes + size);
  }
  return values;
}

// The fresh copy of `original` in `library`, allowed the same dynamic shared memory; nullptr
// where the library holds no kernel of its name or the copy cannot be made like it.
const void* fresh_copy(const FreshLibrary& library, const void* original) {
  const char* name = nullptr;
  if (!succeeded(cudaFuncGetName(&name, original)) || !name)
    return nullptr;
  const void* copy = library.kernel(name);
  cudaFuncAttributes attributes{};
  if (!copy || !succeeded(cudaFuncGetAttributes(&attributes, original)) ||
      !succeeded(cudaFuncSetAttribute(copy, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      attributes.maxDynamicSharedSizeBytes)))
    return nullptr;
  return copy;
}

} // namespace

FreshLibrary::FreshLibrary(const unsigned char* cubin, std::size_t size) : m_image((size + 7) / 8) {
  std::memcpy(m_image.data(), cubin, size);
  if (!succeeded(cudaLibraryLoadData(&m_library, m_image.data(), nullptr, nullptr, 0, nullptr,
                                     nullptr, 0)))
    m_library = nullptr;
}

FreshLibrary::~FreshLibrary() {
  if (m_library)
    cudaLibraryUnload(m_library);
}

const void* FreshLibrary::kernel(const std::string& name) const {
  cudaKernel_t kernel = nullptr;
  if (!m_library || !succeeded(cudaLibraryGetKernel(&kernel, m_library, name.c_str())))
    return nullptr;
  return reinterpret_cast<const void*>(kernel);
}

FreshLaunch::FreshLaunch(const std::function<void(cudaStream_t)>& enqueue) {
  cudaStream_t stream = nullptr;
  cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  cudaGraph_t graph = nullptr;
  try {
    cuda_check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal),
               "cudaStreamBeginCapture");
    enqueue(stream);
    cuda_check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
    for (cudaGraphNode_t node : kernel_nodes(graph)) {
      cudaKernelNodeParams params{};
      cuda_check(cudaGraphKernelNodeGetParams(node, &params), "cudaGraphKernelNodeGetParams");
      m_kernels.push_back({params.func, params.gridDim, params.blockDim, params.sharedMemBytes,
                           copy_arguments(params.func, params.kernelParams)});
    }
  } catch (...) {
    cudaGraph_t partial = nullptr;
    if (!graph && cudaStreamEndCapture(stream, &partial) == cudaSuccess && partial)
      cudaGraphDestroy(partial);
    if (graph)
      cudaGraphDestroy(graph);
    cudaGetLastError();
    cudaStreamDestroy(stream);
    throw;
  }
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

int FreshLaunch::run(const FreshLibrary& library, cudaStream_t stream,
                     const std::function<void(cudaStream_t)>& after_launch) const {
  int fresh = 0;
  try {
    for (const Kernel& k : m_kernels) {
      const void* copy = fresh_copy(library, k.function);
      std::vector<void*> arguments;
      for (const std::vector<unsigned char>& value : k.arguments)
        arguments.push_back(const_cast<unsigned char*>(value.data()));
      cuda_check(cudaLaunchKernel(copy ? copy : k.function, k.grid, k.block, arguments.data(),
                                  k.shared_bytes, stream),
                 "the sampled launch");
      fresh += copy ? 1 : 0;
    }
    if (after_launch)
      after_launch(stream);
  } catch (...) {
    cudaStreamSynchronize(stream); // the fresh load stays until its kernels are done
    throw;
  }
  cuda_check(cudaStreamSynchronize(stream), "the sampled launch");
  return fresh;
}

} // namespace wl
