// HOSTILE: an endless loop, while(1) doing volatile stores forever (volatile so NVRTC keeps them). GOOD: the model stops the loop at its budget within seconds and notes the loop; the load in[i % n] before the loop predicted with one request per warp (32,768 requests, 4 sectors/req); no hang.
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
  float v = in[i % n];
  volatile float* o = out;
  while (1) {
    o[i % n] = v;
    v += 1.0f;
  }
}
