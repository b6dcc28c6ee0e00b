// HOSTILE: static shared array of 256 floats indexed at threadIdx.x + 100000 and at -1 (far past and before the block's shared window). GOOD: a note naming the line as outside shared memory (the GPU faults), not wavefronts presented as fine.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = in[i];
  __syncthreads();
  int far = (int)threadIdx.x + 100000 * (n >> 20);
  out[i] = s[far] + s[(int)threadIdx.x - (n >> 20)];
}
