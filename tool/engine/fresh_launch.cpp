#include "engine/fresh_launch.h"

#include "engine/cuda_check.h"

#include <cstring>

namespace wl {

namespace {

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

// The fresh copy of `original` in `load`, allowed the same dynamic shared memory; nullptr where
// the load does not hold a kernel of its name.
const void* fresh_copy(cudaLibrary_t load, const void* original) {
  const char* name = nullptr;
  if (cudaFuncGetName(&name, original) != cudaSuccess || !name) {
    cudaGetLastError(); // not an error of the launch: that kernel is left as it was
    return nullptr;
  }
  cudaKernel_t kernel = nullptr;
  if (cudaLibraryGetKernel(&kernel, load, name) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  cudaFuncAttributes attributes{};
  cuda_check(cudaFuncGetAttributes(&attributes, original), "cudaFuncGetAttributes");
  const void* copy = reinterpret_cast<const void*>(kernel);
  cuda_check(cudaFuncSetAttribute(copy, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  attributes.maxDynamicSharedSizeBytes),
             "cudaFuncSetAttribute(the fresh copy's dynamic shared memory)");
  return copy;
}

} // namespace

FreshLaunch::FreshLaunch(const std::function<void(cudaStream_t)>& enqueue) {
  cudaStream_t stream = nullptr;
  cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  try {
    cuda_check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal),
               "cudaStreamBeginCapture");
    enqueue(stream);
    cuda_check(cudaStreamEndCapture(stream, &m_graph), "cudaStreamEndCapture");
  } catch (...) {
    cudaGraph_t partial = nullptr;
    if (cudaStreamEndCapture(stream, &partial) == cudaSuccess && partial)
      cudaGraphDestroy(partial);
    cudaGetLastError();
    cudaStreamDestroy(stream);
    throw;
  }
  cudaStreamDestroy(stream);
}

FreshLaunch::~FreshLaunch() {
  for (cudaLibrary_t load : m_loads)
    cudaLibraryUnload(load);
  if (m_graph)
    cudaGraphDestroy(m_graph);
}

int FreshLaunch::run(const unsigned char* cubin, std::size_t size, cudaStream_t stream,
                     const std::function<void(cudaStream_t)>& after_launch) {
  std::vector<std::uint64_t>& image = m_images.emplace_back((size + 7) / 8);
  std::memcpy(image.data(), cubin, size);
  cudaLibrary_t load = nullptr;
  cuda_check(cudaLibraryLoadData(&load, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
             "cudaLibraryLoadData(a fresh load of the kernel's cubin)");
  m_loads.push_back(load);
  int fresh = 0;
  for (cudaGraphNode_t node : kernel_nodes(m_graph)) {
    cudaKernelNodeParams params{};
    cuda_check(cudaGraphKernelNodeGetParams(node, &params), "cudaGraphKernelNodeGetParams");
    if (const void* copy = fresh_copy(load, params.func)) {
      params.func = const_cast<void*>(copy);
      cuda_check(cudaGraphKernelNodeSetParams(node, &params), "cudaGraphKernelNodeSetParams");
      ++fresh;
    }
  }
  cudaGraphExec_t exec = nullptr;
  cuda_check(cudaGraphInstantiate(&exec, m_graph, 0), "cudaGraphInstantiate");
  const cudaError_t launched = cudaGraphLaunch(exec, stream);
  if (launched == cudaSuccess && after_launch)
    after_launch(stream);
  const cudaError_t ran = launched == cudaSuccess ? cudaStreamSynchronize(stream) : launched;
  cudaGraphExecDestroy(exec);
  cuda_check(ran, "the sampled launch");
  return fresh;
}

} // namespace wl
