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

// Kernels given at run time (KernelKind::run_time: a person's own file, compiled by NVRTC), found
// by find_kernel after the bundled ones; `all_kernels` stays the bundled list. Adding one with the
// id of an earlier one replaces it for later lookups; the earlier stays alive, since requests in
// flight point at it. Safe from any thread (the models look kernels up on theirs).
const KernelDesc& add_run_time_kernel(KernelDesc kernel);
std::vector<const KernelDesc*> run_time_kernels(); // the current one of each id, in order added

// The kernel with this id (bundled, a test program's own, or given at run time), or nullptr.
const KernelDesc* find_kernel(const std::string& id);

// "transpose" for "transpose/smem": the variants of a family solve one problem, so they compare.
std::string kernel_family(const std::string& id);
// The bundled kernels of one family, in the catalog's order; none when there is no such family.
std::vector<const KernelDesc*> family_kernels(const std::string& family);
// Every family of the bundled kernels, in the catalog's order.
std::vector<std::string> kernel_families();

// "33 kernels #1f2e3d4c": a digest of the bundled kernels' ids, parameters (names, defaults,
// ranges, choices), block ranks and access sites. Two WarpLens builds that give the same answer
// mean the same thing by a kernel request, so their workers' points can be merged.
std::string catalog_version();

} // namespace wl
