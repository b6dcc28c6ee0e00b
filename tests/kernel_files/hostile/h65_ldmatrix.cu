// HOSTILE: inline asm ldmatrix.sync.aligned.m8n8.x4 from shared (a warp-wide shared read of 8x8 b16 tiles). GOOD: a note on its line (not modelled) or a shared load predicted at 4 wavefronts; the rest predicted.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  __shared__ float s[1024];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int t = threadIdx.x; t < 1024; t += 256) s[t] = in[(blockIdx.x * 1024 + t) & (n - 1)];
  __syncthreads();
  unsigned r0, r1, r2, r3;
  unsigned addr = (unsigned)__cvta_generic_to_shared(&s[(threadIdx.x & 31) * 4]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
  out[i] = __int_as_float(r0 ^ r1 ^ r2 ^ r3);
}
