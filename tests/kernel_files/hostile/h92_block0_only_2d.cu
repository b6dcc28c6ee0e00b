// HOSTILE: a 2D grid where only block (0, 0) writes a per-launch summary row (if (blockIdx.x == 0 && blockIdx.y == 0)). GOOD: the summary line predicted with 8 requests (block (0,0)'s 8 warps), not scaled by the interior class's count.
// @warplens kernel k
// @warplens size nx = 4096
// @warplens size ny = 4096
// @warplens arg in: in float[nx * ny] random(0, 1)
// @warplens arg out: out float[nx * ny]
// @warplens arg nx: int = nx
// @warplens block 32x8
// @warplens grid ceil_div(nx, block.x), ceil_div(nx, block.y)
// @warplens check none

__global__ void k(const float* in, float* out, int nx) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  out[(long long)y * nx + x] = in[(long long)y * nx + x];
  if (blockIdx.x == 0 && blockIdx.y == 0)
    out[threadIdx.y * 32 + threadIdx.x] = 0.0f;
}
