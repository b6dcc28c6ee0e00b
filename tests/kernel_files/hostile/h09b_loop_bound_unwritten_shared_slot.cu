// HOSTILE: a loop bound read from a shared array slot no thread writes (c[1]; only c[0] is written, so NVRTC cannot fold the read away). GOOD: the loop's branch on an unknown value noted on its line (the warp stops), the loads before it predicted; no certain number for the loop body.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  __shared__ int c[2];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) c[0] = 5;
  __syncthreads();
  float acc = in[i];
  for (int j = 0; j < c[1]; ++j)
    acc += in[(i + j * 256) & (n - 1)];
  out[i] = acc + c[0];
}
