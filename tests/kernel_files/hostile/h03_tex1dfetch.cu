// HOSTILE: tex1Dfetch through a texture object (a 64-bit handle 0). GOOD: the tex line noted as not modelled (a texture fetch has no global sector figure here); the store out[i] and load in[i] still predicted 4 sectors/req.
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
  cudaTextureObject_t t = (cudaTextureObject_t)(n & 0); // a handle the model cannot know
  float v = tex1Dfetch<float>(t, i);
  out[i] = v + in[i];
}
