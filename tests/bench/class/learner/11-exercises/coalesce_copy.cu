// Exercise: coalesce a strided copy. Each thread copies eight floats that lie side by side, so
// the lanes of a warp are 32 bytes apart and every load and store touches a sector per lane.
// Change which elements each thread copies so that neighbouring lanes copy neighbouring floats;
// each thread still copies eight of them, and every element is copied once.
//
// @warplens kernel copy_eight
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(-1, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x * 8)
// @warplens check copy_reference 0

__global__ void copy_eight(const float* in, float* out, int n) {
  const int thread = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 8; ++k) {
    const int i = (blockIdx.x * 8 + k) * blockDim.x + threadIdx.x;
    if (i < n)
      out[i] = in[i];
  }
}

__global__ void copy_reference(const float* in, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = in[i];
}
