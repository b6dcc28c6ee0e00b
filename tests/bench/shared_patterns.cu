// The H200 measurements behind the access model's rule for 16-byte shared loads
// (transactions_of in tool/model/access.h, and the table of SharedAccessModel.* in
// tests/unit/access_test.cpp): one warp reads float4 number f(lane) of a shared array 100 times
// per pattern, one launch per pattern, and Nsight Compute counts the wavefronts:
//   nvcc -arch=sm_90 -O3 tests/bench/shared_patterns.cu -o shared_patterns
//   ncu --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,\
//   smsp__inst_executed_op_shared_ld.sum ./shared_patterns
// Each launch's wavefronts over its 100 instructions is the pattern's cost per LDS.128.
#include <cstdio>

#include <cuda_runtime.h>

namespace {

constexpr int kFloat4s = 256; // the shared array; every pattern stays inside it
constexpr int kReads = 100;

// `stride` is 0 at run time; the compiler cannot know it, so every read stays in the loop.
__global__ void read_pattern(const int* float4_of_lane, float4* out, int stride) {
  __shared__ float4 tile[kFloat4s];
  for (int i = threadIdx.x; i < kFloat4s; i += 32)
    tile[i] = make_float4(i, i, i, i);
  __syncthreads();
  const int mine = float4_of_lane[threadIdx.x];
  float4 sum = make_float4(0, 0, 0, 0);
  for (int r = 0; r < kReads; ++r) {
    const float4 v = tile[(mine + r * stride) % kFloat4s];
    sum = make_float4(sum.x + v.x, sum.y + v.y, sum.z + v.z, sum.w + v.w);
    __syncwarp();
  }
  out[threadIdx.x] = sum;
}

struct Pattern {
  const char* name;
  int (*float4_of_lane)(int);
};

const Pattern kPatterns[] = {
    {"all lanes one float4", [](int) { return 0; }},
    {"consecutive", [](int l) { return l; }},
    {"L/4*2 (matmul warp tile rows)", [](int l) { return l / 4 * 2; }},
    {"L%4 (lanes 4 apart share)", [](int l) { return l % 4; }},
    {"(L/2)%4 (neighbouring pairs share)", [](int l) { return l / 2 % 4; }},
    {"(L%2+2*(L/8))*2", [](int l) { return (l % 2 + 2 * (l / 8)) * 2; }},
    {"L%8", [](int l) { return l % 8; }},
    {"L%2", [](int l) { return l % 2; }},
    {"L/8", [](int l) { return l / 8; }},
    {"L/2", [](int l) { return l / 2; }},
    {"L^1", [](int l) { return l ^ 1; }},
    {"L%16", [](int l) { return l % 16; }},
    {"(L/4)%2", [](int l) { return l / 4 % 2; }},
    {"L%4+4*(L/16)", [](int l) { return l % 4 + 4 * (l / 16); }},
    {"(L/2)%2", [](int l) { return l / 2 % 2; }},
    {"L%4*8 (every lane on banks 0-3)", [](int l) { return l % 4 * 8; }},
    {"(L%8)/4", [](int l) { return l % 8 / 4; }},
    {"L/16", [](int l) { return l / 16; }},
    {"(L%16)/2", [](int l) { return l % 16 / 2; }},
    {"(L/2)%4+4*(L/8)", [](int l) { return l / 2 % 4 + 4 * (l / 8); }},
};

} // namespace

int main() {
  int* float4_of_lane = nullptr;
  float4* out = nullptr;
  cudaMalloc(&float4_of_lane, 32 * sizeof(int));
  cudaMalloc(&out, 32 * sizeof(float4));
  for (const Pattern& p : kPatterns) {
    int lanes[32];
    for (int lane = 0; lane < 32; ++lane)
      lanes[lane] = p.float4_of_lane(lane);
    cudaMemcpy(float4_of_lane, lanes, sizeof lanes, cudaMemcpyHostToDevice);
    read_pattern<<<1, 32>>>(float4_of_lane, out, 0);
    if (cudaDeviceSynchronize() != cudaSuccess) {
      std::fprintf(stderr, "shared_patterns: %s failed\n", p.name);
      return 1;
    }
    std::printf("%s\n", p.name); // in launch order, beside ncu's per-launch figures
  }
  return 0;
}
