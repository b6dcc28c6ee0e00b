// HOSTILE: every access sits in the person's own header beside the file (h70_header_helper.cuh, quoted include). GOOD: the accesses shown on the file's call lines (stride-2 load: 8 sectors/req; store 4) or on the header's lines, with a clear note; not silently dropped into 'left out of the table'.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

#include "h70_header_helper.cuh"
__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = load_strided(in, i, n);
  store_it(out, i, v);
}
