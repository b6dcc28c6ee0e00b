// HOSTILE: #pragma unroll over 10,000 loads, 10,000 ld instructions on one line (a big PTX body). GOOD: one site for the line with 10,000 requests per warp, 4 sectors/req (each load coalesced), in a few seconds.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid 16
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0;
#pragma unroll
  for (int j = 0; j < 10000; ++j)
    acc += in[i + j * 64];
  out[i] = acc;
}
