// HOSTILE: a huge PTX: 64 template instances x fully unrolled 2,048-iteration loops with distinct math (hundreds of thousands of PTX lines). GOOD: compile and model in bounded time and memory, or a clear one-line refusal; no crash.
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
  for (int j = 0; j < 2048; ++j) acc += in[(i + j * K) & (n - 1)] * (float)(j ^ K);
  return acc;
}
template <int K> __device__ __forceinline__ float many(const float* in, int i, int n) {
  return body<K>(in, i, n) + many<K - 1>(in, i, n);
}
template <> __device__ __forceinline__ float many<0>(const float*, int, int) { return 0.0f; }
__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = many<64>(in, i, n);
}
