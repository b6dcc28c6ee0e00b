// A person's kernel file made kernels the tool takes, with no GPU: its sizes and tunables as
// parameters, its grid, shared memory and bytes from the description, its registers from NVRTC,
// its restrictions refusing a block in one line, and `warplens model FILE.cu` printing them.

#include "base/error.h"
#include "kernel_file/file_kernel.h"
#include "model/kernel_request.h"
#include "model/model_kernel.h"
#include "registry.h"
#include "report/figures.h"
#include "test_support.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <set>

#include <gtest/gtest.h>

namespace wl {
namespace {

const char* const kTranspose = R"(// The naive transpose with a shared tile.
// @warplens kernel transpose<TILE, PAD>
// @warplens size rows = 4096
// @warplens size cols = 4096
// @warplens tune TILE = 32, 16
// @warplens tune PAD = 1, 0
// @warplens restrict block.x == TILE && block.y <= TILE
// @warplens arg in: in float[rows * cols] random(-1, 1)
// @warplens arg out: out float[rows * cols]
// @warplens arg rows: int = rows
// @warplens arg cols: int = cols
// @warplens block 32x8
// @warplens grid ceil_div(cols, TILE), ceil_div(rows, TILE)
// @warplens check none
template <int Tile, int Pad>
__global__ void transpose(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[Tile][Tile + Pad];
  int x = blockIdx.x * Tile + threadIdx.x, y = blockIdx.y * Tile + threadIdx.y;
  for (int j = 0; j < Tile; j += blockDim.y)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * Tile + threadIdx.x, y = blockIdx.x * Tile + threadIdx.y;
  for (int j = 0; j < Tile; j += blockDim.y)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
)";

std::filesystem::path written(const std::string& name, const std::string& text) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("warplens_file_kernel_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / name) << text;
  return dir / name;
}

TEST(FileKernel, ModelledWithNvrtcsRegistersAndTheDescriptionsLaunch) {
  const std::string id = add_kernel_file(written("tile_transpose.cu", kTranspose).string());
  EXPECT_EQ(id, "tile_transpose/transpose");
  const KernelDesc& kernel = *find_kernel(id);
  EXPECT_EQ(kernel.kind, KernelKind::run_time);
  const RunResult r = model_kernel(resolve_kernel_request(id, {}, "", ""), test::preset("h100"));
  EXPECT_EQ(r.kernel_kind, KernelKind::run_time);
  EXPECT_EQ(r.launch.grid, (BlockShape{128, 128, 1}));
  ASSERT_TRUE(r.attributes);
  EXPECT_EQ(r.attributes->source, "NVRTC, sm_90, compiled here");
  EXPECT_GT(r.attributes->registers, 0);
  EXPECT_EQ(r.attributes->static_shared_bytes, 32 * 33 * 4);
  ASSERT_TRUE(r.occupancy);
  EXPECT_EQ(r.bytes_moved, 2.0 * 4096 * 4096 * 4);
  // Its accesses, predicted from its PTX: line 20 reads a row of `in` into the padded tile, line
  // 24 writes a row of `out` from a column of it. 128 x 128 blocks of 8 warps, each warp four rows.
  ASSERT_EQ(r.prediction.sites.size(), 4u);
  EXPECT_TRUE(r.prediction.from_code);
  const double requests = 128.0 * 128 * 8 * 4;
  const auto site = [&](int line, MemorySpace space) {
    for (const SitePrediction& s : r.prediction.sites)
      if (s.line == line && s.space == space)
        return s;
    ADD_FAILURE() << "no " << space_name(space) << " site on line " << line;
    return SitePrediction{};
  };
  EXPECT_EQ(site(20, MemorySpace::global).requests, requests);
  EXPECT_EQ(site(20, MemorySpace::global).sectors_per_request(), 4);
  EXPECT_EQ(site(20, MemorySpace::shared).wavefronts_per_request(), 1);
  EXPECT_EQ(site(24, MemorySpace::shared).op, AccessOp::load);
  EXPECT_EQ(site(24, MemorySpace::shared).wavefronts_per_request(), 1) << "padded: no conflict";
  EXPECT_EQ(site(24, MemorySpace::global).sectors_per_request(), 4);
  // Another tunable value is another compile: its shared tile is another size.
  const RunResult small = model_kernel(resolve_kernel_request(id, {"TILE=16", "PAD=0"}, "", "16x8"),
                                       test::preset("h100"));
  EXPECT_EQ(small.attributes->static_shared_bytes, 16 * 16 * 4);
  EXPECT_EQ(small.launch.grid, (BlockShape{256, 256, 1}));
  // Unpadded, a warp's column of the 16-wide tile falls on 2 banks: 8 lanes a bank, 8 wavefronts.
  for (const SitePrediction& s : small.prediction.sites) {
    if (s.line == 24 && s.space == MemorySpace::shared) {
      EXPECT_EQ(s.wavefronts_per_request(), 8) << s.name;
    }
  }
}

TEST(FileKernel, ARestrictionRefusesABlockNamingItsLine) {
  const std::string id = add_kernel_file(written("tile_transpose.cu", kTranspose).string());
  try {
    resolve_kernel_request(id, {}, "", "16x8");
    FAIL() << "block 16x8 with TILE 32 was taken";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("restrict 'block.x == TILE && block.y <= TILE' ("),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("tile_transpose.cu:7) is false"), std::string::npos)
        << e.what();
  }
}

TEST(FileKernel, TheCommandLineModelsAFileAndRefusesWhatIsNotOne) {
  const std::filesystem::path file = written("tile_transpose.cu", kTranspose);
  const auto r =
      test::run_warplens("model " + file.string() + ":transpose --param TILE=16 --block 16x16");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("tile_transpose/transpose  block 16x16  grid 256x256"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("attributes (NVRTC, sm_90, compiled here)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("predicted memory traffic (lines of tile_transpose.cu)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("line 24: shared load, 4 B"), std::string::npos) << r.out;
  const auto folder = test::run_warplens("model " + file.parent_path().string() + "/x.cu");
  EXPECT_EQ(folder.exit_code, 2) << folder.out;
  std::filesystem::create_directories(file.parent_path() / "dir.cu");
  const auto dir = test::run_warplens("model " + (file.parent_path() / "dir.cu").string());
  EXPECT_EQ(dir.exit_code, 2) << dir.out;
  EXPECT_NE(dir.out.find("is a folder; give a .cu file"), std::string::npos) << dir.out;
  const auto missing = test::run_warplens("model " + file.string() + ":transposed");
  EXPECT_EQ(missing.exit_code, 2) << missing.out;
  EXPECT_NE(missing.out.find("no kernel 'transposed' in its description; it has transpose"),
            std::string::npos)
      << missing.out;
}

const char* const kTypes = R"(// Every type, fill and scalar a description has.
// @warplens kernel mixed
// @warplens size n = 1000
// @warplens arg ints: in int[n] random(-3, 3)
// @warplens arg counts: in unsigned[n] iota
// @warplens arg halves: in double[2 * n] constant(0.5)
// @warplens arg acc: inout float[n] zeros
// @warplens arg out: out double[n]
// @warplens arg n: int = n
// @warplens arg scale: double = 1.5
// @warplens arg mask: unsigned = n * 4
// @warplens arg bias: float = -2
// @warplens grid ceil_div(n, block.x)
// @warplens check mixed_reference 0
__global__ void mixed(const int* ints, const unsigned* counts, const double* halves, float* acc,
                      double* out, int n, double scale, unsigned mask, float bias) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { out[i] = scale * ints[i] + halves[2 * i] + (counts[i] & mask); acc[i] += bias; }
}
__global__ void mixed_reference(const int* ints, const unsigned* counts, const double* halves,
                                float* acc, double* out, int n, double scale, unsigned mask,
                                float bias) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    out[i] = scale * ints[i] + halves[2 * i] + (counts[i] & mask); acc[i] += bias; }
}
)";

template <typename T> T scalar(const RunTimeArgument& a) {
  T value{};
  EXPECT_EQ(a.value.size(), sizeof value) << a.name;
  std::memcpy(&value, a.value.data(), sizeof value);
  return value;
}

HostBuffers filled(const KernelDesc& kernel, const Params& params, std::uint64_t seed) {
  HostBuffers buffers;
  for (const BufferSpec& b : kernel.buffers)
    buffers.push_back(HostBuffer{
        b.type, Words(static_cast<std::size_t>(b.count(params) * element_bytes(b.type) / 4))});
  kernel.init(buffers, params, seed);
  return buffers;
}

// A file an editor saved with a byte order mark first is modelled as the same file without it.
TEST(FileKernel, AFileThatStartsWithAByteOrderMarkIsModelledAsWithout) {
  const std::filesystem::path plain = written("plain.cu", kTranspose);
  const std::filesystem::path marked =
      written("marked.cu", "\xEF\xBB\xBF" + std::string(kTranspose));
  const std::string args = ":transpose --param TILE=16 --block 16x16";
  const auto without = test::run_warplens("model " + plain.string() + args);
  const auto with = test::run_warplens("model " + marked.string() + args);
  ASSERT_EQ(with.exit_code, 0) << with.out;
  EXPECT_NE(with.out.find("line 24: shared load, 4 B"), std::string::npos) << with.out;
  // The same figures under the other file's name; the model's own time differs run to run.
  const auto figures = [](std::string text, const std::string& name) {
    for (std::size_t at; (at = text.find(name)) != std::string::npos;)
      text.replace(at, name.size(), "FILE");
    return text.substr(0, text.find("the model took"));
  };
  EXPECT_EQ(figures(with.out, "marked"), figures(without.out, "plain"));
}

TEST(FileKernel, BuffersArgumentsAndFillsComeFromTheDescription) {
  const KernelDesc& kernel = *find_kernel(add_kernel_file(written("mixed.cu", kTypes).string()));
  const Params params{{"n", 1000}};
  ASSERT_EQ(kernel.buffers.size(), 5u);
  EXPECT_EQ(kernel.buffers[0].type, ElementType::i32);
  EXPECT_EQ(kernel.buffers[1].type, ElementType::u32);
  EXPECT_EQ(kernel.buffers[2].type, ElementType::f64);
  EXPECT_EQ(kernel.buffers[2].count(params), 2000);
  EXPECT_EQ(kernel.buffers[3].role, BufferRole::inout);
  EXPECT_EQ(kernel.buffers[4].role, BufferRole::output);
  EXPECT_EQ(kernel.bytes_moved(params), 1000.0 * 4 + 1000 * 4 + 2000 * 8 + 2 * 1000 * 4 + 1000 * 8);

  const HostBuffers b = filled(kernel, params, 7);
  EXPECT_EQ(b[2].size(), 2000);
  std::set<int> ints(b[0].i32(), b[0].i32() + 1000);
  EXPECT_EQ(ints, (std::set<int>{-3, -2, -1, 0, 1, 2, 3})) << "whole numbers from low to high";
  EXPECT_EQ(b[1].u32()[999], 999u);
  EXPECT_EQ(b[2].f64()[1999], 0.5);
  EXPECT_EQ(b[3].f32()[5], 0.0f);
  EXPECT_EQ(filled(kernel, params, 7)[0].words, b[0].words) << "the same seed, the same inputs";
  EXPECT_NE(filled(kernel, params, 8)[0].words, b[0].words);

  const RunTimeCode code = kernel.code(params, 90);
  ASSERT_TRUE(code.cubin && !code.cubin->empty());
  EXPECT_EQ(code.function, "_Z5mixedPKiPKjPKdPfPdidjf");
  EXPECT_EQ(code.reference_name, "mixed_reference");
  EXPECT_FALSE(code.reference.empty());
  ASSERT_EQ(code.arguments.size(), 9u);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(code.arguments[static_cast<std::size_t>(i)].buffer, i);
  EXPECT_EQ(scalar<std::int32_t>(code.arguments[5]), 1000);
  EXPECT_EQ(scalar<double>(code.arguments[6]), 1.5);
  EXPECT_EQ(scalar<std::uint32_t>(code.arguments[7]), 4000u);
  EXPECT_EQ(scalar<float>(code.arguments[8]), -2.0f);
}

TEST(FileKernel, AnArgumentItsTypeCannotHoldRefusesTheParameters) {
  const KernelDesc& kernel = *find_kernel(add_kernel_file(written("mixed.cu", kTypes).string()));
  EXPECT_EQ(kernel.check_params({{"n", 1000}}), "");
  EXPECT_TRUE(kernel.check_params({{"n", 1 << 30}})
                  .ends_with("mixed.cu:11: arg mask = n * 4 is 4294967296 for these sizes; an "
                             "unsigned holds 0 to 4294967295"))
      << kernel.check_params({{"n", 1 << 30}});
  try {
    resolve_kernel_request("mixed/mixed", {"n=3000000000"}, "", "");
    FAIL() << "taken";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("arg n = n is 3000000000 for these sizes; an int holds"),
              std::string::npos)
        << e.what();
  }
}

// A header beside the file travels with it: its text is read with the file, counts in its hash,
// and is compiled from what was read (a worker elsewhere has no such file on disk).
TEST(FileKernel, AHeaderBesideTheFileTravelsWithItAndCountsInItsHash) {
  const std::string file_text = R"(#include "scale.cuh"
// @warplens kernel scaled
// @warplens size n = 1000
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens grid ceil_div(n, block.x)
// @warplens check none
__global__ void scaled(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = SCALE * i;
}
)";
  const std::filesystem::path file = written("scaled.cu", file_text);
  written("scale.cuh", "#pragma once\n#include \"more.cuh\"\n#define SCALE 2.0f\n");
  written("more.cuh", "#pragma once\n");
  const KernelFile read = read_kernel_file(file);
  EXPECT_EQ(read.headers.size(), 2u);
  EXPECT_TRUE(read.headers.contains("scale.cuh") && read.headers.contains("more.cuh"));
  written("scale.cuh", "#pragma once\n#include \"more.cuh\"\n#define SCALE 3.0f\n");
  EXPECT_NE(read_kernel_file(file).hash, read.hash) << "a header's change is a new version";
  // Elsewhere, with only what was sent: the headers come from the request, not the disk.
  const KernelFile sent = kernel_file_from_text("/nowhere/scaled.cu", read.text, read.headers);
  EXPECT_EQ(sent.hash, read.hash);
  const std::vector<KernelDesc> kernels = file_kernels(sent);
  EXPECT_GT(kernels.front().usage({{"n", 1000}}, 90).registers, 0);
  const std::vector<KernelDesc> without =
      file_kernels(kernel_file_from_text("/nowhere/scaled.cu", read.text));
  EXPECT_THROW(without.front().usage({{"n", 1000}}, 90), UsageError)
      << "without its header it does not compile";
}

// What a launch's expressions cannot give (a division by zero, a grid too large, an overflow, a
// block no GPU runs) is said with the file, the line and the word, as the description's own
// mistakes are; a restriction names the values it read.
TEST(FileKernel, ALaunchsExpressionsThatCannotBeUsedNameTheirLine) {
  std::string text = kTranspose;
  const auto refusal = [&](const std::string& change, const std::vector<std::string>& params,
                           const std::string& block) {
    const std::string id = add_kernel_file(written("launch_refusals.cu", change).string());
    try {
      model_kernel(resolve_kernel_request(id, params, "", block), test::preset("h100"));
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("taken");
  };
  std::string by_zero = text;
  by_zero.replace(by_zero.find("grid ceil_div(cols, TILE)"), 25, "grid cols / (TILE - TILE)");
  EXPECT_NE(refusal(by_zero, {}, "").find("launch_refusals.cu:13: grid 'cols / (TILE - TILE)': "),
            std::string::npos)
      << refusal(by_zero, {}, "");
  std::string huge = text;
  huge.replace(huge.find("grid ceil_div(cols, TILE)"), 25, "grid cols * cols * 1024");
  EXPECT_NE(refusal(huge, {}, "").find("launch_refusals.cu:13: grid side x = 17179869184"),
            std::string::npos)
      << refusal(huge, {}, "");
  EXPECT_NE(
      refusal(text, {}, "32x33").find("cannot use block 32x33: a block holds at most 1024 threads"),
      std::string::npos)
      << refusal(text, {}, "32x33") << ": the hardware's limit before the file's restriction";
  EXPECT_NE(refusal(text, {}, "16x8").find("is false for block.x = 16, TILE = 32"),
            std::string::npos)
      << refusal(text, {}, "16x8");
  std::string flops = text + "// @warplens flops rows * rows * rows * rows * rows * rows\n";
  EXPECT_NE(refusal(flops, {}, "").find("launch_refusals.cu:26: flops 'rows * rows * rows"),
            std::string::npos)
      << refusal(flops, {}, "");
  // Counts no launch has fewer than 0 of: refused with their line, not shown as "-100 B" or
  // dropped.
  for (const auto& [word, line] : {std::pair{"bytes", 26}, std::pair{"flops", 26}}) {
    const std::string negative = text + "// @warplens " + word + " 0 - 100\n";
    const std::string why = refusal(negative, {}, "");
    EXPECT_NE(why.find("launch_refusals.cu:" + std::to_string(line) + ": " + word +
                       " '0 - 100' is -100 for these sizes; allowed 0 or more"),
              std::string::npos)
        << why;
  }
  const std::string shared = text + "// @warplens shared 0 - 100\n";
  EXPECT_NE(refusal(shared, {}, "").find("launch_refusals.cu:26: shared '0 - 100' is -100"),
            std::string::npos)
      << refusal(shared, {}, "");
  // A condition that reads nothing is always false, and says so.
  std::string never = text;
  never.replace(never.find("restrict block.x == TILE && block.y <= TILE"), 43, "restrict 0");
  EXPECT_NE(refusal(never, {}, "").find("launch_refusals.cu:7) is always false"), std::string::npos)
      << refusal(never, {}, "");
}

// Without a GPU too, the args are checked against the compiled kernel: their count and sizes from
// the cubin's parameter entries, their types from the kernel's name.
TEST(FileKernel, ArgsThatDoNotFitTheKernelAreRefusedInModelMode) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"arg in: in double[rows * cols] random(-1, 1)",
       "parameter 1 is float const*, but its description's arg 'in' is a buffer of double"},
      {"arg rows: long = rows", "parameter 3 is int, but its description's arg 'rows' is long"},
      {"arg cols: float = 2", "parameter 4 is int, but its description's arg 'cols' is float"},
  };
  for (const auto& [line, says] : cases) {
    std::string text = kTranspose;
    const std::string name = line.substr(4, line.find(':') - 4);
    const std::size_t at = text.find("// @warplens arg " + name + ":");
    text.replace(at, text.find('\n', at) - at, "// @warplens " + line);
    const std::string id = add_kernel_file(written("mismatch.cu", text).string());
    try {
      model_kernel(resolve_kernel_request(id, {}, "", ""), test::preset("h100"));
      ADD_FAILURE() << line << " was modelled";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  }
  std::string missing = kTranspose;
  const std::size_t at = missing.find("// @warplens arg cols: int = cols\n");
  missing.erase(at, std::string("// @warplens arg cols: int = cols\n").size());
  const std::string id = add_kernel_file(written("mismatch.cu", missing).string());
  EXPECT_THROW(model_kernel(resolve_kernel_request(id, {}, "", ""), test::preset("h100")),
               UsageError);
}

// The defect: a file whose predicted accesses move fewer bytes than its `bytes` line declares got a
// modelled time under the declared minimum's, first without a word, then beside it: a "fastest
// possible" time below "bytes moved at peak bandwidth" on the same panel. The declared bytes are
// the DRAM floor, and the model's own are said.
TEST(FileKernel, DeclaredBytesOverThePredictedOnesAreTheModelledTimesFloor) {
  std::ifstream in(std::filesystem::path(WARPLENS_SOURCE_ASSETS).parent_path() / "examples" /
                   "saxpy.cu");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string check = "// @warplens check saxpy_reference 1e-6\n";
  ASSERT_NE(text.find(check), std::string::npos);
  text.replace(text.find(check), check.size(), check + "// @warplens bytes 5 * n * 4\n");
  const std::string id = add_kernel_file(written("declared.cu", text).string());
  const RunResult r = model_kernel(resolve_kernel_request(id, {}, "", ""), test::preset("h100"));
  const std::string note = figure_text(figure("modelled_time"), r).value_or("");
  EXPECT_TRUE(note.starts_with("0.1001 ms, bound by DRAM (320 MiB at 3,352 GB/s)")) << note;
  EXPECT_NE(note.find("DRAM's time is that of the 320 MiB it must move: the predicted accesses "
                      "move only 192 MiB"),
            std::string::npos)
      << note;
}

TEST(FileKernel, EveryExampleCompilesForTheH100AndIsModelled) {
  const std::filesystem::path examples =
      std::filesystem::path(WARPLENS_SOURCE_ASSETS).parent_path() / "examples";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(examples)) {
    if (entry.path().extension() != ".cu")
      continue; // examples/libraries/ has its own test (LibraryHeaders.*)
    const std::string id = add_kernel_file(entry.path().string());
    const RunResult r = model_kernel(resolve_kernel_request(id, {}, "", ""), test::preset("h100"));
    ASSERT_TRUE(r.attributes) << id;
    EXPECT_GT(r.attributes->registers, 0) << id;
    EXPECT_TRUE(r.occupancy) << id;
    EXPECT_FALSE(find_kernel(id)->code(r.params, 90).reference.empty()) << id << " is verified";
    ++files;
  }
  EXPECT_GE(files, 4);
}

// The defect a newcomer met: a strided read of 1 float in 32 left `bytes` out, and its modelled
// time was set by each buffer once (132 MiB) where its predicted accesses move 68 MiB. Left out,
// each buffer once is no floor where every access is predicted; declared, it is.
TEST(FileKernel, BytesLeftOutAreNoFloorUnderAWhollyPredictedLaunch) {
  const std::string text = R"(// @warplens kernel gather
// @warplens size n = 1 << 20
// @warplens arg n: int = n
// @warplens arg in: in float[32 * n] random(-1, 1)
// @warplens arg out: out float[n]
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none
__global__ void gather(int n, const float* in, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[32 * i];
}
)";
  const std::string id = add_kernel_file(written("gather.cu", text).string());
  const RunResult r = model_kernel(resolve_kernel_request(id, {}, "", ""), test::preset("h100"));
  ASSERT_TRUE(r.prediction.notes.empty());
  const ModelledTime t = *modelled_time(r);
  EXPECT_FALSE(t.dram_from_bytes_moved) << "each buffer once is 33 x 4 MiB, a guess, not a floor";
  EXPECT_LT(t.dram_bytes, r.bytes_moved);
  const std::string declared = add_kernel_file(
      written("gather_declared.cu", "// @warplens bytes 33 * n * 4\n" + text).string());
  const ModelledTime floor = *modelled_time(
      model_kernel(resolve_kernel_request(declared, {}, "", ""), test::preset("h100")));
  EXPECT_TRUE(floor.dram_from_bytes_moved) << "a declared `bytes` stays the floor";
}

} // namespace
} // namespace wl
