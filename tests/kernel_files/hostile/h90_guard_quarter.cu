// HOSTILE: the simplest guard over a grid four times too big: if (i < n / 4) out[i] = in[i]; (a quarter of the blocks work, the rest exit). GOOD: 8,192 requests for the load and the store (n/4/32), 4 sectors/req; an estimate within a few percent.
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
  if (i < n / 4)
    out[i] = in[i];
}
