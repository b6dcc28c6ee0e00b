// HOSTILE: shared double (8 B) accesses with stride 1: a known answer: 256 B per warp = 2 wavefronts/req, no conflict beyond that. GOOD: the double line 2.00 wavefronts/req.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  __shared__ double s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = (float)s[threadIdx.x ^ 1];
}
