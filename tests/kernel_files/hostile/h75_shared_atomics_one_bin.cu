// HOSTILE: every thread atomicAdd's one shared float (one bin) and atomicExch's a shared double: shared atomics on one address (serialised). GOOD: the shared atomic line predicted with 32 wavefronts/req or another figure with the reason; not 1.00 presented as conflict-free.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  __shared__ float bin;
  __shared__ double d;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) { bin = 0; d = 0; }
  __syncthreads();
  atomicAdd(&bin, in[i]);
  atomicExch((unsigned long long*)&d, (unsigned long long)i);
  __syncthreads();
  out[i] = bin + (float)d;
}
