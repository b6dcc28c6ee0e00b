// A person's kernel file compiled by NVRTC, with no GPU: its cubin, each kernel's mangled name and
// its registers and shared memory as ptxas reports them, tunables as -D and in template names, and
// the compiler's first error named by file and line.

#include "base/error.h"
#include "kernel_file/compile.h"
#include "kernel_file/cubin_resources.h"

#include <thread>

#include <gtest/gtest.h>

namespace wl {
namespace {

const char* const kFile = R"(
__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

template <int Tile, int Pad>
__global__ void transpose(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[Tile][Tile + Pad];
  int x = blockIdx.x * Tile + threadIdx.x, y = blockIdx.y * Tile + threadIdx.y;
  for (int j = 0; j < Tile; j += blockDim.y)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * Tile + threadIdx.x, y = blockIdx.x * Tile + threadIdx.y;
  for (int j = 0; j < Tile; j += blockDim.y)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j] * SCALE;
}
)";

KernelFileCompile request(std::vector<std::string> kernels) {
  return KernelFileCompile{.text = kFile,
                           .file = "/tmp/mine.cu",
                           .kernels = std::move(kernels),
                           .tunables = {{"TILE", 32}, {"PAD", 1}, {"SCALE", 2}},
                           .sm = 90};
}

TEST(KernelFileCompile, GivesTheCubinNamesAndResourcesOfEachKernel) {
  const CompiledKernelFile out = compile_kernel_file(request({"saxpy", "transpose<TILE, PAD>"}));
  EXPECT_GT(out.cubin.size(), 1000u);
  EXPECT_EQ(out.lowered.at("saxpy"), "_Z5saxpyifPKfPf");
  EXPECT_EQ(out.lowered.at("transpose<32, 1>"), "_Z9transposeILi32ELi1EEvPKfPfii");
  ASSERT_TRUE(out.usage.contains("saxpy")) << out.log;
  EXPECT_GT(out.usage.at("saxpy").registers, 0);
  EXPECT_EQ(out.usage.at("saxpy").sm, 90);
  EXPECT_EQ(out.usage.at("transpose<32, 1>").static_shared_bytes, 32 * 33 * 4) << out.log;
  EXPECT_GT(out.seconds, 0);
}

TEST(KernelFileCompile, TunablesReplaceWholeWordsOnly) {
  EXPECT_EQ(with_tunables("transpose<TILE, PAD>", {{"TILE", 32}, {"PAD", 0}}), "transpose<32, 0>");
  EXPECT_EQ(with_tunables("k<TILE_X, TILE>", {{"TILE", 8}}), "k<TILE_X, 8>");
}

TEST(KernelFileCompile, TheFirstErrorIsNamedByFileAndLine) {
  KernelFileCompile broken = request({"saxpy"});
  broken.text =
      "__global__ void saxpy(int n) {\n  int i = undefined_name;\n  i = also_undefined;\n}\n";
  try {
    compile_kernel_file(broken);
    FAIL() << "compiled";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(
        what.starts_with("/tmp/mine.cu:2: error: identifier \"undefined_name\" is undefined"))
        << what;
    EXPECT_NE(what.find("(and 1 more error)"), std::string::npos) << what;
  }
}

// The defect: NVRTC drops ptxas's "uses too much shared data" line, and the refusal showed ptxas's
// info lines cut before anything that said why.
TEST(KernelFileCompile, StaticSharedMemoryOverTheLimitIsNamedWithItsKernel) {
  KernelFileCompile big = request({"saxpy"});
  big.text =
      "__global__ void saxpy(int n, float* y) {\n  __shared__ float s[12289];\n"
      "  s[threadIdx.x] = 1; __syncthreads(); y[threadIdx.x] = s[(threadIdx.x + 1) % n];\n}\n";
  try {
    compile_kernel_file(big);
    FAIL() << "compiled";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("kernel saxpy declares 49,156 bytes of static __shared__ memory, over the "
                        "49,152 (48 KiB)"),
              std::string::npos)
        << what;
  }
}

// The defect: bytes that are not UTF-8 in a comment (0xFF 0xFE, an overlong 0xC0 0x80) made NVRTC
// lose every kernel's name, and the refusal said the kernel was not in the file.
TEST(KernelFileCompile, AByteThatIsNotUtf8IsNamedWithItsLine) {
  KernelFileCompile latin = request({"saxpy"});
  latin.text = "// caf\xE9 \xFF\xFE\xC0\x80\n" + std::string(kFile);
  try {
    compile_kernel_file(latin);
    FAIL() << "compiled";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("its line 1 holds the byte 0xE9, which is not UTF-8"),
              std::string::npos)
        << e.what();
  }
}

TEST(KernelFileCompile, AKernelTheFileLacksIsNamed) {
  try {
    compile_kernel_file(request({"saxpyy"}));
    FAIL() << "compiled";
  } catch (const UsageError& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with(
        "/tmp/mine.cu: a kernel the description names is not a __global__ function of the file "
        "(identifier \"saxpyy\" is undefined)"))
        << e.what();
  }
}

TEST(KernelFileCompile, WhatNvccsHeadersDefineCompilesAsUnderNvcc) {
  KernelFileCompile request = ::wl::request({"clamp_inf"});
  request.text = "__global__ void clamp_inf(float* x) {\n"
                 "  x[0] = x[0] > 1e30f ? INFINITY : (x[0] != x[0] ? NAN : x[0]);\n}\n";
  EXPECT_GT(compile_kernel_file(request).cubin.size(), 0u);
}

// A sweep's threads compile at once; each program's ptxas report stays its own.
TEST(KernelFileCompile, CompilesOnSeveralThreadsEachReadTheirOwnResources) {
  std::vector<std::thread> threads;
  std::vector<CompiledKernelFile> out(4);
  for (std::size_t t = 0; t < out.size(); ++t)
    threads.emplace_back([&out, t] {
      KernelFileCompile r = request({"transpose<TILE, PAD>"});
      r.tunables["TILE"] = t % 2 ? 16 : 32;
      r.tunables["PAD"] = static_cast<std::int64_t>(t / 2);
      out[t] = compile_kernel_file(r);
    });
  for (std::thread& t : threads)
    t.join();
  for (std::size_t t = 0; t < out.size(); ++t) {
    const int tile = t % 2 ? 16 : 32, pad = static_cast<int>(t / 2);
    const std::string name = "transpose<" + std::to_string(tile) + ", " + std::to_string(pad) + ">";
    ASSERT_TRUE(out[t].usage.contains(name)) << name << ": " << out[t].log;
    EXPECT_EQ(out[t].usage.at(name).static_shared_bytes, tile * (tile + pad) * 4) << name;
  }
}

// The cubin's own figures are ptxas's: registers, static shared memory (the system's reserved
// kilobyte left out) and stack frame, for kernels with none, some and spilled locals, on every
// architecture the release preset builds.
TEST(KernelFileCompile, TheCubinsResourcesAreThoseThePtxasReportGives) {
  KernelFileCompile r = request({"saxpy", "transpose<TILE, PAD>", "locals", "doubles"});
  r.text = std::string(kFile) + R"(
__global__ void locals(float* out, int n) {
  float a[64];
  for (int i = 0; i < 64; ++i) a[i] = out[i * n];
  float s = 0;
  for (int i = 0; i < n; ++i) s += a[(i * 7) % 64];
  out[0] = s;
}
__global__ void doubles(double* out) {
  __shared__ double t[7];
  t[threadIdx.x % 7] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x + 1] = t[(threadIdx.x + 1) % 7];
}
)";
  int compared = 0;
  for (const int sm : {75, 80, 86, 89, 90, 100, 120}) {
    r.sm = sm;
    const CompiledKernelFile out = compile_kernel_file(r);
    const auto report = parse_ptxas_report(out.log);
    for (const auto& [name, lowered] : out.lowered) {
      const auto reported = report.find(demangled_kernel_name(lowered));
      ASSERT_NE(reported, report.end()) << name << " sm_" << sm << ": " << out.log;
      const CompiledResources& want = reported->second.begin()->second;
      ASSERT_TRUE(out.usage.contains(name)) << name << " sm_" << sm;
      const CompiledResources& got = out.usage.at(name);
      EXPECT_EQ(got.registers, want.registers) << name << " sm_" << sm;
      EXPECT_EQ(got.static_shared_bytes, want.static_shared_bytes) << name << " sm_" << sm;
      EXPECT_EQ(got.stack_frame_bytes, want.stack_frame_bytes) << name << " sm_" << sm;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 7 * 4);
}

TEST(KernelFileCompile, ACubinThatIsNotOneGivesNoResources) {
  EXPECT_FALSE(cubin_resources({}, "_Z5saxpyifPKfPf", 90));
  EXPECT_FALSE(cubin_resources(std::vector<char>(100, 'x'), "_Z5saxpyifPKfPf", 90));
  std::vector<char> cut = compile_kernel_file(request({"saxpy"})).cubin;
  EXPECT_TRUE(cubin_resources(cut, "_Z5saxpyifPKfPf", 90));
  EXPECT_FALSE(cubin_resources(cut, "_Z5other", 90));
  cut.resize(cut.size() / 3); // the section table is at the end
  EXPECT_FALSE(cubin_resources(cut, "_Z5saxpyifPKfPf", 90));
}

} // namespace
} // namespace wl
