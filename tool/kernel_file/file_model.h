#pragma once
// A kernel file's accesses predicted from its compiled code, with no GPU: the PTX NVRTC made of it
// run by the PTX model (model/ptx_machine.h) for a sample of its blocks, with the launch's own
// arguments and buffers filled as its `arg` lines say from the run's seed (so a histogram's bins
// land where the GPU's do). Each warp-level access of the file's lines goes through the same
// access model as a bundled kernel's sites; a site is a line's accesses of one space, op and width.
// Where the model stops (an instruction it does not run, an address it cannot know, a fault, a
// loop past its budget) the line says why, and the rest of the kernel is still predicted.

#include "kernel_file/compile.h"
#include "model/compiled_model.h"
#include "model/ptx_program.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace wl {

// One of the launch's arguments as the model passes it: a buffer (its bytes filled on demand) or
// a scalar's bytes.
struct FileModelArgument {
  int buffer = -1;              // index into FileModelInputs::buffers; -1 for a scalar
  std::vector<std::byte> value; // a scalar's bytes as the kernel's parameter holds them
};

struct FileModelBuffer {
  std::uint64_t bytes = 0;
  // Writes the buffer's bytes [offset, offset + into.size()) as the GPU gets them.
  std::function<void(std::uint64_t offset, std::span<std::byte> into)> fill;
};

// What one launch of a file's kernel is given, for a set of parameters and a block.
struct FileModelInputs {
  std::vector<FileModelBuffer> buffers;
  std::vector<FileModelArgument> arguments;
  std::uint32_t dynamic_shared_bytes = 0;
};

// The model of one compiled kernel of a file: `inputs` gives, for a launch (its parameters and
// block), what the launch is given; `file_name` is the file's name as NVRTC knew it, whose lines
// the sites are (another file's, a library header's, are noted, not sites).
class FileAccessModel : public CompiledAccessModel {
public:
  FileAccessModel(std::shared_ptr<const CompiledKernelFile> compiled, std::string mangled,
                  std::string file_name, std::function<FileModelInputs(const LaunchShape&)> inputs);

  LaunchPrediction predict(const LaunchShape& launch, const ModelBudget& budget) const override;
  std::optional<WarpAccess> lanes(const LaunchShape& launch, const SitePrediction& site,
                                  Coord block, int warp, std::int64_t iteration) const override;

private:
  std::shared_ptr<const CompiledKernelFile> m_compiled;
  std::shared_ptr<const PtxProgram> m_program; // null where the PTX could not be read:
  std::string m_unread;                        // why
  std::string m_mangled, m_file_name;
  int m_file_index = -1; // the file's index among the PTX's .file entries
  std::function<FileModelInputs(const LaunchShape&)> m_inputs;
};

// Warp instructions the model may run for one evaluation of ModelBudget (a bundled kernel's
// warp-iteration of one site): about what the two cost.
inline constexpr std::int64_t kWarpInstructionsPerEvaluation = 4;

} // namespace wl
