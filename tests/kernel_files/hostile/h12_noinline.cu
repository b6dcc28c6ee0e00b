// HOSTILE: a __noinline__ __device__ function doing the load (PTX call). GOOD: the load inside the function predicted on the function's line (4 sectors/req), or the call noted; the store predicted 4 sectors/req.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__device__ __noinline__ float get(const float* p, int i) { return p[i] * 2.0f; }
__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = get(in, i);
}
