#pragma once
// One function per kernel family, each returning that family's descriptors. registry.cpp is the
// only caller; every other part of WarpLens iterates all_kernels().

#include "kernel.h"

#include <vector>

namespace wl {

std::vector<KernelDesc> vec_add_kernels();
std::vector<KernelDesc> vec_add_3d_kernels();
std::vector<KernelDesc> broadcast_add_kernels();
std::vector<KernelDesc> divergence_kernels();
std::vector<KernelDesc> coalescing_kernels();
std::vector<KernelDesc> bank_conflicts_kernels();
std::vector<KernelDesc> transpose_kernels();
std::vector<KernelDesc> matmul_kernels();
std::vector<KernelDesc> softmax_kernels();
std::vector<KernelDesc> reduce_sum_kernels();
std::vector<KernelDesc> flash_attention_kernels();

} // namespace wl
