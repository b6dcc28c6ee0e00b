// Exercise: fix a divergent branch. The input interleaves two signals: even elements are one,
// odd elements the other. One thread per element sorts them into two outputs, so in every warp the
// even lanes take one side of the branch and the odd lanes the other: the warp runs both sides one
// after the other, each with half its lanes, and each output is written 16 lanes at a time.
// Change the kernel (and its grid line) so that every lane of a warp takes the same path and every
// global access is made by all 32 lanes; the outputs must stay right.
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
  evens[j] = in[2 * j] * 2.0f;
  odds[j] = in[2 * j + 1] + 1.0f;
}

__global__ void split_reference(const float* in, float* evens, float* odds, int n) {
  for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n / 2; j += gridDim.x * blockDim.x) {
    evens[j] = in[2 * j] * 2.0f;
    odds[j] = in[2 * j + 1] + 1.0f;
  }
}
