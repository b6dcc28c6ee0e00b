// HOSTILE: device-side malloc/free (calls into the runtime heap), then stores/loads through the returned pointer. GOOD: note on the malloc line (a call not modelled: its result unknown), accesses through the pointer noted as unknown addresses; global load of in predicted.
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
  float* p = (float*)malloc(4 * sizeof(float));
  if (p) { p[0] = in[i]; p[1] = p[0] * 2.0f; out[i] = p[1]; free(p); }
}
