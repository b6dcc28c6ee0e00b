#include "engine.h"

#include "cuda_check.h"
#include "device.h"
#include "verify.h"

#include <random>

#include <cuda_runtime.h>

namespace wl {

namespace {

// Device memory for one run, freed on every path out.
class DeviceBuffers {
public:
  DeviceBuffers() = default;
  DeviceBuffers(const DeviceBuffers&) = delete;
  DeviceBuffers& operator=(const DeviceBuffers&) = delete;
  ~DeviceBuffers() {
    for (void* p : m_pointers) cudaFree(p);
  }

  void* allocate(std::size_t bytes, const std::string& name) {
    void* p = nullptr;
    cuda_check(cudaMalloc(&p, std::max<std::size_t>(bytes, 4)), ("cudaMalloc(" + name + ")").c_str());
    m_pointers.push_back(p);
    return p;
  }
  const std::vector<void*>& pointers() const { return m_pointers; }

private:
  std::vector<void*> m_pointers;
};

class Stream {
public:
  Stream() { cuda_check(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~Stream() { cudaStreamDestroy(m_stream); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return m_stream; }

private:
  cudaStream_t m_stream{};
};

std::string mebibytes(double bytes) { return std::to_string(static_cast<long long>(bytes / (1 << 20))) + " MiB"; }

// Checked before allocating: the buffers plus the L2 flush buffer against free device memory.
void check_memory_fits(const KernelDesc& kernel, const Params& params, const Arch& arch) {
  double needed = static_cast<double>(arch.l2_cache_bytes);
  for (const BufferSpec& b : kernel.buffers) needed += 4.0 * static_cast<double>(b.count(params));
  std::size_t free = 0, total = 0;
  cuda_check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
  if (needed > static_cast<double>(free))
    throw UsageError(kernel.id + " with these sizes needs " + mebibytes(needed) + " of device memory; " +
                     mebibytes(static_cast<double>(free)) + " are free");
}

HostBuffers make_inputs(const KernelDesc& kernel, const Params& params, std::uint64_t seed) {
  HostBuffers buffers;
  for (const BufferSpec& spec : kernel.buffers)
    buffers.push_back(HostBuffer{spec.type, std::vector<std::uint32_t>(static_cast<std::size_t>(spec.count(params)))});
  if (kernel.init) {
    kernel.init(buffers, params, seed);
    return buffers;
  }
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (std::size_t i = 0; i < buffers.size(); ++i)
    if (kernel.buffers[i].role == BufferRole::input && kernel.buffers[i].type == ElementType::f32)
      for (std::int64_t e = 0; e < buffers[i].size(); ++e) buffers[i].f32()[e] = dist(rng);
  return buffers;
}

KernelAttributes device_attributes(const void* function) {
  cudaFuncAttributes attr{};
  cuda_check(cudaFuncGetAttributes(&attr, function), "cudaFuncGetAttributes");
  KernelAttributes a;
  a.source = "cudaFuncGetAttributes";
  a.registers = attr.numRegs;
  a.static_shared_bytes = static_cast<std::int64_t>(attr.sharedSizeBytes);
  a.local_bytes = static_cast<std::int64_t>(attr.localSizeBytes);
  a.max_threads_per_block = attr.maxThreadsPerBlock;
  a.ptx_version = attr.ptxVersion;
  a.binary_version = attr.binaryVersion;
  return a;
}

// The model's occupancy and the runtime's, from the attributes the device reports.
void add_occupancy(RunResult& result, const void* function, const BlockShape& block) {
  const KernelAttributes& a = *result.attributes;
  if (result.dynamic_smem > 48 * 1024)
    cuda_check(cudaFuncSetAttribute(function, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(result.dynamic_smem)),
               "cudaFuncSetAttribute(max dynamic shared memory)");
  OccupancyRequest occupancy;
  occupancy.block = block;
  occupancy.registers_per_thread = a.registers;
  occupancy.static_smem = a.static_shared_bytes;
  occupancy.dynamic_smem = result.dynamic_smem;
  occupancy.kernel_max_threads = a.max_threads_per_block;
  occupancy.grid_blocks = result.launch.grid.threads();
  result.occupancy = compute_occupancy(result.arch, occupancy);
  cuda_check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&result.runtime_blocks_per_sm, function,
                                                            static_cast<int>(block.threads()),
                                                            static_cast<size_t>(result.dynamic_smem)),
             "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
}

HostBuffers copy_outputs(const KernelDesc& kernel, const HostBuffers& inputs, const std::vector<void*>& device) {
  HostBuffers outputs(inputs.size());
  for (std::size_t i = 0; i < kernel.buffers.size(); ++i) {
    outputs[i].type = inputs[i].type;
    if (kernel.buffers[i].role != BufferRole::output) continue;
    outputs[i].words.resize(inputs[i].words.size());
    cuda_check(cudaMemcpy(outputs[i].words.data(), device[i], 4 * outputs[i].words.size(), cudaMemcpyDeviceToHost),
               "cudaMemcpy(outputs)");
  }
  return outputs;
}

} // namespace

RunResult run_kernel(const KernelRequest& request, const EngineOptions& options) {
  const KernelDesc& kernel = *request.kernel;
  const Arch arch = arch_from_device(options.device);
  cuda_check(cudaSetDevice(options.device), "cudaSetDevice");
  check_memory_fits(kernel, request.params, arch);

  RunResult result = model_kernel(request, arch, options.model);
  const void* function = kernel.function ? kernel.function(request.params) : nullptr;
  result.attributes.reset();
  result.occupancy.reset();
  if (function) {
    result.attributes = device_attributes(function);
    add_occupancy(result, function, request.block);
  }

  Stream stream;
  DeviceBuffers device;
  HostBuffers inputs;
  {
    NvtxRange range("allocate and initialise");
    inputs = make_inputs(kernel, request.params, options.seed);
    for (std::size_t i = 0; i < kernel.buffers.size(); ++i) {
      void* p = device.allocate(4 * inputs[i].words.size(), kernel.buffers[i].name);
      if (kernel.buffers[i].role == BufferRole::input)
        cuda_check(cudaMemcpy(p, inputs[i].words.data(), 4 * inputs[i].words.size(), cudaMemcpyHostToDevice),
                   "cudaMemcpy(inputs)");
      else
        cuda_check(cudaMemset(p, 0xff, 4 * inputs[i].words.size()), "cudaMemset(poison outputs)");
    }
  }
  const DeviceLaunch launch{result.launch, result.dynamic_smem, device.pointers(), stream.get()};
  const auto enqueue = [&](void*) { kernel.launch(launch); };

  if (options.verify) {
    NvtxRange range("verify");
    enqueue(nullptr);
    cuda_check(cudaGetLastError(), "kernel launch");
    cuda_check(cudaStreamSynchronize(stream.get()), "kernel run");
    const HostBuffers outputs = copy_outputs(kernel, inputs, device.pointers());
    result.verification = verify_outputs(kernel, outputs, kernel.reference(inputs, request.params));
  }
  {
    NvtxRange range("time kernel");
    result.timing = time_cold(enqueue, stream.get(), options.timing);
  }
  return result;
}

} // namespace wl
