// mirrors: reduce_sum/vectorized
// compare at: --param n=65536
// compare at: --param n=5000 --param chunk=2048 --block 96
// compare at: --param n=70004 --param chunk=32768 --block 1024
// compare at: --param n=1000 --param chunk=1024 --block 32
// warp_shuffle's combine after a register loop of float4 loads, unrolled by 8.
// @warplens kernel reduce_sum_vectorized
// @warplens size n = 1 << 24
// @warplens size chunk = 8192
// @warplens restrict block.y == 1 && block.z == 1 && block.x % 32 == 0
// @warplens arg x: in float[n] random(-1, 1)
// @warplens arg partials: out float[ceil_div(n, chunk)]
// @warplens arg n: long = n
// @warplens arg chunk: int = chunk
// @warplens block 256
// @warplens grid ceil_div(n, chunk)
// @warplens check none

__device__ __forceinline__ float warp_sum(float value) {
  for (int offset = 16; offset > 0; offset /= 2)
    value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
}

__device__ float thread_sum_of_packs(const float* x, long long n, int chunk) {
  float sum = 0.0f;
  const int loads = (chunk / 4 + blockDim.x - 1) / blockDim.x;
#pragma unroll 8
  for (int k = 0; k < loads; ++k) {
    const int in_chunk = (k * blockDim.x + threadIdx.x) * 4;
    const long long i = static_cast<long long>(blockIdx.x) * chunk + in_chunk;
    if (in_chunk < chunk && i < n) {
      const float4 v = *reinterpret_cast<const float4*>(&x[i]);
      sum += (v.x + v.y) + (v.z + v.w);
    }
  }
  return sum;
}

__device__ void write_block_sum(float thread_total, float* partials) {
  __shared__ float warp_sums[32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const float sum = warp_sum(thread_total);
  if (lane == 0)
    warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    const float warp_total = lane < (blockDim.x + 31) / 32 ? warp_sums[lane] : 0.0f;
    const float block_sum = warp_sum(warp_total);
    if (lane == 0)
      partials[blockIdx.x] = block_sum;
  }
}

__global__ void reduce_sum_vectorized(const float* x, float* partials, long long n, int chunk) {
  write_block_sum(thread_sum_of_packs(x, n, chunk), partials);
}
