// HOSTILE: a pointer to shared memory passed to a __noinline__ function as a plain float* (generic ld/st that land in shared); stride-32 so a 32-way bank conflict. GOOD: the generic accesses counted as shared with 32 wavefronts/req (32-way), or noted as generic; not counted as global sectors.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__device__ __noinline__ float pick(float* p, int j) { return p[j]; }
__global__ void k(const float* in, float* out, int n) {
  __shared__ float s[32 * 33];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int t = threadIdx.x; t < 32 * 33; t += blockDim.x) s[t] = in[(i + t) & (n - 1)];
  __syncthreads();
  float* g = s; // generic
  out[i] = pick(g, (threadIdx.x & 31) * 32);
}
