#pragma once
// The GPU this process can see, as an Arch. The only part of the models that needs the CUDA
// runtime; everything else works from presets with no GPU at all.

#include "engine/library.h"
#include "model/arch.h"

#include <string>

namespace wl {

// Built from cudaGetDeviceProperties and the memory clock and bus width attributes. Throws
// UsageError saying why when there is no usable GPU (no driver, no device, bad ordinal).
Arch arch_from_device(int ordinal = 0);

// "h100", "sm_90", "device", "device:N" or a path to a .json preset: what --arch takes.
Arch resolve_arch(const std::string& spec);

// The CUDA version the driver supports, "13.0" ("unknown" where it cannot be read): what a
// tune's cache and a recording name the driver by.
std::string driver_cuda_version_text();

// One line for listings: "0: NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)" or "none (<reason>)".
std::string describe_devices();

} // namespace wl
