// Differential kernels: each thread reads three input words and writes 64 results.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#define OUT(k, v) out[t * 64 + (k)] = (unsigned)(v)
#define F(x) __float_as_uint(x)
__device__ unsigned lo(double d) { return (unsigned)__double_as_longlong(d); }
__device__ unsigned hi(double d) { return (unsigned)(__double_as_longlong(d) >> 32); }

__global__ void diff_int(const unsigned* in, unsigned* out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned a = in[t], b = in[(t * 7 + 3) % n], c = in[(t * 13 + 5) % n];
  int sa = (int)a, sb = (int)b;
  unsigned long long A = ((unsigned long long)a << 32) | b, B = ((unsigned long long)c << 32) | a;
  OUT(0, a + b);
  OUT(1, a * b);
  OUT(2, __umulhi(a, b));
  OUT(3, __mulhi(sa, sb));
  OUT(4, a / (b | 1));
  OUT(5, sa / (sb | 1));
  OUT(6, a % (b | 1));
  OUT(7, sa % (sb | 1));
  OUT(8, a << (b & 31));
  OUT(9, sa >> (b & 31));
  OUT(10, a >> (b & 31));
  OUT(11, __brev(a));
  OUT(12, __clz(a));
  OUT(13, __popc(a));
  OUT(14, __byte_perm(a, b, c));
  OUT(15, __funnelshift_l(a, b, c));
  OUT(16, __funnelshift_r(a, b, c));
  OUT(17, __funnelshift_lc(a, b, c));
  OUT(18, __funnelshift_rc(a, b, c));
  OUT(19, __sad(sa, sb, c));
  OUT(20, __usad(a, b, c));
  OUT(21, __umul24(a, b));
  OUT(22, __mul24(sa, sb));
  OUT(23, min(sa, sb));
  OUT(24, max(a, b));
  OUT(25, __ffs(sa));
  OUT(26, __dp4a(a, b, c));
  OUT(27, __dp4a(sa, sb, (int)c));
  unsigned r;
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  OUT(28, r);
  asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b & 0x3f), "r"(c & 0x3f));
  OUT(29, r);
  asm("bfi.b32 %0, %1, %2, %3, %4;"
      : "=r"(r)
      : "r"(a), "r"(b), "r"(c & 0xff), "r"((c >> 8) & 0xff));
  OUT(30, r);
  asm("lop3.b32 %0, %1, %2, %3, 0x6a;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  OUT(31, r);
  asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(a));
  OUT(32, r);
  asm("bfind.s32 %0, %1;" : "=r"(r) : "r"(a));
  OUT(33, r);
  asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  OUT(34, r);
  asm("prmt.b32.b4e %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  OUT(35, r);
  asm("prmt.b32.ecl %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  OUT(36, r);
  asm("prmt.b32.ecr %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  OUT(37, r);
  asm("prmt.b32.rc16 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  OUT(38, r);
  asm("shr.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b & 63));
  OUT(39, r);
  asm("shl.b32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b & 63));
  OUT(40, r);
  asm("add.sat.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  OUT(41, r);
  asm("sub.sat.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  OUT(42, r);
  asm("mul24.hi.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  OUT(43, r);
  asm("mad24.hi.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  OUT(44, r);
  unsigned r0, r1;
  asm("{ add.cc.u32 %0, %2, %3; addc.cc.u32 %1, %4, %5; }"
      : "=r"(r0), "=r"(r1)
      : "r"(a), "r"(b), "r"(c), "r"(a));
  OUT(45, r0);
  OUT(46, r1);
  asm("{ sub.cc.u32 %0, %2, %3; subc.u32 %1, %4, %5; }"
      : "=r"(r0), "=r"(r1)
      : "r"(a), "r"(b), "r"(c), "r"(b));
  OUT(47, r0);
  OUT(48, r1);
  asm("{ mad.lo.cc.u32 %0, %2, %3, %4; madc.hi.u32 %1, %2, %3, %4; }"
      : "=r"(r0), "=r"(r1)
      : "r"(a), "r"(b), "r"(c));
  OUT(49, r0);
  OUT(50, r1);
  OUT(51, (unsigned)(A * B));
  OUT(52, (unsigned)(__umul64hi(A, B) >> 7));
  OUT(53, (unsigned)(A / (B | 1)));
  OUT(54, (unsigned)((long long)A % ((long long)B | 1)));
  OUT(55, (unsigned)((long long)A >> (c & 63)));
  OUT(56, __popcll(A));
  OUT(57, __clzll(B));
  OUT(58, (unsigned)__brevll(A));
  OUT(59, (unsigned)(char)a);
  OUT(60, (unsigned)(short)b);
  OUT(61, (unsigned)(unsigned char)(a >> 3));
  OUT(62, (unsigned)abs(sa));
  asm("cvt.sat.s8.s32 %0, %1;" : "=r"(r) : "r"(a));
  OUT(63, r);
}

__global__ void diff_float(const unsigned* in, unsigned* out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float a = __uint_as_float(in[t]), b = __uint_as_float(in[(t * 7 + 3) % n]),
        c = __uint_as_float(in[(t * 13 + 5) % n]);
  OUT(0, F(a + b));
  OUT(1, F(a * b));
  OUT(2, F(fmaf(a, b, c)));
  OUT(3, F(a / b));
  OUT(4, F(sqrtf(a)));
  OUT(5, F(__fadd_rz(a, b)));
  OUT(6, F(__fadd_rd(a, b)));
  OUT(7, F(__fadd_ru(a, b)));
  OUT(8, F(__fmul_rz(a, b)));
  OUT(9, F(__fmul_rd(a, b)));
  OUT(10, F(__fmaf_ru(a, b, c)));
  OUT(11, F(__fmaf_rz(a, b, c)));
  OUT(12, F(__fdiv_rz(a, b)));
  OUT(13, F(__fdiv_ru(a, b)));
  OUT(14, F(__frcp_rd(a)));
  OUT(15, F(__fsqrt_ru(a)));
  OUT(16, F(fminf(a, b)));
  OUT(17, F(fmaxf(a, b)));
  OUT(18, F(fabsf(a)));
  OUT(19, F(-a));
  OUT(20, F(copysignf(a, b)));
  OUT(21, F(__saturatef(a)));
  OUT(22, F(floorf(a)));
  OUT(23, F(ceilf(a)));
  OUT(24, F(truncf(a)));
  OUT(25, F(rintf(a)));
  OUT(26, (int)a);
  OUT(27, __float2int_rn(a));
  OUT(28, __float2int_rd(a));
  OUT(29, __float2uint_ru(a));
  OUT(30, (unsigned)__float2ll_rn(b));
  OUT(31, (unsigned)(__float2ull_rz(c) >> 20));
  OUT(32, F((float)(int)in[t]));
  OUT(33, F(__int2float_rz((int)in[t])));
  OUT(34, F(__int2float_rd((int)in[t])));
  OUT(35, F(__uint2float_ru(in[t])));
  OUT(36, F(__ll2float_rd((long long)in[t] << 20)));
  OUT(37, F(__ull2float_rz(((unsigned long long)in[t] << 32) | in[(t + 1) % n])));
  OUT(38, lo((double)a));
  OUT(39, hi((double)a));
  OUT(40, isnan(a));
  OUT(41, isinf(b));
  OUT(42, signbit(c));
  OUT(43, F(__fadd_rn(a, b) * 0.5f));
  OUT(44, a < b);
  OUT(45, a <= b);
  OUT(46, !(a > b));
  OUT(47, a != b);
  OUT(48, F(__fsub_rz(a, b)));
  OUT(49, F(__fmul_ru(a, b)));
  OUT(50, F(__fdividef(a, 4.0f)));
  float r;
  asm("add.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  OUT(51, F(r));
  asm("mul.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  OUT(52, F(r));
  asm("fma.rn.ftz.sat.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(a), "f"(b), "f"(c));
  OUT(53, F(r));
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  OUT(54, F(r));
  asm("max.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  OUT(55, F(r));
  asm("cvt.rni.ftz.f32.f32 %0, %1;" : "=f"(r) : "f"(a));
  OUT(56, F(r));
  asm("abs.ftz.f32 %0, %1;" : "=f"(r) : "f"(a));
  OUT(57, F(r));
  asm("div.rn.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  OUT(58, F(r));
  asm("sqrt.rn.ftz.f32 %0, %1;" : "=f"(r) : "f"(a));
  OUT(59, F(r));
  asm("rcp.rn.f32 %0, %1;" : "=f"(r) : "f"(a));
  OUT(60, F(r));
  unsigned q;
  asm("{ .reg .pred p; testp.subnormal.f32 p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(q) : "f"(a));
  OUT(61, q);
  unsigned u;
  asm("set.gtu.u32.f32 %0, %1, %2;" : "=r"(u) : "f"(a), "f"(b));
  OUT(62, u);
  asm("slct.f32.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(a), "f"(b), "f"(c));
  OUT(63, F(r));
}

__global__ void diff_double(const unsigned* in, unsigned* out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = in[t], y = in[(t * 7 + 3) % n], z = in[(t * 13 + 5) % n];
  double a = __hiloint2double(x, y), b = __hiloint2double(y, z), c = __hiloint2double(z, x);
  double r[16] = {a + b,
                  a * b,
                  fma(a, b, c),
                  a / b,
                  sqrt(fabs(a)),
                  __dadd_rz(a, b),
                  __dadd_rd(a, b),
                  __dmul_ru(a, b),
                  __dmul_rz(a, b),
                  __ddiv_rd(a, b),
                  __dsqrt_ru(fabs(b)),
                  fmin(a, b),
                  fmax(a, b),
                  floor(a),
                  rint(b),
                  -c};
  for (int k = 0; k < 16; ++k) {
    OUT(2 * k, lo(r[k]));
    OUT(2 * k + 1, hi(r[k]));
  }
  float f = __uint_as_float(x);
  OUT(32, __double2int_rz(a));
  OUT(33, __double2int_rn(b));
  OUT(34, __double2uint_ru(c));
  OUT(35, (unsigned)__double2ll_rd(a));
  OUT(36, F(__double2float_rn(a)));
  OUT(37, F(__double2float_rz(b)));
  OUT(38, F(__double2float_rd(c)));
  OUT(39, F(__double2float_ru(a)));
  double l = __ll2double_rd(((long long)x << 32) | y);
  OUT(40, lo(l));
  OUT(41, hi(l));
  double u = __ull2double_ru(((unsigned long long)z << 32) | x);
  OUT(42, lo(u));
  OUT(43, hi(u));
  OUT(44, lo((double)f * 3.0));
  OUT(45, a < b);
  OUT(46, isnan(c));
  OUT(47, (unsigned)(long long)(a * 1e-300));
}

__global__ void diff_half(const unsigned* in, unsigned* out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = in[t], y = in[(t * 7 + 3) % n], z = in[(t * 13 + 5) % n];
  __half a = __ushort_as_half((unsigned short)x), b = __ushort_as_half((unsigned short)y),
         c = __ushort_as_half((unsigned short)z);
  __half2 a2 = *(__half2*)&x, b2 = *(__half2*)&y, c2 = *(__half2*)&z;
  float f = __uint_as_float(x), g = __uint_as_float(y);
  OUT(0, __half_as_ushort(__hadd(a, b)));
  OUT(1, __half_as_ushort(__hmul(a, b)));
  OUT(2, __half_as_ushort(__hfma(a, b, c)));
  OUT(3, __half_as_ushort(__hsub(a, b)));
  OUT(4, F(__half2float(a)));
  OUT(5, __half_as_ushort(__float2half_rn(f)));
  OUT(6, __half_as_ushort(__float2half_rz(f)));
  OUT(7, __half_as_ushort(__float2half_rd(g)));
  OUT(8, __half_as_ushort(__float2half_ru(g)));
  __half2 s = __hadd2(a2, b2), m = __hmul2(a2, b2), fm = __hfma2(a2, b2, c2);
  OUT(9, *(unsigned*)&s);
  OUT(10, *(unsigned*)&m);
  OUT(11, *(unsigned*)&fm);
  OUT(12, __half_as_ushort(__hneg(a)));
  OUT(13, __half_as_ushort(__habs(b)));
  OUT(14, __half_as_ushort(__hmin(a, b)));
  OUT(15, __half_as_ushort(__hmax(a, b)));
  __half2 p = __floats2half2_rn(f, g);
  OUT(16, *(unsigned*)&p);
  __nv_bfloat16 ba = __ushort_as_bfloat16((unsigned short)x),
                bb = __ushort_as_bfloat16((unsigned short)y);
  OUT(17, __bfloat16_as_ushort(__float2bfloat16(f)));
  OUT(18, F(__bfloat162float(ba)));
  OUT(19, __bfloat16_as_ushort(__hadd(ba, bb)));
  OUT(20, __bfloat16_as_ushort(__hmul(ba, bb)));
  OUT(21, __bfloat16_as_ushort(__float2bfloat16_rz(g)));
  OUT(22, __half_as_ushort(__double2half(__hiloint2double(x, y))));
  OUT(23, __half2int_rn(a));
  OUT(24, __half_as_ushort(__int2half_rn((int)y)));
  OUT(25, __hlt(a, b));
  OUT(26, __hisnan(c));
}

__global__ void diff_warp(const unsigned* in, unsigned* out, int n) {
  __shared__ unsigned bins[64];
  int t = blockIdx.x * blockDim.x + threadIdx.x, l = threadIdx.x % 32;
  unsigned a = in[t], b = in[(t * 7 + 3) % n];
  if (threadIdx.x < 64)
    bins[threadIdx.x] = threadIdx.x * 3;
  __syncthreads();
  OUT(0, __shfl_sync(~0u, a, b & 31));
  OUT(1, __shfl_up_sync(~0u, a, b & 7, 8));
  OUT(2, __shfl_down_sync(~0u, a, 3, 16));
  OUT(3, __shfl_xor_sync(~0u, a, 5));
  OUT(4, __shfl_sync(~0u, a, b & 15, 16));
  OUT(5, __ballot_sync(~0u, a & 1));
  OUT(6, __any_sync(~0u, (a & 255) == 7));
  OUT(7, __all_sync(~0u, a != 0));
  OUT(8, __match_any_sync(~0u, a & 3));
  int pred;
  OUT(9, __match_all_sync(~0u, l >> 5, &pred));
  OUT(10, pred);
  OUT(11, __reduce_add_sync(~0u, a & 0xffff));
  OUT(12, __reduce_min_sync(~0u, (int)a));
  OUT(13, __reduce_max_sync(~0u, a));
  OUT(14, __reduce_xor_sync(~0u, a));
  if (a & 2) {
    OUT(15, __activemask());
    OUT(16, __ballot_sync(__activemask(), b & 1));
  }
  // one warp a block, and distinct addresses within each atomic: the results do not depend on
  // the order the GPU serves the lanes in
  OUT(17, atomicAdd(&bins[l], a & 0xff));
  OUT(18, atomicMax(&bins[(l + 1) & 31], a >> 20));
  OUT(19, atomicMin((int*)&bins[l + 32], (int)b >> 4));
  OUT(20, atomicInc(&bins[(l + 5) & 31], b & 63));
  OUT(21, atomicDec(&bins[((l + 7) & 31) + 32], a & 31));
  OUT(22, atomicCAS(&bins[l], (a & 1) ? bins[l] : 5u, a));
  OUT(23, atomicExch(&bins[(l + 9) & 31], a));
  OUT(24, atomicAnd(&bins[l + 32], b));
  OUT(25, atomicOr(&bins[(l + 3) & 31], b));
  OUT(26, atomicXor(&bins[l + 32], a));
  OUT(27, __syncthreads_count(a & 4));
  OUT(28, __syncthreads_or((a & 255) == 9));
  OUT(29, __syncthreads_and(b != 0));
  OUT(30, bins[l]);
  OUT(32, bins[l + 32]);
  unsigned s = 0;
  for (int k = 0; k <= (int)(a & 15); ++k)
    s += __shfl_sync(__activemask(), k, l ^ 1) * 0 + k;
  OUT(31, s);
}
