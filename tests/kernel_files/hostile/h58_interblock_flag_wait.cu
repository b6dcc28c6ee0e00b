// HOSTILE: blocks other than 0 spin on a volatile global flag that block 0 sets (cross-block wait, a deadlock risk on a GPU too). GOOD: the model stops the waiting block at its budget with a note on the spin line; block 0's store predicted; no hang.
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
  volatile int* flag = reinterpret_cast<volatile int*>(out + n - 1);
  if (blockIdx.x == 0) {
    out[i] = in[i];
    __threadfence();
    if (threadIdx.x == 0) *flag = 12345;
  } else {
    while (*flag != 12345) { }
    out[i] = in[i] + 1.0f;
  }
}
