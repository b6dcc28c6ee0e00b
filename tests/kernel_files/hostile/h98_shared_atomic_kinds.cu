// HOSTILE: every kind of shared atomic, each line one kind, all 32 lanes of a warp on one address (and spreads over the banks: an add, an exchange and a compare-and-swap of a word a lane, an exchange of two lanes a word). GOOD: each line's wavefronts predicted as the GPU counts them (lanes that add to one address are combined; an exchange or a compare-and-swap of one address is serialised), or the line names why not.
// @warplens kernel k
// @warplens size n = 1 << 16
// @warplens arg in: in int[n] random(0, 100)
// @warplens arg out: out int[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const int* in, int* out, int n) {
  __shared__ int add32, exch32, cas32, min32, or32;
  __shared__ unsigned long long add64, exch64;
  __shared__ int spread[64];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < 64) spread[threadIdx.x] = 0;
  if (threadIdx.x == 0) { add32 = exch32 = cas32 = min32 = or32 = 0; add64 = exch64 = 0; }
  __syncthreads();
  const int v = i < n ? in[i] : 0;
  atomicAdd(&add32, v);
  atomicExch(&exch32, v);
  atomicCAS(&cas32, 0, v);
  atomicMin(&min32, v);
  atomicOr(&or32, v);
  atomicAdd(&add64, (unsigned long long)v);
  atomicExch(&exch64, (unsigned long long)v);
  atomicAdd(&spread[threadIdx.x % 32], v);
  atomicAdd(&spread[(threadIdx.x % 32) * 2], v);
  atomicExch(&spread[threadIdx.x % 32], v);
  atomicExch(&spread[(threadIdx.x % 32) / 2], v);
  atomicCAS(&spread[threadIdx.x % 32], 0, v);
  __syncthreads();
  if (i < n) out[i] = add32 + exch32 + cas32 + min32 + or32 + (int)add64 + (int)exch64 + spread[threadIdx.x % 64];
}
