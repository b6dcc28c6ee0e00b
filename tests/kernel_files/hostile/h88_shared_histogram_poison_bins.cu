// HOSTILE: a shared-memory histogram whose bin comes from the poisoned out buffer read before writing (as unsigned: all lanes one bin, 32-way atomics) -- the bins depend on poison. GOOD: the atomic line's figure either from the poison with a note, or noted unknown; not silently certain.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  __shared__ unsigned bins[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bins[threadIdx.x] = 0;
  __syncthreads();
  unsigned b = reinterpret_cast<const unsigned*>(out)[i] & 255u;
  atomicAdd(&bins[b], 1u);
  __syncthreads();
  out[i] = (float)bins[threadIdx.x] + in[i];
}
