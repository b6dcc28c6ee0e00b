// HOSTILE: volatile shared-memory warp reduction (the old unsynchronised idiom) with stride 1,2,...,16 reads. GOOD: shared loads/stores predicted; reads s[t + 16] etc. are 1 wavefront/req (distinct consecutive banks).
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  __shared__ float s[288];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  volatile float* v = s;
  v[threadIdx.x] = in[i];
  if (threadIdx.x < 32) v[threadIdx.x + 256] = 0.0f;
  __syncthreads();
  v[threadIdx.x] += v[threadIdx.x + 16];
  v[threadIdx.x] += v[threadIdx.x + 8];
  v[threadIdx.x] += v[threadIdx.x + 4];
  out[i] = v[threadIdx.x];
}
