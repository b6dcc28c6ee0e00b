// HOSTILE: raw control characters (ESC [31m, BEL, a CR) inside an identifier-ish syntax error, so the compiler's first error quotes them. GOOD: exit 2, ONE line naming file:line, with the control characters escaped or dropped (no raw ESC/BEL/CR in the output).
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
  out[i] = in[i] [31m oops;
}
