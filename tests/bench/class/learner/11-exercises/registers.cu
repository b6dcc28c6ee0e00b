// Exercise: raise occupancy by limiting registers. Each thread keeps 40 running values live at
// once, and the compiler gives it a register for each: at block 256 the registers an SM holds
// limit it to a few blocks. Ask the compiler to fit six blocks of 256 threads on an SM (a launch
// bound), and check what that costs: occupancy at least 75 % at block 256, the outputs right.
//
// @warplens kernel powers
// @warplens size n = 1 << 20
// @warplens arg x: in float[n] random(-1, 1)
// @warplens arg y: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check powers_reference 1e-3

__device__ float sum_of_powers(float v) {
  float p[40];
  p[0] = v;
#pragma unroll
  for (int k = 1; k < 40; ++k)
    p[k] = p[k - 1] * v * 0.99f + 0.01f * p[k / 2];
  float sum = 0;
#pragma unroll
  for (int k = 39; k >= 0; --k)
    sum = sum * 0.5f + p[k] * p[39 - k];
  return sum;
}

__global__ void __launch_bounds__(256, 6) powers(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = sum_of_powers(x[i]);
}

__global__ void powers_reference(const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = sum_of_powers(x[i]);
}
