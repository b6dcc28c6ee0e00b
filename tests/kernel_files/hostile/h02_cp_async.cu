// HOSTILE: inline asm cp.async global->shared, commit, wait, then shared reads. GOOD: the cp.async line noted as not modelled; the shared read tile[(t+1)&255] predicted (1 wavefront/req, no conflicts) though its value is unknown; the global store predicted 4 sectors/req.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned s = (unsigned)__cvta_generic_to_shared(&tile[threadIdx.x]);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(s), "l"(in + i));
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  __syncthreads();
  float v = tile[(threadIdx.x + 1) & 255];
  out[i] = v;
}
