// HOSTILE: a per-block spin lock in shared memory (atomicCAS loop, each thread takes it in turn): under min-PC warp scheduling the lanes that lose the CAS may spin forever. GOOD: finishes (independent thread scheduling lets the holder release) or a loop-past-budget note within seconds; no hang.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  __shared__ int lock;
  __shared__ float sum;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) { lock = 0; sum = 0; }
  __syncthreads();
  float v = in[i];
  bool done = false;
  while (!done) {
    if (atomicCAS(&lock, 0, 1) == 0) {
      sum += v;
      __threadfence_block();
      atomicExch(&lock, 0);
      done = true;
    }
  }
  __syncthreads();
  out[i] = sum;
}
