// broadcast_add/xyz written as a person's kernel file: out(x, y, z) = a(x, y, z) + b(x, y) + c(x).
// @warplens kernel add_broadcast
// @warplens size nx = 256
// @warplens size ny = 256
// @warplens size nz = 256
// @warplens restrict block.x * block.y * block.z <= 1024 && block.z <= 64
// @warplens arg a: in float[nx * ny * nz] random(-1, 1)
// @warplens arg b: in float[nx * ny] random(-1, 1)
// @warplens arg c: in float[nx] random(-1, 1)
// @warplens arg out: out float[nx * ny * nz]
// @warplens arg nx: int = nx
// @warplens arg ny: int = ny
// @warplens arg nz: int = nz
// @warplens block 4x4x4
// @warplens grid ceil_div(nx, block.x), ceil_div(ny, block.y), ceil_div(nz, block.z)
// @warplens check add_broadcast_reference 0
// @warplens bytes (2 * nx * ny * nz + nx * ny + nx) * 4

__global__ void add_broadcast(const float* a, const float* b, const float* c, float* out, int nx,
                              int ny, int nz) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= nx || y >= ny || z >= nz)
    return;
  const long long i = ((long long)z * ny + y) * nx + x;
  const float from_a = a[i];
  const float from_b = b[(long long)y * nx + x];
  const float from_c = c[x];
  out[i] = from_a + from_b + from_c;
}

__global__ void add_broadcast_reference(const float* a, const float* b, const float* c, float* out,
                                        int nx, int ny, int nz) {
  const long long threads =
      (long long)gridDim.x * gridDim.y * gridDim.z * blockDim.x * blockDim.y * blockDim.z;
  const long long block = ((long long)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  const long long first = block * blockDim.x * blockDim.y * blockDim.z +
                          (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  for (long long i = first; i < (long long)nx * ny * nz; i += threads) {
    const long long x = i % nx, y = i / nx % ny;
    out[i] = a[i] + b[y * nx + x] + c[x];
  }
}
