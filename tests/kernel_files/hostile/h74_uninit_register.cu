// HOSTILE: an index held in a register assigned only on some paths (int j; if (in[i] > 0.5f) j = i;), then in[j]: the other lanes read an undefined register. GOOD: the lanes with an undefined index noted as unknown (or NVRTC folds it: then predicted as compiled); no certain number from garbage.
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
  int j;
  if (in[i] > 0.5f) j = (i * 3) & (n - 1);
  out[i] = in[j & (n - 1)];
}
