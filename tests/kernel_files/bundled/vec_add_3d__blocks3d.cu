// mirrors: vec_add_3d/blocks3d
// compare at: --param nx=32 --param ny=16 --param nz=16
// compare at: --param nx=100 --param ny=3 --param nz=5 --block 8x8x8
// compare at: --param nx=33 --param ny=9 --param nz=7 --block 4x8x8
// compare at: --param nx=12 --param ny=40 --param nz=3 --block 1x32x8
// compare at: --param nx=67 --param ny=5 --param nz=3 --block 32x4x4
// Each thread adds the element at its (x, y, z); x is the contiguous axis.
// @warplens kernel vec_add_3d_blocks3d
// @warplens size nx = 256
// @warplens size ny = 256
// @warplens size nz = 256
// @warplens restrict block.x * block.y * block.z <= 1024 && block.z <= 64
// @warplens arg a: in float[nx * ny * nz] random(-1, 1)
// @warplens arg b: in float[nx * ny * nz] random(-1, 1)
// @warplens arg c: out float[nx * ny * nz]
// @warplens arg nx: int = nx
// @warplens arg ny: int = ny
// @warplens arg nz: int = nz
// @warplens block 16x8x8
// @warplens grid ceil_div(nx, block.x), ceil_div(ny, block.y), ceil_div(nz, block.z)
// @warplens check none

__global__ void vec_add_3d_blocks3d(const float* a, const float* b, float* c, int nx, int ny,
                                    int nz) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (!(x < nx && y < ny && z < nz))
    return;
  const long long i = (static_cast<long long>(z) * ny + y) * nx + x;
  const float from_a = a[i];
  const float from_b = b[i];
  c[i] = from_a + from_b;
}
