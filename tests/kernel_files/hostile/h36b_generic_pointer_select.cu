// HOSTILE: a generic pointer that may be global or shared (p = in[i] > 2 ? in : s; in is random(0, 1) so it is always s), read with a stride of 32 words: a generic ld that lands in shared, 32-way bank conflict. GOOD: counted as a shared load with 32 wavefronts/req (32-way), not as global sectors and not dropped.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  __shared__ float s[32 * 32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int t = threadIdx.x; t < 32 * 32; t += blockDim.x) s[t] = (float)t;
  __syncthreads();
  const float* p = in[i] > 2.0f ? in : s;
  out[i] = p[(threadIdx.x & 31) * 32];
}
