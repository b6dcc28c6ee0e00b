// Real kernels include the toolkit's libraries: cooperative groups, cuda::std, cuda::atomic_ref,
// CUB's block and warp primitives, the half and bfloat16 types. Each file of examples/libraries
// compiles here (NVRTC finds include/cccl, where the toolkit's nvcc finds it), a header of each
// family that is missing or broken is named in one line, a host-only standard header says why it
// cannot be used, and a compile is kept on disk so the next `model` of the file does not pay NVRTC
// again.

#include "hostile_support.h"
#include "kernel_file/compile_cache.h"
#include "kernel_file/file_kernel.h"
#include "kernel_file/toolkit_headers.h"

#include <cstdlib>
#include <fstream>

namespace wl {
namespace {

const std::filesystem::path kLibraries =
    std::filesystem::path(WARPLENS_SOURCE_ASSETS).parent_path() / "examples" / "libraries";

std::vector<std::filesystem::path> library_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(kLibraries))
    if (entry.path().extension() == ".cu")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(LibraryHeaders, TheToolkitsFoldersAreThoseItsNvccAdds) {
  const ToolkitHeaders& toolkit = toolkit_headers();
  ASSERT_FALSE(toolkit.folders.empty()) << toolkit.source;
  EXPECT_TRUE(toolkit.source.ends_with("bin/nvcc.profile")) << toolkit.source;
  EXPECT_TRUE(std::any_of(toolkit.folders.begin(), toolkit.folders.end(),
                          [](const std::string& f) { return f.ends_with("/include/cccl"); }));
  // The profile's own words, read as nvcc reads them.
  const std::vector<std::string> read = profile_include_folders(
      "INCLUDES        +=  \"-I$(TOP)/$(_TARGET_DIR_)/include\" $(_SPACE_)\n"
      "SYSTEM_INCLUDES +=  \"-isystem\" \"$(TOP)/$(_TARGET_DIR_)/include/cccl\" $(_SPACE_)\n",
      "/opt/cuda/bin", "targets/x86_64-linux");
  EXPECT_EQ(read, (std::vector<std::string>{"/opt/cuda/bin/../targets/x86_64-linux/include",
                                            "/opt/cuda/bin/../targets/x86_64-linux/include/cccl"}));
}

TEST(LibraryHeaders, EveryLibraryFileCompilesAndIsModelled) {
  const std::vector<std::filesystem::path> files = library_files();
  ASSERT_GE(files.size(), 5u);
  for (const std::filesystem::path& file : files) {
    const KernelFile read = read_kernel_file(file);
    for (const KernelDesc& kernel : file_kernels(read)) {
      Params params;
      for (const ParamSpec& spec : kernel.params)
        params[spec.name] = spec.default_value;
      const KernelUsage usage = kernel.usage(params, 90);
      EXPECT_GT(usage.registers, 0) << file;
    }
  }
}

std::string compile_error(const std::string& name, const std::string& include) {
  const std::string file = test::write_file(
      name, "// @warplens kernel k\n// @warplens size n = 64\n// @warplens arg o: out float[n]\n"
            "// @warplens grid 1\n// @warplens check none\n#include " +
                include + "\n__global__ void k(float* o) { o[threadIdx.x] = 1; }\n");
  try {
    file_kernels(read_kernel_file(file)).front().usage({{"n", 64}}, 90);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "compiled";
}

TEST(LibraryHeaders, AMissingHeaderOfEachFamilyIsNamedInOneLine) {
  for (const std::string header :
       {"cooperative_groups/no_such.h", "cuda/std/no_such", "cuda/no_such", "cub/no_such.cuh",
        "cuda_fp16_no_such.h", "cuda_bf16_no_such.h"}) {
    const std::string why = compile_error("missing.cu", "<" + header + ">");
    test::expect_good_message(why, {"missing.cu:6", "cannot open source file \"" + header + "\""});
  }
}

// A header of each family that is there but broken (a copy in the file's folder, found first for
// a quoted include, with a line that is not C++): the first error names the header's own line.
TEST(LibraryHeaders, ABrokenHeaderOfEachFamilyIsNamedAtItsLineInOneLine) {
  for (const std::string header : {"cooperative_groups.h", "cuda/std/type_traits", "cuda/atomic",
                                   "cub/block/block_reduce.cuh", "cuda_fp16.h", "cuda_bf16.h"}) {
    const std::filesystem::path copy = test::scratch() / header;
    std::filesystem::create_directories(copy.parent_path());
    std::ofstream(copy) << "#pragma once\nthis line is not C++;\n";
    const std::string why = compile_error("broken.cu", "\"" + header + "\"");
    test::expect_good_message(why, {header + ":2: error: expected a declaration"});
    std::filesystem::remove_all(test::scratch() / std::filesystem::path(header).begin()->string());
  }
}

TEST(LibraryHeaders, AHostOnlyHeaderSaysWhyAndItsDeviceCounterpart) {
  test::expect_good_message(compile_error("host.cu", "<vector>"),
                            {"\"vector\"", "host-only standard header", "device code"});
  test::expect_good_message(compile_error("host_array.cu", "<array>"),
                            {"\"array\"", "<cuda/std/array>"});
}

// A compile kept on disk is what the next process reads instead of compiling; an entry that does
// not read is compiled again.
TEST(LibraryHeaders, ACompileIsKeptAndAnEntryThatDoesNotReadIsIgnored) {
  const std::filesystem::path cache = test::scratch() / "cache";
  ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
  const KernelFileCompile request{.text = "__global__ void kept(float* x) { x[0] = 1; }\n",
                                  .file = "kept.cu",
                                  .headers = {},
                                  .kernels = {"kept"},
                                  .tunables = {},
                                  .sm = 90};
  const std::string key = compile_key(request);
  EXPECT_FALSE(cached_compile(key));
  const CompiledKernelFile compiled = compile_kernel_file(request);
  keep_compile(key, compiled);
  const std::optional<CompiledKernelFile> kept = cached_compile(key);
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->cubin, compiled.cubin);
  EXPECT_EQ(kept->ptx, compiled.ptx);
  EXPECT_EQ(kept->lowered, compiled.lowered);
  EXPECT_EQ(kept->usage.at("kept").registers, compiled.usage.at("kept").registers);
  // Another text, another tunable or another architecture is another compile.
  KernelFileCompile other = request;
  other.sm = 80;
  EXPECT_NE(compile_key(other), key);
  other = request;
  other.tunables = {{"T", 1}};
  EXPECT_NE(compile_key(other), key);
  // Cut short (a disk that filled): not read, compiled again.
  const std::filesystem::path entry = compile_cache_folder() / (key + ".json");
  std::filesystem::resize_file(entry, std::filesystem::file_size(entry) / 2);
  EXPECT_FALSE(cached_compile(key));
  ::unsetenv("XDG_CACHE_HOME");
}

// Through the program: the second model of a file that includes cooperative_groups.h reads the
// kept compile (its entry is there after the first), and says the same.
TEST(LibraryHeaders, TheSecondModelOfAFileReadsTheKeptCompile) {
  const std::filesystem::path cache = test::scratch() / "model_cache";
  const std::string env = "XDG_CACHE_HOME=" + cache.string();
  const std::string file = (kLibraries / "cg_reduce.cu").string();
  const test::Outcome first = test::run_limited("model " + file, env);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e :
       std::filesystem::directory_iterator(cache / "warplens" / "compiles"))
    ++entries;
  EXPECT_EQ(entries, 1u);
  const test::Outcome second = test::run_limited("model " + file, env);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  // The same, but for how long the model took.
  const auto without_time = [](std::string text) {
    const std::size_t at = text.find("; the model took ");
    return at == std::string::npos ? text : text.erase(at, text.find(')', at) - at);
  };
  EXPECT_EQ(without_time(first.out), without_time(second.out));
}

} // namespace
} // namespace wl
