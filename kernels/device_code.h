#pragma once
// WL_DEVICE_CODE is 1 where nvcc compiles a family file: its kernels, and the descriptors'
// `function` and `launch` that hand them to the engine. A build without the CUDA toolkit compiles
// the same file as C++ with WL_DEVICE_CODE 0, for the model alone: the descriptors, sites, CPU
// references and index math stay, the kernels and their launches are left out, and the
// registers come from the recorded ptxas report (kernels/recorded_resource_usage.txt).

#ifdef __CUDACC__
#define WL_DEVICE_CODE 1
#else
#define WL_DEVICE_CODE 0
#endif

// A kernel's address, for a descriptor that passes it on; nullptr where it is not compiled.
#if WL_DEVICE_CODE
#define WL_KERNEL(name) (name)
#else
#define WL_KERNEL(name) nullptr
#endif
