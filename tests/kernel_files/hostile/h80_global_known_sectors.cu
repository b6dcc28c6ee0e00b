// HOSTILE: global float loads with known answers: in[i+1] (misaligned by 4 B: 5 sectors/req), in[2*i] (8 sectors/req), in[32*i] (32 sectors/req), in[0] broadcast (1 sector/req). GOOD: exactly those figures, each on its own line.
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
  float a = in[(i + 1) & (n - 1)];
  float b = in[(2 * i) & (n - 1)];
  float c = in[(32 * i) & (n - 1)];
  float d = in[0];
  out[i] = a + b + c + d;
}
