// A person's kernel file compiled by NVRTC, with no GPU: its cubin, each kernel's mangled name and
// its registers and shared memory as ptxas reports them, tunables as -D and in template names, and
// the compiler's first error named by file and line.

#include "base/error.h"
#include "kernel_file/compile.h"

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
    EXPECT_NE(what.find("(and 1 more errors)"), std::string::npos) << what;
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

} // namespace
} // namespace wl
