// mirrors: flash_attention/tensor_d128
// compare at: --param seq=64 --param heads=1
// compare at: --param seq=30 --param heads=2
// compare at: --param seq=1 --param heads=1
// Flash attention on tensor cores (3xTF32, mma.sync m16n8k8), head size 128, key tiles of 32: a
// block of four warps takes 64 query rows of one head, each warp 16. The PTX model does not run
// mma.sync (its results are unknown), but no address depends on them: every access is predicted.
// @warplens kernel flash_attention_tensor_d128
// @warplens size seq = 4096
// @warplens size heads = 8
// @warplens restrict block.x == 128 && block.y == 1 && block.z == 1
// @warplens arg q: in float[heads * seq * 128] random(-1, 1)
// @warplens arg k: in float[heads * seq * 128] random(-1, 1)
// @warplens arg v: in float[heads * seq * 128] random(-1, 1)
// @warplens arg o: out float[heads * seq * 128]
// @warplens arg seq: int = seq
// @warplens block 128
// @warplens grid ceil_div(seq, 64), heads
// @warplens shared 4 * (32 * (128 + 4) + 32 * (128 + 8) + 64 * (32 + 4) + 64 * (128 + 4))
// @warplens check none

namespace tc {
constexpr int kWarps = 4, kRowsPerWarp = 16;
constexpr int kThreads = kWarps * 32, kQueriesPerBlock = kWarps * kRowsPerWarp;
__device__ int group(int lane) { return lane / 4; }
__device__ int thread_in_group(int lane) { return lane % 4; }
__device__ int query_row(int block_x, int warp, int row) {
  return block_x * kQueriesPerBlock + warp * kRowsPerWarp + row;
}
__device__ int clamped_row(int row, int seq) { return row < seq ? row : seq - 1; }
__device__ long long element(int head, int row, int col, int seq, int d) {
  return (static_cast<long long>(head) * seq + row) * d + col;
}
__device__ int tile_count(int seq, int keys) { return (seq + keys - 1) / keys; }
__device__ int keys_in(int tile, int seq, int keys) {
  const int left = seq - tile * keys;
  return left < keys ? left : keys;
}
__host__ __device__ constexpr int copies_per_thread(int d, int keys) {
  return keys * d / 4 / kThreads;
}
struct TileFloat4 {
  int key, part;
};
__device__ TileFloat4 copied(int thread, int copy, int d) {
  const int f = thread + copy * kThreads;
  return {f / (d / 4), f % (d / 4)};
}
__device__ int copied_key_row(int tile, int key, int seq, int keys) {
  return clamped_row(tile * keys + key, seq);
}
__device__ int k_word(int key, int col, int d) { return key * (d + 4) + col; }
__device__ int v_word(int key, int col, int d, int keys) {
  return keys * (d + 4) + key * (d + 8) + col;
}
__device__ int p_word(int warp, int row, int key, int d, int keys) {
  return keys * (d + 4) + keys * (d + 8) + (warp * kRowsPerWarp + row) * (keys + 4) + key;
}
__device__ int q_word(int row, int col, int d, int keys) {
  return p_word(kWarps, 0, 0, d, keys) + row * (d + 4) + col;
}
__host__ __device__ constexpr int query_copies_per_thread(int d) {
  return kQueriesPerBlock * d / 4 / kThreads;
}
} // namespace tc

__device__ __forceinline__ unsigned round_to_tf32(unsigned bits) {
  return (bits + 0x1000u) & 0xffffe000u;
}
struct Tf32Halves {
  unsigned big, small;
};
__device__ __forceinline__ Tf32Halves split_tf32(float x) {
  const unsigned big = round_to_tf32(__float_as_uint(x));
  return {big, round_to_tf32(__float_as_uint(x - __uint_as_float(big)))};
}
struct SplitA {
  unsigned big[4], small[4];
};
__device__ __forceinline__ SplitA split_a(float a0, float a1, float a2, float a3) {
  const float a[4] = {a0, a1, a2, a3};
  SplitA s;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const Tf32Halves h = split_tf32(a[i]);
    s.big[i] = h.big, s.small[i] = h.small;
  }
  return s;
}
__device__ __forceinline__ void mma_tf32(float (&c)[4], const unsigned (&a)[4], unsigned b0,
                                         unsigned b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ void mma_3xtf32(float (&c)[4], const SplitA& a, float b0, float b1) {
  const Tf32Halves x = split_tf32(b0), y = split_tf32(b1);
  mma_tf32(c, a.small, x.big, y.big);
  mma_tf32(c, a.big, x.small, y.small);
  mma_tf32(c, a.big, x.big, y.big);
}

template <int D, int Keys>
__device__ __forceinline__ void copy_tiles(float* shared, const float4* k, const float4* v,
                                           int head, int tile, int seq) {
#pragma unroll
  for (int copy = 0; copy < tc::copies_per_thread(D, Keys); ++copy) {
    const tc::TileFloat4 f = tc::copied(threadIdx.x, copy, D);
    const long long from =
        tc::element(head, tc::copied_key_row(tile, f.key, seq, Keys), 4 * f.part, seq, D) / 4;
    float4* key_slot = reinterpret_cast<float4*>(&shared[tc::k_word(f.key, 4 * f.part, D)]);
    float4* value_slot = reinterpret_cast<float4*>(&shared[tc::v_word(f.key, 4 * f.part, D, Keys)]);
    *key_slot = k[from];
    *value_slot = v[from];
  }
}

template <int D, int Keys>
__device__ __forceinline__ void copy_queries(float* shared, const float4* q, int head, int seq,
                                             float scale) {
#pragma unroll
  for (int copy = 0; copy < tc::query_copies_per_thread(D); ++copy) {
    const tc::TileFloat4 f = tc::copied(threadIdx.x, copy, D);
    const int row = tc::clamped_row(tc::query_row(blockIdx.x, 0, f.key), seq);
    const long long from = tc::element(head, row, 4 * f.part, seq, D) / 4;
    float4* slot = reinterpret_cast<float4*>(&shared[tc::q_word(f.key, 4 * f.part, D, Keys)]);
    float4 x = q[from];
    x.x *= scale, x.y *= scale, x.z *= scale, x.w *= scale;
    *slot = x;
  }
}

template <int D, int Keys>
__device__ __forceinline__ void scores(float (&s)[Keys / 8][4], const float* shared, int warp,
                                       int group, int thread) {
#pragma unroll
  for (int n = 0; n < Keys / 8; ++n)
    s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.0f;
#pragma unroll
  for (int step = 0; step < D / 8; ++step) {
    const int row = tc::kRowsPerWarp * warp + group, col = 8 * step + thread;
    const int top = tc::q_word(row, col, D, Keys), bottom = tc::q_word(row + 8, col, D, Keys);
    const float a0 = shared[top], a2 = shared[top + 4];
    const float a1 = shared[bottom], a3 = shared[bottom + 4];
    const SplitA a = split_a(a0, a1, a2, a3);
#pragma unroll
    for (int n = 0; n < Keys / 8; ++n) {
      const int key = 8 * n + group;
      const int w0 = tc::k_word(key, col, D), w1 = tc::k_word(key, col + 4, D);
      const float b0 = shared[w0], b1 = shared[w1];
      mma_3xtf32(s[n], a, b0, b1);
    }
  }
}

template <int D, int Keys>
__device__ __forceinline__ void softmax_tile(float (&s)[Keys / 8][4], float (&out)[D / 8][4],
                                             float (&row_max)[2], float (&row_sum)[2], int keys,
                                             int thread) {
#pragma unroll
  for (int n = 0; n < Keys / 8; ++n)
#pragma unroll
    for (int j = 0; j < 4; ++j)
      if (8 * n + 2 * thread + (j & 1) >= keys)
        s[n][j] = -INFINITY;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    float tile_max = row_max[half];
#pragma unroll
    for (int n = 0; n < Keys / 8; ++n)
      tile_max = fmaxf(tile_max, fmaxf(s[n][2 * half], s[n][2 * half + 1]));
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
    const float correction = exp2f(row_max[half] - tile_max);
    row_sum[half] *= correction;
#pragma unroll
    for (int n = 0; n < D / 8; ++n)
      out[n][2 * half] *= correction, out[n][2 * half + 1] *= correction;
#pragma unroll
    for (int n = 0; n < Keys / 8; ++n)
#pragma unroll
      for (int j = 2 * half; j < 2 * half + 2; ++j) {
        s[n][j] = exp2f(s[n][j] - tile_max);
        row_sum[half] += s[n][j];
      }
    row_max[half] = tile_max;
  }
}

template <int D, int Keys>
__device__ __forceinline__ void weigh_values(float (&out)[D / 8][4], const float (&p)[Keys / 8][4],
                                             float* shared, int warp, int group, int thread) {
#pragma unroll
  for (int n = 0; n < Keys / 8; ++n) {
    const int key = 8 * n + 2 * thread;
    float2* top = reinterpret_cast<float2*>(&shared[tc::p_word(warp, group, key, D, Keys)]);
    float2* bottom = reinterpret_cast<float2*>(&shared[tc::p_word(warp, group + 8, key, D, Keys)]);
    *top = make_float2(p[n][0], p[n][1]);
    *bottom = make_float2(p[n][2], p[n][3]);
  }
  __syncwarp();
#pragma unroll
  for (int step = 0; step < Keys / 8; ++step) {
    const int key = 8 * step + thread;
    const int top = tc::p_word(warp, group, key, D, Keys);
    const int bottom = tc::p_word(warp, group + 8, key, D, Keys);
    const float a0 = shared[top], a2 = shared[top + 4];
    const float a1 = shared[bottom], a3 = shared[bottom + 4];
    const SplitA a = split_a(a0, a1, a2, a3);
#pragma unroll
    for (int n = 0; n < D / 8; ++n) {
      const int col = 8 * n + group;
      const int w0 = tc::v_word(key, col, D, Keys), w1 = tc::v_word(key + 4, col, D, Keys);
      const float b0 = shared[w0], b1 = shared[w1];
      mma_3xtf32(out[n], a, b0, b1);
    }
  }
}

template <int D, int Keys>
__device__ __forceinline__ void attention_on_tensor_cores(const float4* q, const float4* k,
                                                          const float4* v, float* o, int seq) {
  extern __shared__ float4 shared_float4s[];
  float* shared = reinterpret_cast<float*>(shared_float4s);
  const int head = blockIdx.y, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int group = tc::group(lane), thread = tc::thread_in_group(lane);
  const int row = tc::query_row(blockIdx.x, warp, group), row8 = row + 8;
  copy_queries<D, Keys>(shared, q, head, seq, 1.4426950408889634f / sqrtf(static_cast<float>(D)));
  float out[D / 8][4] = {};
  float row_max[2] = {-INFINITY, -INFINITY}, row_sum[2] = {0.0f, 0.0f};
  for (int tile = 0; tile < tc::tile_count(seq, Keys); ++tile) {
    copy_tiles<D, Keys>(shared, k, v, head, tile, seq);
    __syncthreads();
    float s[Keys / 8][4];
    scores<D, Keys>(s, shared, warp, group, thread);
    softmax_tile<D, Keys>(s, out, row_max, row_sum, tc::keys_in(tile, seq, Keys), thread);
    weigh_values<D, Keys>(out, s, shared, warp, group, thread);
    __syncthreads();
  }
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    row_sum[half] += __shfl_xor_sync(0xffffffffu, row_sum[half], 1);
    row_sum[half] += __shfl_xor_sync(0xffffffffu, row_sum[half], 2);
  }
#pragma unroll
  for (int n = 0; n < D / 8; ++n) {
    const int col = 8 * n + 2 * thread;
    const float2 top = make_float2(out[n][0] / row_sum[0], out[n][1] / row_sum[0]);
    const float2 bottom = make_float2(out[n][2] / row_sum[1], out[n][3] / row_sum[1]);
    float2* o_top = reinterpret_cast<float2*>(&o[tc::element(head, row, col, seq, D)]);
    float2* o_bottom = reinterpret_cast<float2*>(&o[tc::element(head, row8, col, seq, D)]);
    if (row < seq)
      *o_top = top;
    if (row8 < seq)
      *o_bottom = bottom;
  }
}

__global__ void __launch_bounds__(128, 2)
    flash_attention_tensor_d128(const float4* q, const float4* k, const float4* v, float* o,
                                int seq) {
  attention_on_tensor_cores<128, 32>(q, k, v, o, seq);
}
