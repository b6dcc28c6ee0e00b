// HOSTILE: float4 loads and stores, 16 B per lane, aligned. GOOD: 16 B accesses, 16 sectors/req (512 B per warp).
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
  if (i < n / 4) {
    float4 v = reinterpret_cast<const float4*>(in)[i];
    v.x *= 2.0f;
    reinterpret_cast<float4*>(out)[i] = v;
  }
}
