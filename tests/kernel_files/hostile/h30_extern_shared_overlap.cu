// HOSTILE: extern __shared__ float dyn[] indexed negative (dyn[threadIdx.x - 256]) so it lands on the static __shared__ array before it; the block writes stat then reads it through dyn. GOOD: the dyn read predicted at 1 wavefront/req (consecutive words) with the values stat holds, or noted as outside the dynamic window; no crash.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens shared 1024
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  __shared__ float stat[256];
  extern __shared__ float dyn[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  stat[threadIdx.x] = in[i];
  dyn[threadIdx.x] = 1.0f;
  __syncthreads();
  out[i] = dyn[(int)threadIdx.x - 256] + stat[threadIdx.x ^ 1];
}
