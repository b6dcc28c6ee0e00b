// HOSTILE: a table of __device__ function pointers indexed by threadIdx.x & 3 (an indirect call through a register). GOOD: a note on the call's line (indirect call not modelled); the loads inside the callees either predicted on their lines or noted; the store predicted.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

typedef float (*Fn)(const float*, int);
__device__ float f0(const float* p, int i) { return p[i]; }
__device__ float f1(const float* p, int i) { return p[i ^ 1] * 2.0f; }
__device__ float f2(const float* p, int i) { return p[i ^ 2] * 3.0f; }
__device__ float f3(const float* p, int i) { return p[i ^ 3] * 4.0f; }
__device__ Fn table[4] = {f0, f1, f2, f3};
__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = table[threadIdx.x & 3](in, i);
}
