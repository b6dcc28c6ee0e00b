// HOSTILE: cooperative groups grid.sync() (needs a cooperative launch; the grid-wide barrier cannot be met by a per-block model). GOOD: a note on the grid.sync line; loads/stores before and after predicted.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(const float* in, float* out, int n) {
  cg::grid_group grid = cg::this_grid();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];
  grid.sync();
  out[i] += in[(i + 1) & (n - 1)];
}
