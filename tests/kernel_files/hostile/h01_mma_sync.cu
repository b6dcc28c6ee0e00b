// HOSTILE: inline asm mma.sync (m16n8k16 f16) between predicted loads and a store. GOOD: the asm line noted as not modelled (its outputs unknown); the four loads a[i], a[i^1].. predicted at 4 sectors/req; the store out[i] (known address, unknown value) predicted 4 sectors/req.
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
  const unsigned* a = reinterpret_cast<const unsigned*>(in);
  unsigned a0 = a[i], a1 = a[i ^ 1], a2 = a[i ^ 2], a3 = a[i ^ 3];
  unsigned b0 = a0, b1 = a1;
  float c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  out[i] = c0 + c1 + c2 + c3;
}
