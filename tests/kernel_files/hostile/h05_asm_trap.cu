// HOSTILE: asm volatile("trap;") in the lanes whose in[i] > 0.5 (about half). GOOD: a note on the trap line that it stops the warp/launch (on a GPU the launch fails); the load in[i] predicted 4 sectors/req; no crash of warplens.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  if (v > 0.5f) asm volatile("trap;");
  out[i] = v;
}
