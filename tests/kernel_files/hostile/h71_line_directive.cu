// HOSTILE: #line directives that lie: an access claimed to be at line 100000 of this file, another claimed to be in 'other.cu'. GOOD: the access at the bogus line either shown at 100000 with a note that the file has no such line, or the #line noted; the other.cu access noted as another file's; no crash.
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
#line 100000
  float v = in[i];
#line 7 "other.cu"
  float w = in[(i * 2) & (n - 1)];
#line 19 "h71_line_directive.cu"
  out[i] = v + w;
}
