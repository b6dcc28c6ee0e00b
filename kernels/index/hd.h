#pragma once
// WL_HD marks index functions that both the kernel (device) and the access model (host) call.

#ifdef __CUDACC__
#define WL_HD __host__ __device__ __forceinline__
#else
#define WL_HD inline
#endif
