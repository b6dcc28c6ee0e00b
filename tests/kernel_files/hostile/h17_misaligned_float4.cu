// HOSTILE: float4 loads from in + 1 (4-byte aligned, not 16): a misaligned address error on a GPU. GOOD: the line noted as misaligned (the GPU faults), not 16 B loads at 4 sectors/req presented as fine.
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
  if (i < n / 4 - 1) {
    float4 v = reinterpret_cast<const float4*>(in + 1)[i];
    out[i] = v.x + v.y + v.z + v.w;
  }
}
