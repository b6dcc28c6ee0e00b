// HOSTILE: a function pointer chosen per lane in a register (no table in memory): (threadIdx.x & 1) ? f0 : f1, then an indirect call. GOOD: a note on the call's line (indirect call not modelled), the store predicted; never a refusal of the whole file.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

typedef float (*Fn)(const float*, int);
__device__ __noinline__ float f0(const float* p, int i) { return p[i]; }
__device__ __noinline__ float f1(const float* p, int i) { return p[i ^ 1] * 2.0f; }
__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  Fn f = (threadIdx.x & 1) ? f0 : f1;
  out[i] = f(in, i);
}
