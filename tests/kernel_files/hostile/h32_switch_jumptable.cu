// HOSTILE: a dense 16-case switch on threadIdx.x & 15 (NVRTC may emit brx.idx, a jump table), each case a different stride. GOOD: each case's load predicted on its own line, or the jump table noted; no wrong silent zero.
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
  float v;
  switch (threadIdx.x & 15) {
  case 0: v = in[i]; break;           case 1: v = in[(i * 2) & (n - 1)]; break;
  case 2: v = in[(i * 3) & (n - 1)]; break;  case 3: v = in[(i * 5) & (n - 1)]; break;
  case 4: v = in[(i * 7) & (n - 1)]; break;  case 5: v = in[(i * 11) & (n - 1)]; break;
  case 6: v = in[(i * 13) & (n - 1)]; break; case 7: v = in[(i * 17) & (n - 1)]; break;
  case 8: v = in[(i * 19) & (n - 1)]; break; case 9: v = in[(i * 23) & (n - 1)]; break;
  case 10: v = in[(i * 29) & (n - 1)]; break; case 11: v = in[(i * 31) & (n - 1)]; break;
  case 12: v = in[(i * 37) & (n - 1)]; break; case 13: v = in[(i * 41) & (n - 1)]; break;
  case 14: v = in[(i * 43) & (n - 1)]; break; default: v = in[(i * 47) & (n - 1)]; break;
  }
  out[i] = v;
}
