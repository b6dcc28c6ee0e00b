// HOSTILE: a grid of 2^31-1 blocks (the largest gridDim.x) of 1024 threads, each reading a 1 MiB window by blockIdx.x & 255. GOOD: the model samples a few blocks in well under a few seconds; requests scaled to 2^31-1 blocks x 32 warps (68,719,476,704 loads), 4 sectors/req; no overflow in the counts.
// @warplens kernel k
// @warplens size n = 1 << 18
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 1024
// @warplens grid 2147483647
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  int i = (blockIdx.x & 255) * blockDim.x + threadIdx.x;
  out[i] = in[i] * 2.0f;
}
