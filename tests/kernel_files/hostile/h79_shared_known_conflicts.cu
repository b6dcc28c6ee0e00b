// HOSTILE: shared float reads with known answers: stride 2 (2-way: 2 wavefronts/req), stride 32 (32-way: 32 wavefronts/req), broadcast of one word (1 wavefront/req), float4 stride 1 (4 wavefronts/req). GOOD: exactly those figures, each on its line.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  __shared__ float s[32 * 33 * 4];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int t = threadIdx.x; t < 32 * 33 * 4; t += 256) s[t] = 1.0f;
  __syncthreads();
  int l = threadIdx.x & 31;
  float a = s[l * 2];
  float b = s[l * 32];
  float c = s[7];
  float4 d = reinterpret_cast<float4*>(s)[l];
  out[i] = a + b + c + d.x + d.w;
}
