// HOSTILE: a kernel that writes its own input: data[i] = data[n-1-i] + data[i] (a reversal race in place, one inout buffer). GOOD: loads and stores 4 sectors/req; the race does not change addresses; no crash.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg data: inout float[n] random(0, 1)
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = data[n - 1 - i];
  data[i] = a + data[i];
}
