// Exercise: vectorise a copy. Each thread copies four floats, one instruction each. Copy them with
// one 16-byte load and one 16-byte store instead (float4: the buffers are 16-byte aligned and n is
// a multiple of 4), so that every global access moves 16 bytes per lane; keep the outputs right.
//
// @warplens kernel copy_four
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(-1, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x * 4)
// @warplens check copy_reference 0

__global__ void copy_four(const float* in, float* out, int n) {
  const int first = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (first + 3 < n)
    *reinterpret_cast<float4*>(out + first) = *reinterpret_cast<const float4*>(in + first);
}

__global__ void copy_reference(const float* in, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = in[i];
}
