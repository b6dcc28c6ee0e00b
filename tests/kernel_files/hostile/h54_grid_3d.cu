// HOSTILE (valid but weird): a 3D grid 8x8x16 of 3D blocks 8x8x4, index from all six coordinates into a 64^3 volume. GOOD: each warp covers 8x4 elements of x,y (rows of 8 floats = 32 B): 4 sectors/req for the load, same for the store.
// @warplens kernel k
// @warplens size nx = 64
// @warplens arg in: in float[nx * nx * nx] random(0, 1)
// @warplens arg out: out float[nx * nx * nx]
// @warplens arg nx: int = nx
// @warplens block 8x8x4
// @warplens grid 8, 8, 16
// @warplens check none

__global__ void k(const float* in, float* out, int nx) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  long long e = ((long long)z * nx + y) * nx + x;
  out[e] = in[e] * 2.0f;
}
