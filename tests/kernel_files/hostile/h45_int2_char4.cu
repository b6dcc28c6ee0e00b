// HOSTILE: int2 (8 B) and char4 (4 B) vector loads/stores. GOOD: int2 line 8 sectors/req, char4 line 4 sectors/req.
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
  if (i < n / 2) {
    int2 a = reinterpret_cast<const int2*>(in)[i];
    char4 c = reinterpret_cast<const char4*>(in)[i];
    reinterpret_cast<int2*>(out)[i] = make_int2(a.x + c.x, a.y + c.w);
  }
}
