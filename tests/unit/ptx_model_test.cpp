// The PTX model (model/ptx_program.h, model/ptx_machine.h): the PTX NVRTC makes from the
// examples and small kernels, run block by block; the outputs against a CPU computation of the
// same float operations (bit for bit where the GPU's are IEEE), the reported accesses against
// the addresses the source says, and hostile PTX that must stop cleanly with a reason.
// The tests that compile CUDA need NVRTC (WARPLENS_HAS_NVRTC) and skip without it.

#include "base/error.h"
#include "model/access.h"
#include "model/ptx_machine.h"
#include "model/ptx_program.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#ifdef WARPLENS_HAS_NVRTC
#include <nvrtc.h>
#endif

namespace wl {
namespace {

// ---- Helpers

std::filesystem::path repo_root() {
#ifdef WARPLENS_SOURCE_TESTS
  return std::filesystem::path(WARPLENS_SOURCE_TESTS).parent_path();
#else
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path();
#endif
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

constexpr const char* kProgramName = "/dev/null/mine.cu";

struct Compiled {
  std::string ptx;
  std::vector<std::string> lowered; // the mangled names of the name expressions, in order
};

#ifdef WARPLENS_HAS_NVRTC
// The PTX NVRTC makes of `source`, as WarpLens compiles a person's file (-lineinfo, sm_90).
Compiled compile(const std::string& source, std::vector<std::string> options = {},
                 const std::vector<std::string>& names = {}) {
  nvrtcProgram program = nullptr;
  EXPECT_EQ(nvrtcCreateProgram(&program, source.c_str(), kProgramName, 0, nullptr, nullptr),
            NVRTC_SUCCESS);
  for (const char* o : {"--gpu-architecture=compute_90", "-lineinfo", "--std=c++17",
                        "-I/usr/local/cuda/include", "-I/usr/local/cuda/include/cccl"})
    options.emplace_back(o);
  std::vector<const char*> argv;
  for (const std::string& o : options)
    argv.push_back(o.c_str());
  for (const std::string& n : names)
    nvrtcAddNameExpression(program, n.c_str());
  const nvrtcResult result =
      nvrtcCompileProgram(program, static_cast<int>(argv.size()), argv.data());
  std::size_t size = 0;
  nvrtcGetProgramLogSize(program, &size);
  std::string log(size, '\0');
  nvrtcGetProgramLog(program, log.data());
  EXPECT_EQ(result, NVRTC_SUCCESS) << log;
  Compiled out;
  nvrtcGetPTXSize(program, &size);
  out.ptx.assign(size, '\0');
  nvrtcGetPTX(program, out.ptx.data());
  out.ptx.resize(std::strlen(out.ptx.c_str()));
  for (const std::string& n : names) {
    const char* lowered = nullptr;
    nvrtcGetLoweredName(program, n.c_str(), &lowered);
    out.lowered.emplace_back(lowered ? lowered : "");
  }
  nvrtcDestroyProgram(&program);
  return out;
}
#define NEEDS_NVRTC()
#else
Compiled compile(const std::string&, std::vector<std::string> = {},
                 const std::vector<std::string>& = {}) {
  return {};
}
#define NEEDS_NVRTC() GTEST_SKIP() << "built without NVRTC: no PTX from CUDA source"
#endif

template <class T> std::vector<std::byte> bytes_of(const std::vector<T>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}
template <class T> std::vector<T> values_of(const std::vector<std::byte>& bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}
template <class T> std::vector<std::byte> param(T value) {
  std::vector<std::byte> bytes(sizeof(T));
  std::memcpy(bytes.data(), &value, sizeof(T));
  return bytes;
}

std::vector<float> random_floats(std::size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> pick(lo, hi);
  std::vector<float> v(n);
  for (float& f : v)
    f = pick(generator);
  return v;
}

// Buffers at cudaMalloc-like addresses, 1 MiB apart.
constexpr std::uint64_t kBufferBase = 0x7f0000000000ull;
std::uint64_t address_of(int buffer) {
  return kBufferBase + (static_cast<std::uint64_t>(buffer) << 20);
}

struct Recorder {
  std::vector<PtxAccess> all;
  std::function<void(const PtxAccess&)> callback() {
    return [this](const PtxAccess& a) { all.push_back(a); };
  }
  std::vector<PtxAccess> in(PtxSpace space) const {
    std::vector<PtxAccess> out;
    for (const PtxAccess& a : all)
      if (a.space == space)
        out.push_back(a);
    return out;
  }
  std::vector<PtxAccess> at_line(int line) const {
    std::vector<PtxAccess> out;
    for (const PtxAccess& a : all)
      if (a.line == line)
        out.push_back(a);
    return out;
  }
};

std::string stops_of(const PtxBlockRun& run) {
  std::string text;
  for (const PtxStop& s : run.stops)
    text += s.reason + "\n";
  return text;
}

const PtxStop* stop_with(const PtxBlockRun& run, const std::string& part) {
  for (const PtxStop& s : run.stops)
    if (s.reason.find(part) != std::string::npos)
      return &s;
  return nullptr;
}

// Lanes of an access `stride` bytes apart from `first`, over its active lanes.
void expect_strided(const PtxAccess& a, std::uint64_t first, std::uint64_t stride) {
  for (int l = 0; l < kWarpSize; ++l) {
    if (a.lanes.active(l)) {
      EXPECT_EQ(a.lanes.address[static_cast<std::size_t>(l)],
                first + stride * static_cast<std::uint64_t>(l))
          << "lane " << l << " at line " << a.line;
    }
  }
}

// ---- saxpy: values bit for bit, three accesses a warp on the statement's line

TEST(PtxModel, SaxpyComputesBitForBitAndReportsCoalescedAccesses) {
  NEEDS_NVRTC();
  const Compiled c = compile(read_text(repo_root() / "examples/saxpy.cu"));
  const PtxProgram program = parse_ptx(c.ptx);
  EXPECT_EQ(ptx_kernel_names(program),
            (std::vector<std::string>{"_Z5saxpyifPKfPf", "_Z15saxpy_referenceifPKfPf"}));
  const int n = 1000; // the last block has 232 threads in range: warp 7 has 8 of them
  const float a = 2.5f;
  const std::vector<float> x = random_floats(n, -1, 1, 1), y = random_floats(n, -1, 1, 2);
  PtxMachine machine(program, "_Z5saxpyifPKfPf");
  ASSERT_EQ(machine.add_buffer(address_of(0), bytes_of(x)), 0);
  ASSERT_EQ(machine.add_buffer(address_of(1), bytes_of(y)), 1);
  PtxLaunch launch;
  launch.grid = {4, 1, 1};
  launch.block = {256, 1, 1};
  launch.params = {param(n), param(a), param(address_of(0)), param(address_of(1))};
  for (unsigned block : {0u, 3u}) {
    Recorder recorder;
    const PtxBlockRun run = machine.run_block(launch, {block, 0, 0}, {}, recorder.callback());
    EXPECT_TRUE(run.completed) << stops_of(run);
    EXPECT_TRUE(run.stops.empty()) << stops_of(run);
    const std::vector<PtxAccess> global = recorder.in(PtxSpace::global);
    ASSERT_EQ(global.size(), 8u * 3);
    for (std::size_t k = 0; k < global.size(); ++k) {
      const PtxAccess& access = global[k];
      const int warp = static_cast<int>(k / 3);
      EXPECT_EQ(access.warp, warp);
      EXPECT_EQ(access.line, 18);
      EXPECT_EQ(program.file_path(access.file), kProgramName);
      EXPECT_EQ(access.op, k % 3 == 2 ? PtxOp::store : PtxOp::load);
      EXPECT_EQ(access.buffer, k % 3 == 0 ? 0 : 1);
      EXPECT_EQ(access.lanes.width, 4);
      const bool last = block == 3 && warp == 7;
      EXPECT_EQ(access.lanes.active_mask, last ? 0xffu : 0xffffffffu);
      const std::uint64_t first = block * 256 + static_cast<std::uint64_t>(warp) * 32;
      expect_strided(access, address_of(access.buffer) + 4 * first, 4);
      EXPECT_EQ(analyse_global(access.lanes).sectors, last ? 1 : 4);
    }
  }
  const std::vector<float> out = values_of<float>(machine.buffer(1));
  for (int i = 0; i < n; ++i) {
    const bool ran = i < 256 || i >= 768;
    const float expected =
        ran ? std::fma(x[static_cast<std::size_t>(i)], a, y[static_cast<std::size_t>(i)])
            : y[static_cast<std::size_t>(i)];
    EXPECT_EQ(std::bit_cast<std::uint32_t>(out[static_cast<std::size_t>(i)]),
              std::bit_cast<std::uint32_t>(expected))
        << "y[" << i << "]";
  }
}

// ---- transpose through a padded tile: the bank pattern of the tile's column reads

struct TransposeRun {
  std::vector<PtxAccess> shared_stores, shared_loads;
  std::vector<float> out;
};

TransposeRun run_transpose(int pad) {
  const std::string expression = "transpose<32, " + std::to_string(pad) + ">";
  const Compiled c = compile(read_text(repo_root() / "examples/transpose.cu"), {}, {expression});
  const PtxProgram program = parse_ptx(c.ptx);
  const int rows = 64, cols = 64;
  const std::vector<float> in = random_floats(rows * cols, -1, 1, 3);
  PtxMachine machine(program, c.lowered.at(0));
  machine.add_buffer(address_of(0), bytes_of(in));
  machine.add_buffer(address_of(1), std::vector<std::byte>(in.size() * 4));
  PtxLaunch launch;
  launch.grid = {2, 2, 1};
  launch.block = {32, 8, 1};
  launch.params = {param(address_of(0)), param(address_of(1)), param(rows), param(cols)};
  Recorder recorder;
  TransposeRun result;
  for (unsigned by = 0; by < 2; ++by)
    for (unsigned bx = 0; bx < 2; ++bx) {
      Recorder r;
      const PtxBlockRun run = machine.run_block(launch, {bx, by, 0}, {}, r.callback());
      EXPECT_TRUE(run.completed && run.stops.empty()) << stops_of(run);
      if (bx == 1 && by == 0)
        recorder = r;
    }
  for (const PtxAccess& a : recorder.in(PtxSpace::shared))
    (a.op == PtxOp::store ? result.shared_stores : result.shared_loads).push_back(a);
  result.out = values_of<float>(machine.buffer(1));
  for (int r = 0; r < rows; ++r)
    for (int col = 0; col < cols; ++col)
      EXPECT_EQ(result.out[static_cast<std::size_t>(col * rows + r)],
                in[static_cast<std::size_t>(r * cols + col)]);
  return result;
}

TEST(PtxModel, TransposeTileRowsAndColumnsFallOnTheBanksThePaddingSays) {
  NEEDS_NVRTC();
  for (int pad : {0, 1}) {
    const TransposeRun run = run_transpose(pad);
    const std::uint64_t row_bytes = 4 * (32 + static_cast<std::uint64_t>(pad));
    ASSERT_EQ(run.shared_stores.size(), 8u * 4); // 8 warps, 4 rows of the tile each
    ASSERT_EQ(run.shared_loads.size(), 8u * 4);
    for (std::size_t k = 0; k < run.shared_stores.size(); ++k) {
      const PtxAccess& store = run.shared_stores[k];
      const std::uint64_t row = static_cast<std::uint64_t>(store.warp) + 8 * (k % 4);
      EXPECT_EQ(store.line, 28);
      EXPECT_EQ(store.lanes.active_mask, 0xffffffffu);
      expect_strided(store, row * row_bytes, 4);
      EXPECT_EQ(analyse_shared(store.lanes).wavefronts, 1);
    }
    for (std::size_t k = 0; k < run.shared_loads.size(); ++k) {
      const PtxAccess& load = run.shared_loads[k];
      const std::uint64_t column = static_cast<std::uint64_t>(load.warp) + 8 * (k % 4);
      EXPECT_EQ(load.line, 34);
      expect_strided(load, 4 * column, row_bytes); // lanes 128 or 132 bytes apart
      EXPECT_EQ(analyse_shared(load.lanes).wavefronts, pad == 0 ? 32 : 1);
    }
  }
}

// ---- a block reduction: shfl.sync.down, a shared stage, a global atomic

const char* kReduce = R"(
__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}
__global__ void reduce(const float* in, float* out, int n) {
  __shared__ float partial[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  v = warp_sum(v);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : 0.0f;
    v = warp_sum(v);
    if (threadIdx.x == 0) atomicAdd(out, v);
  }
}
)";

// The shuffle tree of warp_sum on the CPU: lane 0's sum, in the GPU's order.
float tree_sum(std::vector<float> v) {
  v.resize(32, 0.0f);
  for (int o = 16; o > 0; o >>= 1)
    for (int l = 0; l < 32; ++l)
      if (l + o < 32)
        v[static_cast<std::size_t>(l)] += v[static_cast<std::size_t>(l + o)];
  return v[0];
}

TEST(PtxModel, ShuffleReductionSumsInTheGpusOrder) {
  NEEDS_NVRTC();
  const PtxProgram program = parse_ptx(compile(kReduce).ptx);
  const int n = 1000;
  const std::vector<float> in = random_floats(n, -1, 1, 4);
  PtxMachine machine(program, "_Z6reducePKfPfi");
  machine.add_buffer(address_of(0), bytes_of(in));
  machine.add_buffer(address_of(1), std::vector<std::byte>(4));
  PtxLaunch launch;
  launch.grid = {4, 1, 1};
  launch.block = {256, 1, 1};
  launch.params = {param(address_of(0)), param(address_of(1)), param(n)};
  float total = 0;
  for (unsigned b = 0; b < 4; ++b) {
    Recorder r;
    const PtxBlockRun run = machine.run_block(launch, {b, 0, 0}, {}, r.callback());
    EXPECT_TRUE(run.completed && run.stops.empty()) << stops_of(run);
    std::vector<float> partial;
    for (int w = 0; w < 8; ++w) {
      std::vector<float> lanes;
      for (int l = 0; l < 32; ++l) {
        const int i = static_cast<int>(b) * 256 + w * 32 + l;
        lanes.push_back(i < n ? in[static_cast<std::size_t>(i)] : 0.0f);
      }
      partial.push_back(tree_sum(lanes));
    }
    total += tree_sum(partial);
    const std::vector<PtxAccess> shared = r.in(PtxSpace::shared);
    ASSERT_EQ(shared.size(), 9u); // 8 one-lane stores, one 8-lane load
    for (int w = 0; w < 8; ++w) {
      EXPECT_EQ(shared[static_cast<std::size_t>(w)].lanes.active_mask, 1u);
      EXPECT_EQ(shared[static_cast<std::size_t>(w)].lanes.address[0],
                4u * static_cast<unsigned>(w));
    }
    EXPECT_EQ(shared[8].lanes.active_mask, 0xffu);
    const std::vector<PtxAccess> global = r.in(PtxSpace::global);
    ASSERT_EQ(global.back().op, PtxOp::atomic);
    EXPECT_EQ(global.back().lanes.active_mask, 1u);
  }
  EXPECT_EQ(values_of<float>(machine.buffer(1))[0], total);
}

// ---- softmax-like: expf (ex2.approx) and block reductions

const char* kSoftmax = R"(
__device__ float block_reduce(float v, float* scratch, bool is_max) {
  for (int o = 16; o > 0; o >>= 1) {
    float other = __shfl_xor_sync(0xffffffffu, v, o);
    v = is_max ? fmaxf(v, other) : v + other;
  }
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();
  v = scratch[0];
  for (int w = 1; w < blockDim.x / 32; ++w) v = is_max ? fmaxf(v, scratch[w]) : v + scratch[w];
  __syncthreads();
  return v;
}
__global__ void softmax_rows(const float* x, float* y, int cols) {
  __shared__ float scratch[32];
  const float* row = x + (long long)blockIdx.x * cols;
  float* out = y + (long long)blockIdx.x * cols;
  float m = __int_as_float(0xff800000);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
  m = block_reduce(m, scratch, true);
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(row[c] - m);
  s = block_reduce(s, scratch, false);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = expf(row[c] - m) / s;
}
)";

TEST(PtxModel, SoftmaxRowsMatchTheCpuAndReadRowsCoalesced) {
  NEEDS_NVRTC();
  const PtxProgram program = parse_ptx(compile(kSoftmax).ptx);
  const int rows = 3, cols = 300;
  const std::vector<float> x = random_floats(rows * cols, -4, 4, 5);
  PtxMachine machine(program, "_Z12softmax_rowsPKfPfi");
  machine.add_buffer(address_of(0), bytes_of(x));
  machine.add_buffer(address_of(1), std::vector<std::byte>(x.size() * 4));
  PtxLaunch launch;
  launch.grid = {rows, 1, 1};
  launch.block = {128, 1, 1};
  launch.params = {param(address_of(0)), param(address_of(1)), param(cols)};
  Recorder r;
  for (unsigned b = 0; b < rows; ++b) {
    const PtxBlockRun run = machine.run_block(launch, {b, 0, 0}, {}, r.callback());
    EXPECT_TRUE(run.completed && run.stops.empty()) << stops_of(run);
  }
  const std::vector<float> y = values_of<float>(machine.buffer(1));
  for (int row = 0; row < rows; ++row) {
    double m = -INFINITY, s = 0;
    for (int c = 0; c < cols; ++c)
      m = std::max<double>(m, x[static_cast<std::size_t>(row * cols + c)]);
    for (int c = 0; c < cols; ++c)
      s += std::exp(x[static_cast<std::size_t>(row * cols + c)] - m);
    for (int c = 0; c < cols; ++c) {
      const double expected = std::exp(x[static_cast<std::size_t>(row * cols + c)] - m) / s;
      EXPECT_NEAR(y[static_cast<std::size_t>(row * cols + c)], expected, 1e-6 + 1e-5 * expected);
    }
  }
  // Every global load of a row: consecutive floats from the row's column c0 + 32 * warp.
  for (const PtxAccess& a : r.in(PtxSpace::global)) {
    ASSERT_EQ(a.lanes.width, 4);
    const int first = std::countr_zero(a.lanes.active_mask);
    const std::uint64_t base =
        a.lanes.address[static_cast<std::size_t>(first)] - 4 * static_cast<std::uint64_t>(first);
    expect_strided(a, base, 4);
    EXPECT_LE(analyse_global(a.lanes).sectors,
              5); // rows start anywhere: 32 floats span 5 sectors at most
  }
}

// ---- stencil with a halo: guarded loads, dynamic shared memory

TEST(PtxModel, StencilHaloLoadsStayInsideAndTheTileComputesBitForBit) {
  NEEDS_NVRTC();
  const PtxProgram program =
      parse_ptx(compile(read_text(repo_root() / "examples/stencil_2d.cu")).ptx);
  const int nx = 64, ny = 32;
  const std::vector<float> in = random_floats(nx * ny, 0, 1, 6);
  PtxMachine machine(program, "_Z10stencil_2dPKfPfii");
  machine.add_buffer(address_of(0), bytes_of(in));
  machine.add_buffer(address_of(1), std::vector<std::byte>(in.size() * 4));
  PtxLaunch launch;
  launch.block = {32, 8, 1};
  launch.grid = {2, 4, 1};
  launch.dynamic_shared_bytes = (32 + 2) * (8 + 2) * 4;
  launch.params = {param(address_of(0)), param(address_of(1)), param(nx), param(ny)};
  for (unsigned by = 0; by < 4; ++by)
    for (unsigned bx = 0; bx < 2; ++bx) {
      Recorder r;
      const PtxBlockRun run = machine.run_block(launch, {bx, by, 0}, {}, r.callback());
      EXPECT_TRUE(run.completed && run.stops.empty()) << stops_of(run);
      for (const PtxAccess& a : r.in(PtxSpace::shared)) {
        for (int l = 0; l < kWarpSize; ++l) {
          if (a.lanes.active(l)) {
            EXPECT_LT(a.lanes.address[static_cast<std::size_t>(l)], launch.dynamic_shared_bytes);
          }
        }
      }
      if (bx == 0 &&
          by == 0) { // the corner block: the halo loads left of and above the grid are guarded off
        const std::vector<PtxAccess> halo = r.at_line(22);
        ASSERT_FALSE(halo.empty());
        EXPECT_NE(halo[0].lanes.active_mask, 0xffffffffu);
      }
    }
  const auto at = [&](int x, int y) {
    return x >= 0 && x < nx && y >= 0 && y < ny ? in[static_cast<std::size_t>(y * nx + x)] : 0.0f;
  };
  const std::vector<float> out = values_of<float>(machine.buffer(1));
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) {
      const float neighbours = ((at(x - 1, y) + at(x + 1, y)) + at(x, y - 1)) + at(x, y + 1);
      const float expected = std::fma(at(x, y), 0.5f, neighbours * 0.125f);
      ASSERT_EQ(out[static_cast<std::size_t>(y * nx + x)], expected) << x << ", " << y;
    }
}

// ---- histogram: shared atomics on bins computed from the data

TEST(PtxModel, HistogramSharedAtomicsLandOnTheBinsOfTheData) {
  NEEDS_NVRTC();
  const PtxProgram program =
      parse_ptx(compile(read_text(repo_root() / "examples/histogram.cu")).ptx);
  const int n = 4096;
  std::mt19937 generator(7);
  std::vector<unsigned> data(n);
  for (unsigned& d : data)
    d = generator() % 256;
  PtxMachine machine(program, "_Z9histogramPKjPji");
  machine.add_buffer(address_of(0), bytes_of(data));
  machine.add_buffer(address_of(1), std::vector<std::byte>(256 * 4));
  PtxLaunch launch;
  launch.grid = {16, 1, 1};
  launch.block = {256, 1, 1};
  launch.params = {param(address_of(0)), param(address_of(1)), param(n)};
  for (unsigned b = 0; b < 16; ++b) {
    Recorder r;
    const PtxBlockRun run = machine.run_block(launch, {b, 0, 0}, {}, r.callback());
    EXPECT_TRUE(run.completed && run.stops.empty()) << stops_of(run);
    const std::vector<PtxAccess> bins = r.at_line(23);
    std::vector<PtxAccess> atomics;
    for (const PtxAccess& a : bins)
      if (a.op == PtxOp::atomic)
        atomics.push_back(a);
    ASSERT_EQ(atomics.size(), 8u);
    for (const PtxAccess& a : atomics) {
      EXPECT_EQ(a.space, PtxSpace::shared);
      for (int l = 0; l < kWarpSize; ++l) {
        const std::size_t i =
            b * 256 + static_cast<std::size_t>(a.warp) * 32 + static_cast<std::size_t>(l);
        EXPECT_EQ(a.lanes.address[static_cast<std::size_t>(l)], 4u * data[i]);
      }
    }
  }
  std::vector<unsigned> expected(256, 0);
  for (unsigned d : data)
    ++expected[d];
  EXPECT_EQ(values_of<unsigned>(machine.buffer(1)), expected);
}

// ---- shared atomics the pipe cannot combine

// An exchange and a compare-and-swap of one shared word by every lane are served one lane at a
// time (32 and 64 wavefronts on the H200); an add of it is combined (1).
TEST(PtxModel, ASharedExchangeOrCompareAndSwapIsMarkedOneLaneAtATime) {
  NEEDS_NVRTC();
  const PtxProgram program = parse_ptx(compile(R"(
__global__ void k(int* out) {
  __shared__ int word;
  atomicAdd(&word, 1);
  atomicExch(&word, 2);
  atomicCAS(&word, 0, 3);
  out[threadIdx.x] = word;
})")
                                           .ptx);
  PtxMachine machine(program, "_Z1kPi");
  machine.add_buffer(address_of(0), std::vector<std::byte>(32 * 4));
  PtxLaunch launch;
  launch.grid = {1, 1, 1};
  launch.block = {32, 1, 1};
  launch.params = {param(address_of(0))};
  Recorder r;
  machine.run_block(launch, {0, 0, 0}, {}, r.callback());
  const int passes[] = {0, 1, 2}; // add, exch, cas on lines 4, 5, 6
  for (int line = 4; line <= 6; ++line) {
    SCOPED_TRACE(line);
    const std::vector<PtxAccess> at = r.at_line(line);
    ASSERT_EQ(at.size(), 1u);
    EXPECT_EQ(at[0].op, PtxOp::atomic);
    EXPECT_EQ(at[0].lanes.lane_passes, passes[line - 4]);
    EXPECT_EQ(analyse_shared(at[0].lanes).wavefronts, line == 4 ? 1 : 32 * passes[line - 4]);
  }
}

// ---- vector loads

TEST(PtxModel, Float4CopyAccessesSixteenBytesALane) {
  NEEDS_NVRTC();
  const PtxProgram program = parse_ptx(compile(R"(
__global__ void copy4(const float4* in, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
})")
                                           .ptx);
  const int n = 64;
  const std::vector<float> in = random_floats(4 * n, -1, 1, 8);
  PtxMachine machine(program, "_Z5copy4PK6float4PS_i");
  machine.add_buffer(address_of(0), bytes_of(in));
  machine.add_buffer(address_of(1), std::vector<std::byte>(in.size() * 4));
  PtxLaunch launch;
  launch.block = {64, 1, 1};
  launch.params = {param(address_of(0)), param(address_of(1)), param(n)};
  Recorder r;
  const PtxBlockRun run = machine.run_block(launch, {0, 0, 0}, {}, r.callback());
  EXPECT_TRUE(run.completed && run.stops.empty()) << stops_of(run);
  const std::vector<PtxAccess> global = r.in(PtxSpace::global);
  ASSERT_EQ(global.size(), 4u);
  for (const PtxAccess& a : global) {
    EXPECT_EQ(a.lanes.width, 16);
    expect_strided(a, address_of(a.buffer) + 512 * static_cast<std::uint64_t>(a.warp), 16);
    EXPECT_EQ(analyse_global(a.lanes).sectors, 16);
  }
  EXPECT_EQ(values_of<float>(machine.buffer(1)), in);
}

// ---- divergence and reconvergence

TEST(PtxModel, IfElseGivesComplementaryMasksAndLoopsReconverge) {
  NEEDS_NVRTC();
  const PtxProgram program = parse_ptx(compile(R"(
__global__ void parity(float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (threadIdx.x % 2) a[i] = 1.0f;
  else b[i] = 2.0f;
}
__global__ void triangle(const int* in, int* out) {
  int t = threadIdx.x, s = 0;
#pragma unroll 1
  for (int k = 0; k <= t % 32; ++k) s += in[k];
  out[t] = s;
})")
                                           .ptx);
  {
    PtxMachine machine(program, "_Z6parityPfS_i");
    machine.add_buffer(address_of(0), std::vector<std::byte>(64 * 4));
    machine.add_buffer(address_of(1), std::vector<std::byte>(64 * 4));
    PtxLaunch launch;
    launch.block = {64, 1, 1};
    launch.params = {param(address_of(0)), param(address_of(1)), param(64)};
    Recorder r;
    const PtxBlockRun run = machine.run_block(launch, {0, 0, 0}, {}, r.callback());
    EXPECT_TRUE(run.completed && run.stops.empty()) << stops_of(run);
    const std::vector<PtxAccess> stores = r.in(PtxSpace::global);
    ASSERT_EQ(stores.size(), 4u);
    for (const PtxAccess& s : stores)
      EXPECT_EQ(s.lanes.active_mask, s.buffer == 0 ? 0xaaaaaaaau : 0x55555555u);
  }
  PtxMachine machine(program, "_Z8trianglePKiPi");
  std::vector<int> in(32);
  for (int k = 0; k < 32; ++k)
    in[static_cast<std::size_t>(k)] = k * k + 1;
  machine.add_buffer(address_of(0), bytes_of(in));
  machine.add_buffer(address_of(1), std::vector<std::byte>(64 * 4));
  PtxLaunch launch;
  launch.block = {64, 1, 1};
  launch.params = {param(address_of(0)), param(address_of(1))};
  Recorder r;
  const PtxBlockRun run = machine.run_block(launch, {0, 0, 0}, {}, r.callback());
  EXPECT_TRUE(run.completed && run.stops.empty()) << stops_of(run);
  for (int w = 0; w < 2; ++w) {
    std::vector<PtxAccess> loads, stores;
    for (const PtxAccess& a : r.in(PtxSpace::global))
      if (a.warp == w)
        (a.op == PtxOp::load ? loads : stores).push_back(a);
    ASSERT_EQ(loads.size(), 32u); // iteration k runs in lanes k to 31
    for (std::size_t k = 0; k < loads.size(); ++k) {
      EXPECT_EQ(loads[k].lanes.active_mask, 0xffffffffu << k);
      EXPECT_EQ(loads[k].lanes.address[31], address_of(0) + 4 * k);
    }
    ASSERT_EQ(stores.size(), 1u); // after the loop, the warp is whole again
    EXPECT_EQ(stores[0].lanes.active_mask, 0xffffffffu);
  }
  const std::vector<int> out = values_of<int>(machine.buffer(1));
  for (int t = 0; t < 64; ++t) {
    int s = 0;
    for (int k = 0; k <= t % 32; ++k)
      s += in[static_cast<std::size_t>(k)];
    EXPECT_EQ(out[static_cast<std::size_t>(t)], s);
  }
}

// ---- hostile kernels: each stops with a reason naming its line

// A kernel of hand-written PTX around `body`, with params a (u64) and b (u64).
std::string hand_kernel(const std::string& body, const std::string& regs = "") {
  return ".version 9.0\n.target sm_90\n.address_size 64\n"
         ".visible .entry k(.param .u64 a, .param .u64 b)\n{\n"
         ".reg .pred %p<8>;\n.reg .b32 %r<32>;\n.reg .b64 %rd<32>;\n.reg .f32 %f<16>;\n" +
         regs + body + "\n}\n.file 1 \"/dev/null/hand.cu\"\n";
}

PtxBlockRun run_hand(const std::string& ptx, Recorder& r,
                     std::vector<std::byte> a = std::vector<std::byte>(1024), PtxBudget budget = {},
                     unsigned threads = 32) {
  const PtxProgram program = parse_ptx(ptx);
  PtxMachine machine(program, "k");
  machine.add_buffer(address_of(0), std::move(a));
  machine.add_buffer(address_of(1), std::vector<std::byte>(1024));
  PtxLaunch launch;
  launch.block = {threads, 1, 1};
  launch.params = {param(address_of(0)), param(address_of(1))};
  return machine.run_block(launch, {0, 0, 0}, budget, r.callback());
}

TEST(PtxModel, UnsupportedInstructionTaintsOnlyWhatDependsOnIt) {
  const std::string ptx = hand_kernel(R"(
  .loc 1 10 1
  ld.param.u64 %rd1, [a];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  .loc 1 40 1
  mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r2, %r3}, {%r4}, {%f5, %f6, %f7, %f8};
  .loc 1 41 1
  cvt.rzi.s32.f32 %r5, %f1;
  mul.wide.s32 %rd4, %r5, 4;
  add.s64 %rd5, %rd1, %rd4;
  .loc 1 42 1
  st.global.f32 [%rd5], %f2;
  .loc 1 43 1
  st.global.f32 [%rd3], %f3;
  .loc 1 44 1
  ld.global.u32 %r6, [%rd3];
  ret;)");
  Recorder r;
  const PtxBlockRun run = run_hand(ptx, r);
  const PtxStop* unsupported = stop_with(run, "mma.sync");
  ASSERT_NE(unsupported, nullptr) << stops_of(run);
  EXPECT_EQ(unsupported->line, 40);
  EXPECT_EQ(unsupported->reason.rfind("line 40: mma.sync is not modelled", 0), 0u)
      << unsupported->reason;
  const PtxStop* dependent = stop_with(run, "the address depends on mma.sync at line 40");
  ASSERT_NE(dependent, nullptr) << stops_of(run);
  EXPECT_EQ(dependent->line, 42);
  EXPECT_TRUE(r.at_line(42).empty());
  ASSERT_EQ(r.at_line(43).size(), 1u); // an unknown value stored at a known address: shown
  expect_strided(r.at_line(43)[0], address_of(0), 4);
  ASSERT_EQ(r.at_line(44).size(), 1u);
}

TEST(PtxModel, AnInfiniteLoopStopsAtTheBudgetNamingTheLoop) {
  NEEDS_NVRTC();
  const Compiled c = compile(R"(
__global__ void spin(int* flag) {
  while (*(volatile int*)flag == 0) {
  }
})");
  const PtxProgram program = parse_ptx(c.ptx);
  PtxMachine machine(program, "_Z4spinPi");
  machine.add_buffer(address_of(0), std::vector<std::byte>(4));
  PtxLaunch launch;
  launch.block = {64, 1, 1};
  launch.params = {param(address_of(0))};
  Recorder r;
  PtxBudget budget;
  budget.max_warp_instructions_per_block = 10000;
  const auto start = std::chrono::steady_clock::now();
  const PtxBlockRun run = machine.run_block(launch, {0, 0, 0}, budget, r.callback());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_FALSE(run.completed);
  EXPECT_EQ(run.warp_instructions, 10000);
  const PtxStop* stop = stop_with(run, "budget");
  ASSERT_NE(stop, nullptr) << stops_of(run);
  EXPECT_EQ(stop->line, 3);
  EXPECT_TRUE(stop->stopping);
}

TEST(PtxModel, AnIndexOutOfBoundsStopsTheWarpNamingLineAndLane) {
  NEEDS_NVRTC();
  const PtxProgram program = parse_ptx(compile(R"(
__global__ void past(float* out, int n) {
  int i = threadIdx.x;
  out[i * 8] = 1.0f;
})")
                                           .ptx);
  PtxMachine machine(program, "_Z4pastPfi");
  machine.add_buffer(address_of(0), std::vector<std::byte>(100 * 4)); // lanes 13 on are past it
  PtxLaunch launch;
  launch.block = {64, 1, 1};
  launch.params = {param(address_of(0)), param(100)};
  Recorder r;
  const PtxBlockRun run = machine.run_block(launch, {0, 0, 0}, {}, r.callback());
  EXPECT_FALSE(run.completed);
  const PtxStop* fault = stop_with(run, "outside every buffer");
  ASSERT_NE(fault, nullptr) << stops_of(run);
  EXPECT_EQ(fault->line, 4);
  EXPECT_EQ(fault->warp, 0);
  EXPECT_EQ(fault->lane, 13);
  EXPECT_NE(fault->reason.find("line 4, warp 0, lane 13"), std::string::npos) << fault->reason;
  EXPECT_NE(fault->reason.find("the kernel would fault"), std::string::npos);
  EXPECT_TRUE(r.in(PtxSpace::global).empty());
}

TEST(PtxModel, DivisionByZeroStopsNamingTheLane) {
  NEEDS_NVRTC();
  const PtxProgram program = parse_ptx(compile(R"(
__global__ void divide(const int* in, int* out) {
  int i = threadIdx.x;
  out[i] = 1000 / in[i];
})")
                                           .ptx);
  std::vector<int> in(32, 3);
  in[5] = 0;
  PtxMachine machine(program, "_Z6dividePKiPi");
  machine.add_buffer(address_of(0), bytes_of(in));
  machine.add_buffer(address_of(1), std::vector<std::byte>(32 * 4));
  PtxLaunch launch;
  launch.block = {32, 1, 1};
  launch.params = {param(address_of(0)), param(address_of(1))};
  Recorder r;
  const PtxBlockRun run = machine.run_block(launch, {0, 0, 0}, {}, r.callback());
  const PtxStop* stop = stop_with(run, "division by zero");
  ASSERT_NE(stop, nullptr) << stops_of(run);
  EXPECT_EQ(stop->line, 4);
  EXPECT_EQ(stop->lane, 5);
}

TEST(PtxModel, ABranchOnAnUninitialisedRegisterStopsTheWarp) {
  const std::string ptx = hand_kernel(R"(
  .loc 1 7 1
  setp.eq.s32 %p1, %r9, 0;
  @%p1 bra $L_skip;
  .loc 1 8 1
  ld.param.u64 %rd1, [a];
  st.global.u32 [%rd1], 1;
$L_skip:
  ret;)");
  Recorder r;
  const PtxBlockRun run = run_hand(ptx, r);
  EXPECT_FALSE(run.completed);
  const PtxStop* stop = stop_with(run, "register %r9, which is read before it is set");
  ASSERT_NE(stop, nullptr) << stops_of(run);
  EXPECT_EQ(stop->line, 7);
  EXPECT_TRUE(r.in(PtxSpace::global).empty());
}

TEST(PtxModel, ABarrierInDivergentCodeIsReportedAndTheBlockCompletes) {
  NEEDS_NVRTC();
  // CUDA leaves it undefined (the GPU may hang); the model lets the lanes that skip it run to
  // their exit, releases the barrier once every thread waits or has exited, and says so.
  const PtxProgram program = parse_ptx(compile(R"(
__global__ void half_barrier(int* out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  if (threadIdx.x < 16)
    __syncthreads();
  out[threadIdx.x] = s[63 - threadIdx.x];
})")
                                           .ptx);
  PtxMachine machine(program, "_Z12half_barrierPi");
  machine.add_buffer(address_of(0), std::vector<std::byte>(64 * 4));
  PtxLaunch launch;
  launch.block = {64, 1, 1};
  launch.params = {param(address_of(0))};
  Recorder r;
  const PtxBlockRun run = machine.run_block(launch, {0, 0, 0}, {}, r.callback());
  EXPECT_TRUE(run.completed) << stops_of(run);
  const PtxStop* stop = stop_with(run, "divergent code undefined");
  ASSERT_NE(stop, nullptr) << stops_of(run);
  EXPECT_EQ(stop->line, 6);
  EXPECT_FALSE(stop->stopping);
}

TEST(PtxModel, HostileTextIsRefusedOrParsedQuickly) {
  const auto parses_or_refuses = [](const std::string& text) {
    const auto start = std::chrono::steady_clock::now();
    try {
      parse_ptx(text);
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  };
  parses_or_refuses(std::string(100000, '{'));
  parses_or_refuses(".visible .entry k()\n" + std::string(100000, '{') + std::string(100000, '}'));
  parses_or_refuses(".global .b8 x[4] = " + std::string(100000, '{') + "1" +
                    std::string(100000, '}') + ";");
  std::string garbage(4096, '\0');
  std::mt19937 generator(9);
  for (char& c : garbage)
    c = static_cast<char>(generator());
  parses_or_refuses(garbage);
  parses_or_refuses(hand_kernel("add.s32 %r1, %r2, " + std::string(1 << 20, '7') + ";"));
  parses_or_refuses(hand_kernel(std::string(1 << 20, 'x')));
  parses_or_refuses(hand_kernel("mov.u32 %r1, " + std::string(1 << 20, '-') + "1;"));
  EXPECT_THROW(parse_ptx("this is not ptx"), UsageError);
  EXPECT_THROW(parse_ptx(hand_kernel("bra $L_nowhere;")), UsageError);
  EXPECT_THROW(parse_ptx(hand_kernel("add.s32 %r1, %undeclared, 1;")), UsageError);
  EXPECT_THROW(parse_ptx(hand_kernel("add.s32 %r1, %r2, 1")), UsageError);
  // an instruction the model does not know is kept, not refused
  const PtxProgram unknown = parse_ptx(hand_kernel("frobnicate.sync.b32 %r1, %r2;"));
  EXPECT_EQ(unknown.functions.at(0).instructions.at(0).opcode, PtxOpcode::unsupported);
}

// ---- scopes: a block's registers hide only the outer ones of the same names

TEST(PtxModel, NestedBlocksHideOnlyTheRegistersTheyDeclare) {
  const std::string ptx = hand_kernel(R"(
  ld.param.u64 %rd1, [b];
  mov.u32 %r5, 55;
  mov.u32 %r1, 11;
  {
    .reg .b32 %r<3>;
    .reg .pred p;
    mov.u32 %r1, 99;
    add.u32 %r5, %r5, %r1;
    setp.eq.u32 p, %r5, 154;
    @p bra $L_done;
    st.global.u32 [%rd1+8], 1;
  $L_done:
  }
  st.global.u32 [%rd1], %r5;
  st.global.u32 [%rd1+4], %r1;
  ret;)");
  const PtxProgram program = parse_ptx(ptx);
  PtxMachine machine(program, "k");
  machine.add_buffer(address_of(0), std::vector<std::byte>(16));
  machine.add_buffer(address_of(1), std::vector<std::byte>(16));
  PtxLaunch launch;
  launch.params = {param(address_of(0)), param(address_of(1))};
  const PtxBlockRun run = machine.run_block(launch, {0, 0, 0}, {}, nullptr);
  EXPECT_TRUE(run.completed && run.stops.empty()) << stops_of(run);
  const std::vector<std::uint32_t> out = values_of<std::uint32_t>(machine.buffer(1));
  EXPECT_EQ(out[0], 154u); // the outer %r5 plus the inner %r1
  EXPECT_EQ(out[1], 11u);  // the outer %r1, untouched by the block
  EXPECT_EQ(out[2], 0u);   // the block's label: the branch was taken
}

// ---- arithmetic corner cases, hand-written: each result stored to out[k]

TEST(PtxModel, ArithmeticFollowsPtxRules) {
  const std::string ptx = hand_kernel(R"(
  ld.param.u64 %rd1, [b];
  mov.u32 %r1, -8;
  shr.s32 %r2, %r1, 40;
  st.global.u32 [%rd1+0], %r2;
  shl.b32 %r3, %r1, 32;
  st.global.u32 [%rd1+4], %r3;
  bfe.s32 %r4, 0xf0, 4, 4;
  st.global.u32 [%rd1+8], %r4;
  prmt.b32 %r5, 0x33221100, 0x77665544, 0x4062;
  st.global.u32 [%rd1+12], %r5;
  cvt.rni.s32.f32 %r6, 0f40200000;
  st.global.u32 [%rd1+16], %r6;
  cvt.rzi.s32.f32 %r7, 0fC0600000;
  st.global.u32 [%rd1+20], %r7;
  cvt.rn.f32.f64 %f1, 0d3FF0000000000001;
  st.global.f32 [%rd1+24], %f1;
  cvt.rp.f32.f64 %f2, 0d3FF0000000000001;
  st.global.f32 [%rd1+28], %f2;
  cvt.sat.u8.s32 %r8, 300;
  st.global.u32 [%rd1+32], %r8;
  add.rm.f32 %f3, 0f3F800000, 0f33800000;
  st.global.f32 [%rd1+36], %f3;
  add.rp.f32 %f4, 0f3F800000, 0f33800000;
  st.global.f32 [%rd1+40], %f4;
  cvt.rzi.s32.f32 %r9, 0f7FC00000;
  st.global.u32 [%rd1+44], %r9;
  mul.hi.s32 %r10, -2, 0x40000000;
  st.global.u32 [%rd1+48], %r10;
  min.f32 %f5, 0f7FC00000, 0f40000000;
  st.global.f32 [%rd1+52], %f5;
  cvt.rn.f16.f32 %rs1, 0f3DCCCCCD;
  cvt.u32.u16 %r11, %rs1;
  st.global.u32 [%rd1+56], %r11;
  ret;)",
                                      ".reg .b16 %rs<4>;\n");
  const PtxProgram program = parse_ptx(ptx);
  PtxMachine machine(program, "k");
  machine.add_buffer(address_of(0), std::vector<std::byte>(64));
  machine.add_buffer(address_of(1), std::vector<std::byte>(64));
  PtxLaunch launch;
  launch.block = {1, 1, 1};
  launch.params = {param(address_of(0)), param(address_of(1))};
  const PtxBlockRun run = machine.run_block(launch, {0, 0, 0}, {}, nullptr);
  EXPECT_TRUE(run.completed && run.stops.empty()) << stops_of(run);
  const std::vector<std::uint32_t> out = values_of<std::uint32_t>(machine.buffer(1));
  EXPECT_EQ(out[0], 0xffffffffu); // shr.s32 by 40: sign fill
  EXPECT_EQ(out[1], 0u);          // shl by 32: 0
  EXPECT_EQ(out[2], 0xffffffffu); // bfe.s32 of 0xf0 at 4, 4 bits: sign-extended 0xf
  EXPECT_EQ(out[3], 0x44006622u); // prmt selectors 2, 6, 0, 4
  EXPECT_EQ(out[4], 2u);          // 2.5 to nearest even
  EXPECT_EQ(out[5], static_cast<std::uint32_t>(-3)); // -3.5 toward zero
  EXPECT_EQ(out[6], 0x3f800000u);                    // 1 + 2^-52 to nearest: 1
  EXPECT_EQ(out[7], 0x3f800001u);                    // ... up: the next float
  EXPECT_EQ(out[8], 255u);                           // saturated
  EXPECT_EQ(out[9], 0x3f800000u);                    // 1 + 2^-24 rounded down
  EXPECT_EQ(out[10], 0x3f800001u);                   // ... and up
  EXPECT_EQ(out[11], 0u);                            // NaN to an integer: 0
  EXPECT_EQ(out[12], 0xffffffffu);                   // the high half of -2^31
  EXPECT_EQ(out[13], 0x40000000u);                   // min(NaN, 2) = 2
  EXPECT_EQ(out[14], 0x2e66u);                       // 0.1f as a half
}

// ---- generic addresses: a shared array through a generic pointer is reported as shared

TEST(PtxModel, GenericAccessesAreReportedInTheirSpace) {
  const std::string ptx = ".version 9.0\n.target sm_90\n.address_size 64\n"
                          ".visible .entry k(.param .u64 a, .param .u64 b)\n{\n"
                          ".reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n"
                          ".shared .align 4 .b8 pad[12];\n.shared .align 16 .b8 s[256];\n"
                          "mov.u64 %rd1, s;\ncvta.shared.u64 %rd2, %rd1;\n"
                          "mov.u32 %r1, %tid.x;\nmul.wide.u32 %rd3, %r1, 8;\n"
                          "add.s64 %rd4, %rd2, %rd3;\nst.u32 [%rd4], %r1;\n"
                          "ld.param.u64 %rd5, [a];\nadd.s64 %rd6, %rd5, %rd3;\n"
                          "ld.v2.u32 {%r2, %r3}, [%rd4];\nst.v2.u32 [%rd6], {%r2, %r1};\nret;\n}\n";
  Recorder r;
  const PtxProgram program = parse_ptx(ptx);
  PtxMachine machine(program, "k");
  machine.add_buffer(address_of(0), std::vector<std::byte>(1024));
  PtxLaunch launch;
  launch.block = {32, 1, 1};
  launch.params = {param(address_of(0)), param(address_of(1))};
  const PtxBlockRun run = machine.run_block(launch, {0, 0, 0}, {}, r.callback());
  EXPECT_TRUE(run.completed) << stops_of(run);
  const std::vector<PtxAccess> shared = r.in(PtxSpace::shared);
  ASSERT_EQ(shared.size(), 2u);
  expect_strided(shared[0], 16, 8); // s sits after pad, at its 16-byte alignment
  EXPECT_EQ(shared[1].lanes.width, 8);
  const std::vector<PtxAccess> global = r.in(PtxSpace::global);
  ASSERT_EQ(global.size(), 1u);
  expect_strided(global[0], address_of(0), 8);
  const std::vector<std::uint32_t> out = values_of<std::uint32_t>(machine.buffer(0));
  EXPECT_EQ(out[2 * 7 + 1], 7u);
}

// ---- against the GPU: kernels whose every result the H200 computed from the same inputs

// The inputs of tests/fuzz/corpus/ptx_program/diff_*.ptx: random words with zeros, -0,
// infinities, NaNs, denormals and halves mixed in.
unsigned diff_input(unsigned i) {
  unsigned r = i * 2654435761u + 1;
  r ^= r >> 16, r *= 0x7feb352d, r ^= r >> 15, r *= 0x846ca68b, r ^= r >> 16;
  const unsigned special[] = {
      0,          0x80000000, 0x7f800000,     0x7fc00000,     1,
      0x3f800000, 0xbf000000, r & 0x807fffff, r & 0x8000ffff, 0x3c00 | (r & 0x80008000)};
  return i % 16 < 10 ? special[i % 16] : r;
}

std::uint64_t fnv1a(const std::vector<std::byte>& bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::byte b : bytes)
    h = (h ^ static_cast<std::uint64_t>(b)) * 0x100000001b3ull;
  return h;
}

// Each kernel writes 64 words a thread (integer ops and carry chains; f32 in every rounding
// mode with ftz and sat; f64; f16 and bf16; shuffles, votes, match, redux and shared atomics;
// local arrays, generic pointers, byte stores, .const and .global variables). The hashes are of
// the H200's output buffers (driver 580.159.04, the PTX JIT-compiled from these files): the
// model must give the same bits. Regenerating the PTX changes its .loc lines only; its
// instructions must stay as they are, or these hashes need measuring again.
TEST(PtxModel, DifferentialKernelsMatchTheH200BitForBit) {
  struct Case {
    const char* file;
    const char* kernel;
    unsigned threads;
    std::uint64_t gpu_hash;
  };
  const Case cases[] = {{"diff_int.ptx", "_Z8diff_intPKjPji", 128, 0x333a24162c82af01ull},
                        {"diff_float.ptx", "_Z10diff_floatPKjPji", 128, 0x2252827bd8ecc776ull},
                        {"diff_double.ptx", "_Z11diff_doublePKjPji", 128, 0x7ee1b71561dc76f2ull},
                        {"diff_half.ptx", "_Z9diff_halfPKjPji", 128, 0xbfaad5098427d8a2ull},
                        {"diff_warp.ptx", "_Z9diff_warpPKjPji", 32, 0xc2ed53643ec0323aull},
                        {"diff_mem.ptx", "_Z8diff_memPKjPji", 128, 0x19b01464bd80da7bull}};
  const int n = 4096;
  std::vector<unsigned> in(n);
  for (int i = 0; i < n; ++i)
    in[static_cast<std::size_t>(i)] = diff_input(static_cast<unsigned>(i));
  for (const Case& c : cases) {
    const std::string ptx = read_text(repo_root() / "tests/fuzz/corpus/ptx_program" / c.file);
    ASSERT_FALSE(ptx.empty()) << c.file;
    PtxMachine machine(parse_ptx(ptx), c.kernel);
    machine.add_buffer(address_of(0), bytes_of(in));
    machine.add_buffer(address_of(1), bytes_of(std::vector<unsigned>(n * 64, 0xdeadbeefu)));
    PtxLaunch launch;
    launch.block = {c.threads, 1, 1};
    launch.grid = {n / c.threads, 1, 1};
    launch.params = {param(address_of(0)), param(address_of(1)), param(n)};
    for (unsigned b = 0; b < launch.grid.x; ++b) {
      const PtxBlockRun run = machine.run_block(launch, {b, 0, 0}, {}, nullptr);
      ASSERT_TRUE(run.completed && run.stops.empty()) << c.file << ": " << stops_of(run);
    }
    EXPECT_EQ(fnv1a(machine.buffer(1)), c.gpu_hash) << c.file;
  }
}

// ---- speed: a tiled matmul block, K = 1024

TEST(PtxModel, TiledMatmulSpeed) {
  NEEDS_NVRTC();
  const PtxProgram program = parse_ptx(compile(R"(
#define T 16
__global__ void matmul(const float* A, const float* B, float* C, int N, int K) {
  __shared__ float As[T][T], Bs[T][T];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += T) {
    As[ty][tx] = A[row * K + k0 + tx];
    Bs[ty][tx] = B[(k0 + ty) * N + col];
    __syncthreads();
    for (int k = 0; k < T; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * N + col] = acc;
})")
                                           .ptx);
  const int n = 32, k = 1024;
  const std::vector<float> a = random_floats(n * k, -1, 1, 10), b = random_floats(k * n, -1, 1, 11);
  PtxMachine machine(program, "_Z6matmulPKfS0_Pfii");
  machine.add_buffer(address_of(0), bytes_of(a));
  machine.add_buffer(address_of(8), bytes_of(b));
  machine.add_buffer(address_of(16), std::vector<std::byte>(n * n * 4));
  PtxLaunch launch;
  launch.grid = {2, 2, 1};
  launch.block = {16, 16, 1};
  launch.params = {param(address_of(0)), param(address_of(8)), param(address_of(16)), param(n),
                   param(k)};
  // The best of three runs of the block: the machine is shared, and the slowest runs measure it.
  std::int64_t accesses = 0;
  double seconds = 1e9;
  PtxBlockRun run;
  for (int attempt = 0; attempt < 3; ++attempt) {
    accesses = 0;
    const auto start = std::chrono::steady_clock::now();
    run = machine.run_block(launch, {1, 1, 0}, {}, [&](const PtxAccess&) { ++accesses; });
    seconds = std::min(
        seconds, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  EXPECT_TRUE(run.completed && run.stops.empty()) << stops_of(run);
  std::printf("[ speed    ] matmul block 16x16, K=1024: %lld warp instructions, %lld thread "
              "instructions, %lld accesses in %.1f ms: %.1f M thread-instructions/s\n",
              static_cast<long long>(run.warp_instructions),
              static_cast<long long>(run.thread_instructions), static_cast<long long>(accesses),
              seconds * 1e3, static_cast<double>(run.thread_instructions) / seconds / 1e6);
  const std::vector<float> c = values_of<float>(machine.buffer(2));
  for (int row = 16; row < 32; ++row)
    for (int col = 16; col < 32; ++col) {
      float acc = 0.0f;
      for (int i = 0; i < k; ++i)
        acc = std::fma(a[static_cast<std::size_t>(row * k + i)],
                       b[static_cast<std::size_t>(i * n + col)], acc);
      ASSERT_EQ(c[static_cast<std::size_t>(row * n + col)], acc) << row << ", " << col;
    }
}

} // namespace
} // namespace wl
