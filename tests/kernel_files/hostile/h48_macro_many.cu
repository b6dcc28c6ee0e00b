// HOSTILE: one macro line expanding to 1,024 loads (4^5 nested macro expansion), all on one source line. GOOD: one site, 1,024 requests per warp, 4 sectors/req each.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

#define A1(o) acc += in[(i + (o)) & (n - 1)];
#define A4(o) A1(o) A1((o) + 1) A1((o) + 2) A1((o) + 3)
#define A16(o) A4(o) A4((o) + 4) A4((o) + 8) A4((o) + 12)
#define A64(o) A16(o) A16((o) + 16) A16((o) + 32) A16((o) + 48)
#define A256(o) A64(o) A64((o) + 64) A64((o) + 128) A64((o) + 192)
#define A1024(o) A256(o) A256((o) + 256) A256((o) + 512) A256((o) + 768)
__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0;
  A1024(0)
  out[i] = acc;
}
