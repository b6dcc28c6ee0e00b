// HOSTILE: slot = atomicAdd(&counter, 1) on a global counter (out[0] as unsigned), then a store at out[1 + slot % (n-1)]: the address depends on atomic order between warps. GOOD: the stores predicted (contiguous slots within a warp, ~4-5 sectors/req) with a note that order between warps is the model's, or noted as order-dependent.
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
  unsigned* counter = reinterpret_cast<unsigned*>(out);
  unsigned slot = atomicAdd(counter, 1u);
  out[1 + slot % (unsigned)(n - 1)] = in[i];
}
