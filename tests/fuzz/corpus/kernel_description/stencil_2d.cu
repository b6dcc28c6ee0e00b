// A 5-point stencil on a 2D grid: each block loads its tile and a one-element halo around it into
// shared memory, then every thread reads its four neighbours from there rather than from DRAM.
// The block is the tile: try 32x8, 32x16, 16x16 and watch the halo's share of the loads.
//
// @warplens kernel stencil_2d
// @warplens size nx = 4096
// @warplens size ny = 4096
// @warplens restrict block.x * block.y <= 1024 && block.x >= 2 && block.y >= 2
// @warplens arg in: in float[nx * ny] random(0, 1)
// @warplens arg out: out float[nx * ny]
// @warplens arg nx: int = nx
// @warplens arg ny: int = ny
// @warplens block 32x8
// @warplens grid ceil_div(nx, block.x), ceil_div(ny, block.y)
// @warplens shared (block.x + 2) * (block.y + 2) * 4
// @warplens check stencil_reference 1e-6
// @warplens bytes 2 * nx * ny * 4
// @warplens flops 6 * nx * ny

// Outside the grid reads as 0.
__device__ float at(const float* in, int nx, int ny, int x, int y) {
  return x >= 0 && x < nx && y >= 0 && y < ny ? in[(long long)y * nx + x] : 0.0f;
}

__global__ void stencil_2d(const float* in, float* out, int nx, int ny) {
  extern __shared__ float tile[]; // (blockDim.x + 2) x (blockDim.y + 2), the halo around
  const int width = blockDim.x + 2, height = blockDim.y + 2;
  const int x0 = blockIdx.x * blockDim.x - 1, y0 = blockIdx.y * blockDim.y - 1;
  for (int t = threadIdx.y * blockDim.x + threadIdx.x; t < width * height;
       t += blockDim.x * blockDim.y)
    tile[t] = at(in, nx, ny, x0 + t % width, y0 + t / width);
  __syncthreads();
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny)
    return;
  const int c = (threadIdx.y + 1) * width + threadIdx.x + 1;
  out[(long long)y * nx + x] =
      0.5f * tile[c] + 0.125f * (tile[c - 1] + tile[c + 1] + tile[c - width] + tile[c + width]);
}

__global__ void stencil_reference(const float* in, float* out, int nx, int ny) {
  const long long threads = (long long)gridDim.x * gridDim.y * blockDim.x * blockDim.y;
  const long long first =
      ((long long)blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x * blockDim.y +
      threadIdx.y * blockDim.x + threadIdx.x;
  for (long long e = first; e < (long long)nx * ny; e += threads) {
    const int x = e % nx, y = e / nx;
    out[e] = 0.5f * at(in, nx, ny, x, y) +
             0.125f * (at(in, nx, ny, x - 1, y) + at(in, nx, ny, x + 1, y) +
                       at(in, nx, ny, x, y - 1) + at(in, nx, ny, x, y + 1));
  }
}
