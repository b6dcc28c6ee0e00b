// Exercise: a block sum without bank conflicts. Each block adds its 256 floats in shared memory,
// halving the number of partial sums each round. Round by round, thread t adds the pair that
// starts at word 2 * s * t, so the lanes of a warp read words 2, 4, 8, ... words apart and
// several of them fall on one bank: each shared access waits on a conflict. Change which words
// each thread adds so that no shared access has a conflict; every block's sum must stay right.
//
// @warplens kernel block_sum
// @warplens size n = 1 << 22
// @warplens arg in: in float[n] random(-1, 1)
// @warplens arg out: out float[n / 256]
// @warplens arg n: int = n
// @warplens block 256
// @warplens restrict block.x == 256
// @warplens grid n / 256
// @warplens check block_sum_reference 1e-4

__global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float partial[256];
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  partial[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = 1; s < blockDim.x; s *= 2) {
    const int k = 2 * s * t;
    if (k < blockDim.x)
      partial[k] += partial[k + s];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = partial[0];
}

// One thread per block's sum, a grid-stride loop so any launch shape covers every output.
__global__ void block_sum_reference(const float* in, float* out, int n) {
  const int blocks = n / 256;
  for (int b = blockIdx.x * blockDim.x + threadIdx.x; b < blocks; b += gridDim.x * blockDim.x) {
    float sum = 0.0f;
    for (int j = 0; j < 256; ++j)
      sum += in[b * 256 + j];
    out[b] = sum;
  }
}
