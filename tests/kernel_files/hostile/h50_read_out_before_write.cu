// HOSTILE: reads an out buffer (poisoned) as an int index before writing it: k = out[i]; in[k & mask]. On the GPU, WarpLens poisons out buffers, so the index is the poison's bits. GOOD: either predicted from the poison with a note saying so (all lanes one address: 1 sector/req), or the address noted as unknown; not a silent certain number.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out int[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int k = out[i];
  out[i] = (int)in[k & (n - 1)];
}
