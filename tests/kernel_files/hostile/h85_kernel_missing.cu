// HOSTILE (invalid): the description names kernel nosuch, which the file does not define. GOOD: exit 2 with one line naming the kernel line and the kernels the file has (k).
// @warplens kernel nosuch
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
