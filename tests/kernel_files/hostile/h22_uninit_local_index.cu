// HOSTILE: index from an uninitialised local array slot (a volatile local so NVRTC keeps the stack read). GOOD: the load's address unknown, noted on its line, not counted; the store predicted.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  volatile int loc[8];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  loc[i & 3] = i;                       // only half the slots written
  out[i] = in[loc[(i & 3) + 4] & (n - 1)]; // reads a slot never written
}
