// HOSTILE: a big PTX that still compiles: 8 template instances x a fully unrolled 512-iteration loop (4,096 loads with distinct strides K=1..8). GOOD: model in a few seconds; one site on the load line with 4,096 loads per warp; sectors/req the mean of min(32, 4K)+misalignment over K=1..8.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

template <int K> __device__ __forceinline__ float body(const float* in, int i, int n) {
  float acc = 0;
#pragma unroll
  for (int j = 0; j < 512; ++j) acc += in[(i * K + j * 32) & (n - 1)];
  return acc;
}
template <int K> __device__ __forceinline__ float many(const float* in, int i, int n) {
  return body<K>(in, i, n) + many<K - 1>(in, i, n);
}
template <> __device__ __forceinline__ float many<0>(const float*, int, int) { return 0.0f; }
__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = many<8>(in, i, n);
}
