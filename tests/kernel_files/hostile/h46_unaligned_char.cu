// HOSTILE: byte loads at odd offsets, in_bytes[i * 3 + 1] (1 B per lane, stride 3). GOOD: 1 B accesses spanning 96 bytes per warp: 3-4 sectors/req.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned char* b = reinterpret_cast<const unsigned char*>(in);
  out[i] = (float)b[i * 3 + 1];
}
