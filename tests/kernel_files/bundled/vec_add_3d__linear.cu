// mirrors: vec_add_3d/linear
// compare at: --param nx=16 --param ny=16 --param nz=16
// compare at: --param nx=67 --param ny=45 --param nz=1 --block 200
// The volume as one flat array: thread i adds element i.
// @warplens kernel vec_add_3d_linear
// @warplens size nx = 256
// @warplens size ny = 256
// @warplens size nz = 256
// @warplens arg a: in float[nx * ny * nz] random(-1, 1)
// @warplens arg b: in float[nx * ny * nz] random(-1, 1)
// @warplens arg c: out float[nx * ny * nz]
// @warplens arg count: long = nx * ny * nz
// @warplens block 256
// @warplens grid ceil_div(nx * ny * nz, block.x)
// @warplens check none

__global__ void vec_add_3d_linear(const float* a, const float* b, float* c, long long count) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) {
    const float x = a[i];
    const float y = b[i];
    c[i] = x + y;
  }
}
