// mirrors: broadcast_add/xyz
// compare at: --param nx=12 --param ny=11 --param nz=10
// compare at: --param nx=67 --param ny=20 --param nz=9 --block 32x8x4
// compare at: --param nx=33 --param ny=17 --param nz=9 --block 32x4x2
// compare at: --param nx=5 --param ny=3 --param nz=2
// out(x, y, z) = a(x, y, z) + b(x, y) + c(x), all stored x fastest.
// @warplens kernel broadcast_add_xyz
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
// @warplens check none

__global__ void broadcast_add_xyz(const float* a, const float* b, const float* c, float* out,
                                  int nx, int ny, int nz) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (!(x < nx && y < ny && z < nz))
    return;
  const long long i = (static_cast<long long>(z) * ny + y) * nx + x;
  const float from_a = a[i];
  const float from_b = b[static_cast<long long>(y) * nx + x];
  const float from_c = c[x];
  out[i] = from_a + from_b + from_c;
}
