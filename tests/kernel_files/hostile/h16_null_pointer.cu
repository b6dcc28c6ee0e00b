// HOSTILE: reads through a null pointer built from a scalar argument (z = 0), so NVRTC cannot fold it to a trap. GOOD: the line noted as a fault on address 0; the store to out after it not silently predicted for lanes that faulted.
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
  const float* p = reinterpret_cast<const float*>((unsigned long long)(n >> 30)); // n < 2^30: null
  out[i] = p[i] + in[i];
}
