// y = a * x + y, one thread per element: the smallest kernel file WarpLens opens.
// Open it: warplens examples/saxpy.cu   (or: warplens run examples/saxpy.cu)
//
// @warplens kernel saxpy
// @warplens size n = 1 << 24
// @warplens arg n: int = n
// @warplens arg a: float = 2.5
// @warplens arg x: in float[n] random(-1, 1)
// @warplens arg y: inout float[n] random(-1, 1)
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check saxpy_reference 1e-6
// @warplens flops 2 * n

__global__ void saxpy(int n, float a, const float* x, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

// The reference runs once, with the same arguments and the first measured launch's shape, so it
// strides over the whole range whatever that shape is.
__global__ void saxpy_reference(int n, float a, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}
