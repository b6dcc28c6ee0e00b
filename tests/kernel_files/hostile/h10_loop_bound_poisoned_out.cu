// HOSTILE: a loop whose trip count is read from the out buffer before anything writes it (poisoned bytes: as an int 0xffffffff = -1, or NaN bits). GOOD: either the model uses the poison and says so, or notes the value as unknown; whatever it predicts for the loop body must not be presented as certain; no hang.
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
  unsigned count = reinterpret_cast<unsigned*>(out)[i];
  float acc = 0;
  for (unsigned j = 0; j < count; ++j)
    acc += in[(i + j) & (n - 1)];
  out[i] = acc;
}
