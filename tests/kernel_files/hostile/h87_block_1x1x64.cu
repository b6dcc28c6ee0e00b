// HOSTILE (valid but weird): a block of 1x1x64 (the largest block.z), so a warp is 32 threads along z, each on its own row of 1024 floats. GOOD: 32 sectors/req for the load and for the store (one sector per lane).
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens block 1x1x64
// @warplens grid 1024, 1, 16
// @warplens check none

__global__ void k(const float* in, float* out) {
  int x = blockIdx.x;
  int z = blockIdx.z * blockDim.z + threadIdx.z; // 0..1023
  out[z * 1024 + x] = in[z * 1024 + x] + 1.0f;
}
