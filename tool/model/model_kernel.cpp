#include "model/model_kernel.h"

#include "model/kernel_resources.h"

namespace wl {

namespace {

std::optional<KernelAttributes> build_time_attributes(const KernelDesc& kernel,
                                                      const Params& params, const Arch& arch) {
  if (kernel.usage) { // compiled when asked, for this arch
    const KernelUsage usage = kernel.usage(params, arch.cc_major * 10 + arch.cc_minor);
    KernelAttributes a;
    a.source = usage.source;
    a.registers = usage.registers;
    a.static_shared_bytes = usage.static_shared_bytes;
    a.local_bytes = usage.local_bytes;
    return a;
  }
  if (!kernel.symbol)
    return std::nullopt;
  const std::string symbol = kernel.symbol(params);
  if (symbol.empty())
    return std::nullopt;
  const auto compiled = compiled_resources(symbol, arch.cc_major * 10 + arch.cc_minor);
  if (!compiled)
    return std::nullopt;
  KernelAttributes a;
  a.source =
      "ptxas, sm_" + std::to_string(compiled->sm) +
      (compiled->recorded ? ", recorded with nvcc " + recorded_nvcc_version() : ", at build time");
  a.registers = compiled->registers;
  a.static_shared_bytes = compiled->static_shared_bytes;
  a.local_bytes = compiled->stack_frame_bytes;
  return a;
}

} // namespace

RunResult model_kernel(const KernelRequest& request, const Arch& arch, const ModelBudget& budget) {
  const KernelDesc& kernel = *request.kernel;
  check_kernel_arch(kernel, arch);
  RunResult result;
  result.kernel_id = kernel.id;
  result.kernel_kind = kernel.kind;
  result.params = request.params;
  result.arch = arch;
  result.launch = make_launch(kernel, request.params, request.block, arch.sm_count);
  result.dynamic_smem = dynamic_smem_bytes(kernel, request.params, request.block);
  result.bytes_moved = kernel.bytes_moved(request.params);
  result.flops = kernel.flops ? kernel.flops(request.params) : 0;
  result.attributes = build_time_attributes(kernel, request.params, arch);
  if (result.attributes) {
    OccupancyRequest occupancy;
    occupancy.block = request.block;
    occupancy.registers_per_thread = result.attributes->registers;
    occupancy.static_smem = result.attributes->static_shared_bytes;
    occupancy.dynamic_smem = result.dynamic_smem;
    occupancy.grid_blocks = result.launch.grid.threads();
    result.occupancy = compute_occupancy(arch, occupancy);
  }
  result.prediction =
      predict_launch(kernel, result.launch, budget, arch.cc_major * 10 + arch.cc_minor);
  return result;
}

} // namespace wl
