// Differential kernel for memory paths: each thread writes 64 results.
#define OUT(k, v) out[t * 64 + (k)] = (unsigned)(v)
__constant__ unsigned table[16] = {1, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53};
__device__ unsigned init_words[8] = {0xdead, 0xbeef, 0xf00d, 0xcafe, 1, 2, 3, 4};
__device__ const unsigned* where = init_words;

__device__ __forceinline__ unsigned sum_local(const unsigned* p, int n) {
  unsigned s = 0;
  for (int i = 0; i < n; ++i)
    s += p[i] * (i + 1);
  return s;
}

__global__ void diff_mem(const unsigned* in, unsigned* out, int n) {
  __shared__ unsigned short halfs[256];
  __shared__ unsigned char bytes[512];
  __shared__ unsigned words[128];
  int t = blockIdx.x * blockDim.x + threadIdx.x, l = threadIdx.x;
  unsigned a = in[t], b = in[(t * 7 + 3) % n], c = in[(t * 13 + 5) % n];
  unsigned local[24];
  for (int k = 0; k < 24; ++k)
    local[k] = a * k + b;
  OUT(0, local[c % 24]);
  OUT(1, local[(a >> 3) % 24] ^ local[b % 24]);
  halfs[l] = (unsigned short)a;
  bytes[l * 2] = (unsigned char)b;
  bytes[l * 2 + 1] = (unsigned char)c;
  words[l] = a ^ c;
  __syncthreads();
  OUT(2, halfs[(l + 1) % blockDim.x]);
  OUT(3, bytes[(l * 3) % (2 * blockDim.x)]);
  unsigned* p = (a & 1) ? &words[(l + 5) % blockDim.x] : &out[t * 64 + 40];
  *p += 1000;
  __syncthreads();
  OUT(4, *p);
  OUT(5, table[a & 15]);
  OUT(6, init_words[b & 7]);
  OUT(7, where[c & 7]);
  const uchar4* q = (const uchar4*)in;
  uchar4 v = q[(t + 11) % n];
  OUT(8, v.x + v.y * 3 + v.z * 5 + v.w * 7);
  const ushort2* r = (const ushort2*)in;
  ushort2 w = r[(t + 13) % n];
  OUT(9, w.x * 65537u + w.y);
  const uint2* s2 = (const uint2*)in;
  uint2 u2 = s2[(t / 2 + 17) % (n / 2)];
  OUT(10, u2.x - u2.y);
  const int4* s4 = (const int4*)in;
  int4 i4 = __ldg(&s4[(t / 4 + 3) % (n / 4)]);
  OUT(11, i4.x + i4.y * i4.z - i4.w);
  const unsigned long long* d = (const unsigned long long*)in;
  OUT(12, (unsigned)(d[(t / 2 + 5) % (n / 2)] >> 17));
  OUT(13, sum_local(local, (int)(c & 15)));
  signed char sc = (signed char)bytes[(l * 5) % (2 * blockDim.x)];
  OUT(14, (int)sc);
  short ss = (short)halfs[(l * 7) % blockDim.x];
  OUT(15, (int)ss);
  OUT(16, words[(l + 9) % blockDim.x]);
  volatile unsigned* vol = &words[l];
  OUT(17, *vol + 1);
}
