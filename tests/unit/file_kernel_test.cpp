// A person's kernel file made kernels the tool takes, with no GPU: its sizes and tunables as
// parameters, its grid, shared memory and bytes from the description, its registers from NVRTC,
// its restrictions refusing a block in one line, and `warplens model FILE.cu` printing them.

#include "base/error.h"
#include "kernel_file/file_kernel.h"
#include "model/kernel_request.h"
#include "model/model_kernel.h"
#include "registry.h"
#include "test_support.h"

#include <fstream>

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
  EXPECT_TRUE(r.prediction.sites.empty());
  // Another tunable value is another compile: its shared tile is another size.
  const RunResult small = model_kernel(resolve_kernel_request(id, {"TILE=16", "PAD=0"}, "", "16x8"),
                                       test::preset("h100"));
  EXPECT_EQ(small.attributes->static_shared_bytes, 16 * 16 * 4);
  EXPECT_EQ(small.launch.grid, (BlockShape{256, 256, 1}));
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
  EXPECT_NE(r.out.find("no access sites. A kernel given at run time"), std::string::npos) << r.out;
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

} // namespace
} // namespace wl
