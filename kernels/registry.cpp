#include "registry.h"

#include "families.h"

#include <stdexcept>

namespace wl {

namespace {

std::vector<KernelDesc>& kernels_for_testing() {
  static std::vector<KernelDesc> kernels;
  return kernels;
}
bool registry_read = false;

std::vector<KernelDesc> build_registry() {
  std::vector<KernelDesc> all;
  // The order of the catalog: from one add per thread to a fused attention kernel.
  for (auto family :
       {vec_add_kernels, vec_add_3d_kernels, broadcast_add_kernels, divergence_kernels,
        coalescing_kernels, bank_conflicts_kernels, transpose_kernels, matmul_kernels,
        softmax_kernels, reduce_sum_kernels, flash_attention_kernels})
    for (KernelDesc& kernel : family())
      all.push_back(std::move(kernel));
  for (KernelDesc& kernel : kernels_for_testing())
    all.push_back(std::move(kernel));
  registry_read = true;
  return all;
}

} // namespace

const std::vector<KernelDesc>& all_kernels() {
  static const std::vector<KernelDesc> kernels = build_registry();
  return kernels;
}

void add_kernels_for_testing(std::vector<KernelDesc> kernels) {
  if (registry_read)
    throw std::logic_error("add_kernels_for_testing: the kernel list was already read");
  for (KernelDesc& kernel : kernels)
    kernels_for_testing().push_back(std::move(kernel));
}

const KernelDesc* find_kernel(const std::string& id) {
  for (const KernelDesc& kernel : all_kernels())
    if (kernel.id == id)
      return &kernel;
  return nullptr;
}

} // namespace wl
