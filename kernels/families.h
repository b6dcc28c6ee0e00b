#pragma once
// One function per kernel family, each returning that family's descriptors: NAME_kernels() for
// each NAME of the one list of families (kernels/CMakeLists.txt, generated into
// kernel_families.inc). registry.cpp is the only caller; every other part of WarpLens iterates
// all_kernels().

#include "kernel.h"

#include <vector>

namespace wl {

#define WL_KERNEL_FAMILY(name) std::vector<KernelDesc> name##_kernels();
#include "kernel_families.inc"
#undef WL_KERNEL_FAMILY

} // namespace wl
