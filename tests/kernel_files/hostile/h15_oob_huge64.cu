// HOSTILE: reads in[(long long)i << 40], 64-bit offsets of terabytes, wrapping the address space. GOOD: a note naming the line as out of the buffer/fault; no crash, no memory blow-up from lazily filled pages.
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
  out[i] = in[(long long)i << 40];
}
