// HOSTILE: a kernel template with 3 tunables and many values (kernel k<A, B, C>, 6x4x3 combinations), each a stride; model runs the default instance. GOOD: the default instance (A=1, B=1, C=1) predicted: in[i + 1], 5 sectors/req (misaligned by 4 B); no compile of every instance; a few seconds at most.
// @warplens kernel k<A, B, C>
// @warplens size n = 1 << 20
// @warplens tune A = 1, 2, 3, 4, 8, 16
// @warplens tune B = 1, 2, 4, 8
// @warplens tune C = 1, 32, 64
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

template <int Sa, int Sb, int Sc>
__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[(i * Sa * Sb + Sc) & (n - 1)];
}
