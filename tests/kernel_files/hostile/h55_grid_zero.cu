// HOSTILE (invalid): a grid of 0 blocks (n = 0 makes ceil_div 0). GOOD: exit 2 with one line naming the grid line (a launch needs at least one block), or a model with no blocks and a clear statement.
// @warplens kernel k
// @warplens size n = 0
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
