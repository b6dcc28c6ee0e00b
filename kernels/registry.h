#pragma once
// The one list of bundled kernels. The GUI, the CLI and the tests iterate it.

#include "kernel.h"

#include <string>
#include <vector>

namespace wl {

const std::vector<KernelDesc>& all_kernels();

// Appends a test program's own kernels to the list (the worker-fault benchmark's kernel that
// faults on purpose). Only before the list is first read; WarpLens itself never calls it.
void add_kernels_for_testing(std::vector<KernelDesc> kernels);

// The kernel with this id, or nullptr.
const KernelDesc* find_kernel(const std::string& id);

// "transpose" for "transpose/smem": the variants of a family solve one problem, so they compare.
std::string kernel_family(const std::string& id);

// "33 kernels #1f2e3d4c": a digest of the bundled kernels' ids, parameters (names, defaults,
// ranges, choices), block ranks and access sites. Two WarpLens builds that give the same answer
// mean the same thing by a kernel request, so their workers' points can be merged.
std::string catalog_version();

} // namespace wl
