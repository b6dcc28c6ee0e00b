// HOSTILE: tex2D<float> on a texture object taken from a kernel argument, the texel's value used to index in. GOOD: the tex line noted; the load in[(int)v & (n-1)] whose address depends on the unknown texel noted as unknown address (not counted); the store out[i] predicted.
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
  cudaTextureObject_t t = (cudaTextureObject_t)n;
  float v = tex2D<float>(t, (float)(i & 63), (float)(i >> 6));
  float w = in[(int)v & (n - 1)];
  out[i] = w;
}
