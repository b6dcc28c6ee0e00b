// The solution of divergent.cu: one thread per pair, not per element. Each thread reads its pair
// as one float2 and writes both outputs, so no lane waits for another's side: every access is made
// by all 32 lanes (and the grid is half as large).
//
// @warplens kernel split_pairs
// @warplens size n = 1 << 21
// @warplens arg in: in float[n] random(-1, 1)
// @warplens arg evens: out float[n / 2]
// @warplens arg odds: out float[n / 2]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n / 2, block.x)
// @warplens check split_reference 0

__global__ void split_pairs(const float* in, float* evens, float* odds, int n) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n / 2)
    return;
  const float2 pair = reinterpret_cast<const float2*>(in)[j];
  evens[j] = pair.x * 2.0f;
  odds[j] = pair.y + 1.0f;
}

__global__ void split_reference(const float* in, float* evens, float* odds, int n) {
  for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n / 2; j += gridDim.x * blockDim.x) {
    evens[j] = in[2 * j] * 2.0f;
    odds[j] = in[2 * j + 1] + 1.0f;
  }
}
