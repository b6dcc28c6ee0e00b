#include "registry.h"

#include "families.h"

namespace wl {

namespace {

std::vector<KernelDesc> build_registry() {
  std::vector<KernelDesc> all;
  // The order of the catalog: from one add per thread to a fused attention kernel.
  for (auto family :
       {vec_add_kernels, vec_add_3d_kernels, broadcast_add_kernels, divergence_kernels,
        coalescing_kernels, bank_conflicts_kernels, transpose_kernels, matmul_kernels,
        softmax_kernels, reduce_sum_kernels, flash_attention_kernels})
    for (KernelDesc& kernel : family())
      all.push_back(std::move(kernel));
  return all;
}

} // namespace

const std::vector<KernelDesc>& all_kernels() {
  static const std::vector<KernelDesc> kernels = build_registry();
  return kernels;
}

const KernelDesc* find_kernel(const std::string& id) {
  for (const KernelDesc& kernel : all_kernels())
    if (kernel.id == id)
      return &kernel;
  return nullptr;
}

} // namespace wl
