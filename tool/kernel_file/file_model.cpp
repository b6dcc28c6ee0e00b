#include "kernel_file/file_model.h"

#include "base/error.h"
#include "base/text_format.h"
#include "model/access_sums.h"
#include "model/block_classes.h"
#include "model/ptx_machine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

namespace wl {

namespace {

// Buffers sit on 256-byte aligned bases 64 GiB apart (one past another's end where it is
// larger), as separate cudaMalloc calls place them, below the model's own variables.
constexpr std::uint64_t kBufferSpacing = std::uint64_t{1} << 36;

std::vector<std::uint64_t> buffer_bases(const FileModelInputs& inputs) {
  std::vector<std::uint64_t> bases;
  std::uint64_t next = kBufferSpacing;
  for (const FileModelBuffer& b : inputs.buffers) {
    bases.push_back(next);
    next += (b.bytes / kBufferSpacing + 1) * kBufferSpacing;
  }
  return bases;
}

// A site's identity: the file's line, and the kind and width of its accesses.
using SiteKey = std::tuple<int, MemorySpace, AccessOp, int>;

std::optional<MemorySpace> space_of(PtxSpace space) {
  if (space == PtxSpace::global)
    return MemorySpace::global;
  if (space == PtxSpace::shared)
    return MemorySpace::shared;
  return std::nullopt; // local, constant, param: no sector or bank figure of the panels
}

AccessOp op_of(PtxOp op) {
  return op == PtxOp::load    ? AccessOp::load
         : op == PtxOp::store ? AccessOp::store
                              : AccessOp::atomic;
}

std::string site_name(const SiteKey& key) {
  const auto& [line, space, op, width] = key;
  return "line " + std::to_string(line) + ": " + space_name(space) + " " + op_name(op) + ", " +
         std::to_string(width) + " B";
}

// The machine for one launch: the kernel, its buffers filled on demand, its arguments' bytes.
struct Prepared {
  PtxMachine machine;
  PtxLaunch launch;
};

Prepared prepare(const PtxProgram& program, const std::string& mangled,
                 const FileModelInputs& inputs, const LaunchShape& shape) {
  Prepared p{PtxMachine(program, mangled), PtxLaunch{}};
  const std::vector<std::uint64_t> bases = buffer_bases(inputs);
  for (std::size_t b = 0; b < inputs.buffers.size(); ++b)
    p.machine.add_lazy_buffer(bases[b], inputs.buffers[b].bytes, inputs.buffers[b].fill);
  p.launch.grid = {static_cast<unsigned>(shape.grid.x), static_cast<unsigned>(shape.grid.y),
                   static_cast<unsigned>(shape.grid.z)};
  p.launch.block = {static_cast<unsigned>(shape.block.x), static_cast<unsigned>(shape.block.y),
                    static_cast<unsigned>(shape.block.z)};
  p.launch.dynamic_shared_bytes = inputs.dynamic_shared_bytes;
  for (const FileModelArgument& a : inputs.arguments) {
    if (a.buffer < 0) {
      p.launch.params.push_back(a.value);
      continue;
    }
    std::vector<std::byte> pointer(8);
    const std::uint64_t address = bases[static_cast<std::size_t>(a.buffer)];
    std::memcpy(pointer.data(), &address, 8);
    p.launch.params.push_back(std::move(pointer));
  }
  return p;
}

Dim3 dim3_of(Coord block) {
  return {static_cast<unsigned>(block.x), static_cast<unsigned>(block.y),
          static_cast<unsigned>(block.z)};
}

int warps_of(const LaunchShape& launch) {
  return static_cast<int>((launch.block.threads() + kWarpSize - 1) / kWarpSize);
}

// What the sampled blocks of one class add up to, per site, and what else they met.
struct ClassSums {
  std::map<SiteKey, AccessSums> sites;
  std::map<std::pair<SiteKey, int>, double> dram_reads; // (site, buffer) -> its loads' DRAM bytes
  std::int64_t blocks = 0, warp_instructions = 0;
};

// The buffers' address ranges, to say which one a load reads.
struct BufferRanges {
  std::vector<std::uint64_t> bases, bytes;

  int buffer_at(std::uint64_t address) const {
    for (std::size_t b = 0; b < bases.size(); ++b)
      if (address >= bases[b] && address - bases[b] < bytes[b])
        return static_cast<int>(b);
    return -1;
  }
};

BufferRanges buffer_ranges(const FileModelInputs& inputs) {
  BufferRanges r{buffer_bases(inputs), {}};
  for (const FileModelBuffer& b : inputs.buffers)
    r.bytes.push_back(b.bytes);
  return r;
}

int first_active_lane(const WarpAccess& access) {
  for (int lane = 0; lane < kWarpSize; ++lane)
    if (access.active(lane))
      return lane;
  return -1;
}

// Runs the blocks of a launch the budget allows and sums their accesses per site.
class Sampler {
public:
  Sampler(const PtxProgram& program, const PtxFunction& kernel, int file_index,
          std::string file_name, BufferRanges buffers)
      : m_program(program), m_kernel(kernel), m_file_index(file_index),
        m_file_name(std::move(file_name)), m_buffers(std::move(buffers)) {}

  // One block's accesses into `sums`; its stops into the notes.
  void run(Prepared& p, Coord block, std::int64_t budget, ClassSums& sums) {
    std::map<std::tuple<SiteKey, int>, std::int64_t> runs; // (site, warp) -> times run
    const PtxBlockRun run = p.machine.run_block(
        p.launch, dim3_of(block), PtxBudget{std::max<std::int64_t>(budget, 1000)},
        [&](const PtxAccess& a) {
          const std::optional<MemorySpace> space = space_of(a.space);
          if (!space)
            return;
          const int line = line_of(a);
          if (line <= 0)
            return;
          const SiteKey key{line, *space, op_of(a.op), a.lanes.width};
          AccessSums& site = sums.sites[key];
          const double dram_before = site.dram_bytes;
          site.add(a.lanes, *space, op_of(a.op));
          if (*space == MemorySpace::global && a.op == PtxOp::load)
            if (const int lane = first_active_lane(a.lanes); lane >= 0)
              sums.dram_reads[{key, m_buffers.buffer_at(a.lanes.address[lane])}] +=
                  site.dram_bytes - dram_before;
          m_iterations[key] = std::max(m_iterations[key], ++runs[{key, a.warp}]);
        });
    sums.warp_instructions += run.warp_instructions;
    ++sums.blocks;
    for (const PtxStop& stop : run.stops)
      note(stop, block);
    m_unfinished = m_unfinished || !run.completed;
  }

  bool unfinished() const { return m_unfinished; }

  std::int64_t iterations(const SiteKey& key) const {
    const auto found = m_iterations.find(key);
    return found == m_iterations.end() ? 1 : found->second;
  }

  // `predicted`: whether any site was found, to whose counts an unfinished block matters.
  std::vector<LineNote> notes(bool predicted) const {
    std::vector<LineNote> notes;
    for (const auto& [line, reasons] : m_notes)
      for (const auto& [reason, blocks] : reasons)
        notes.push_back({line, reason + " (" + blocks_named(blocks) + ")"});
    if (m_unfinished && predicted)
      notes.push_back({0, "some blocks run did not reach their end (their lines say why): the "
                          "counts of the lines past where they stopped are of the part run, scaled "
                          "by the blocks; their per-request figures hold"});
    if (m_lineless > 0)
      notes.push_back({0, format_count(m_lineless) +
                              " accesses of the sampled warps stand on no "
                              "line of " +
                              m_file_name +
                              " (the compiler placed them on line 0: code it made, such as a load "
                              "moved above a branch): left out of the table"});
    for (const auto& [file, count] : m_elsewhere)
      notes.push_back({0, format_count(count) +
                              " accesses of the sampled warps stand on lines of " + file +
                              ", not of " + m_file_name +
                              ": a library's or a header's own code, left out of the table"});
    return notes;
  }

private:
  // The line of the file an access stands on: its own where the compiler put it there, else the
  // call site in the file it was inlined from; 0 for another file's (a library header's code).
  int line_of(const PtxAccess& a) {
    if (a.file == m_file_index) {
      if (a.line <= 0) // the compiler's own code, such as a load it moved above a branch
        ++m_lineless;
      return a.line;
    }
    const PtxSource& source = m_kernel.instructions[static_cast<std::size_t>(a.instruction)].source;
    if (source.inlined_file == m_file_index && source.inlined_line > 0)
      return source.inlined_line;
    ++m_elsewhere[std::filesystem::path(m_program.file_path(a.file)).filename().string()];
    return 0;
  }

  // "block (0, 0, 0)", "blocks (0, 0, 0), (1, 0, 0)": where a stop happened.
  static std::string blocks_named(const std::vector<Coord>& blocks) {
    std::string named = blocks.size() == 1 ? "block " : "blocks ";
    for (std::size_t b = 0; b < blocks.size(); ++b)
      named += (b ? ", (" : "(") + std::to_string(blocks[b].x) + ", " +
               std::to_string(blocks[b].y) + ", " + std::to_string(blocks[b].z) + ")";
    return named;
  }

  // A stop as a line's note: on the file's line, its reason without the machine's "line N"
  // (the table's note names the line); on another file's, that file's name before it. The blocks
  // it happened in are gathered under one note a reason.
  void note(const PtxStop& stop, Coord block) {
    const bool ours = stop.file == m_file_index && stop.line > 0;
    std::string reason = stop.reason;
    const std::string place = "line " + std::to_string(stop.line);
    if (stop.line > 0 && reason.starts_with(place)) {
      reason.erase(0, place.size());
      reason.erase(0, reason.find_first_not_of(",: "));
    }
    if (!ours && stop.line > 0)
      reason = std::filesystem::path(m_program.file_path(stop.file)).filename().string() +
               ", line " + std::to_string(stop.line) + ": " + reason;
    std::map<std::string, std::vector<Coord>>& reasons = m_notes[ours ? stop.line : 0];
    const auto found = reasons.find(reason);
    if (found == reasons.end() && reasons.size() < kMostReasonsALine)
      reasons[reason].push_back(block);
    else if (found != reasons.end() && found->second.size() < kMostBlocksNamed)
      found->second.push_back(block);
  }

  // Enough to see a pattern (the edge blocks and one inside), few enough to read.
  static constexpr std::size_t kMostReasonsALine = 8, kMostBlocksNamed = 4;

  const PtxProgram& m_program;
  const PtxFunction& m_kernel;
  int m_file_index;
  std::string m_file_name;
  BufferRanges m_buffers;
  std::map<SiteKey, std::int64_t> m_iterations;
  std::map<int, std::map<std::string, std::vector<Coord>>> m_notes; // line -> reason -> blocks
  std::map<std::string, std::int64_t> m_elsewhere;
  std::int64_t m_lineless = 0; // accesses the compiler placed on line 0 of the file
  bool m_unfinished = false;
};

// Blocks of a class run at most: a block's set-up costs about what a small block's warps do, and
// the blocks of a class are alike but for their data (a histogram's bins): a few dozen show it.
constexpr std::int64_t kMostSampledBlocks = 16;

// Evenly spaced indices of [0, count), `taken` of them, shifted by a fixed offset so the same
// launch always gets the same sample.
std::int64_t spaced(std::int64_t j, std::int64_t count, std::int64_t taken) {
  if (taken >= count)
    return j;
  return std::min(count - 1, static_cast<std::int64_t>((static_cast<double>(j) + 0.5) *
                                                       static_cast<double>(count) /
                                                       static_cast<double>(taken)));
}

} // namespace

FileAccessModel::FileAccessModel(std::shared_ptr<const CompiledKernelFile> compiled,
                                 std::string mangled, std::string file_name,
                                 std::function<FileModelInputs(const LaunchShape&)> inputs)
    : m_compiled(std::move(compiled)), m_mangled(std::move(mangled)),
      m_file_name(std::move(file_name)), m_inputs(std::move(inputs)) {
  try {
    m_program = std::make_shared<const PtxProgram>(parse_ptx(m_compiled->ptx));
  } catch (const UsageError& e) { // PTX the model's reader does not know: said on the lines
    m_unread = e.what();
    return;
  }
  for (const PtxFile& f : m_program->files)
    if (std::filesystem::path(f.path).filename() == m_file_name)
      m_file_index = f.index;
}

namespace {

// Runs the first block of each class, then as many more of each as its share of the budget buys
// at what its first one cost, evenly spaced.
void sample_classes(Sampler& sampler, Prepared& p, const std::vector<BlockClass>& classes,
                    std::int64_t total, std::vector<ClassSums>& sums) {
  std::int64_t spent = 0;
  for (std::size_t c = 0; c < classes.size(); ++c) {
    sampler.run(p, classes[c].block(0), total, sums[c]);
    spent += sums[c].warp_instructions;
  }
  const std::int64_t share =
      std::max<std::int64_t>(0, total - spent) / static_cast<std::int64_t>(classes.size());
  for (std::size_t c = 0; c < classes.size(); ++c) {
    const std::int64_t cost = std::max<std::int64_t>(1, sums[c].warp_instructions);
    const std::int64_t more =
        std::min({classes[c].count() - 1, share / cost, kMostSampledBlocks - 1});
    for (std::int64_t j = 0; j < more; ++j)
      sampler.run(p, classes[c].block(1 + spaced(j, classes[c].count() - 1, more)), share, sums[c]);
  }
}

// DRAM reads a buffer at most once when the warps sharing its segments run close together, as
// the bundled kernels' model says (cap_dram_reads_at_buffers): each buffer's loads are capped at
// its size in whole segments, shared among the lines that read it.
void cap_dram_reads(std::map<SiteKey, AccessSums>& sites,
                    const std::map<std::pair<SiteKey, int>, double>& reads,
                    const BufferRanges& buffers) {
  std::map<int, double> per_buffer;
  for (const auto& [at, bytes] : reads)
    per_buffer[at.second] += bytes;
  for (const auto& [at, bytes] : reads) {
    const int buffer = at.second;
    if (buffer < 0)
      continue; // a load of no buffer of the launch's (a __device__ variable): not capped
    const double size = static_cast<double>(buffers.bytes[static_cast<std::size_t>(buffer)]);
    const double cap = dram_read_cap(size), read = per_buffer[buffer];
    if (read > cap)
      sites[at.first].dram_bytes -= bytes * (1 - cap / read);
  }
}

} // namespace

LaunchPrediction FileAccessModel::predict(const LaunchShape& launch,
                                          const ModelBudget& budget) const {
  const auto start = std::chrono::steady_clock::now();
  LaunchPrediction prediction;
  prediction.from_code = true;
  prediction.file = m_file_name;
  if (!m_program) {
    prediction.notes.push_back({0, "the model cannot read this kernel's PTX (" + m_unread +
                                       "), so nothing on its lines is predicted"});
    return prediction;
  }
  const FileModelInputs inputs = m_inputs(launch);
  Prepared p = prepare(*m_program, m_mangled, inputs, launch);
  const PtxFunction* kernel = m_program->find_function(m_mangled);
  if (!kernel)
    throw UsageError(m_file_name + ": its PTX has no kernel " + m_mangled);
  const BufferRanges buffers = buffer_ranges(inputs);
  Sampler sampler(*m_program, *kernel, m_file_index, m_file_name, buffers);
  const std::int64_t total = budget.max_evaluations > 0
                                 ? budget.max_evaluations * kWarpInstructionsPerEvaluation
                                 : kMaxModelEvaluations * kWarpInstructionsPerEvaluation;
  const std::vector<BlockClass> classes = block_classes(launch.grid, FirstBlocks::apart);
  std::vector<ClassSums> sums(classes.size());
  sample_classes(sampler, p, classes, total, sums);
  // Each class scaled to its count, the sites in line order. A block that stopped before its end
  // leaves its later lines short, so nothing is exact then.
  std::map<SiteKey, AccessSums> total_sums;
  std::map<std::pair<SiteKey, int>, double> dram_reads;
  bool exact = !sampler.unfinished();
  for (std::size_t c = 0; c < classes.size(); ++c) {
    const double scale =
        static_cast<double>(classes[c].count()) / static_cast<double>(sums[c].blocks);
    exact = exact && sums[c].blocks == classes[c].count();
    for (const auto& [key, site] : sums[c].sites)
      total_sums[key].add(site, scale);
    for (const auto& [at, bytes] : sums[c].dram_reads)
      dram_reads[at] += bytes * scale;
    prediction.warp_iterations += classes[c].count() * warps_of(launch);
    prediction.warp_iterations_evaluated += sums[c].blocks * warps_of(launch);
  }
  cap_dram_reads(total_sums, dram_reads, buffers);
  for (const auto& [key, site] : total_sums) {
    SitePrediction s = site.prediction(site_name(key), std::get<1>(key), std::get<2>(key),
                                       std::get<3>(key), exact);
    s.line = std::get<0>(key);
    s.iterations = sampler.iterations(key);
    prediction.sites.push_back(std::move(s));
  }
  prediction.notes = sampler.notes(!prediction.sites.empty());
  prediction.unfinished = sampler.unfinished();
  prediction.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return prediction;
}

std::optional<WarpAccess> FileAccessModel::lanes(const LaunchShape& launch,
                                                 const SitePrediction& site, Coord block, int warp,
                                                 std::int64_t iteration) const {
  const PtxFunction* kernel = m_program ? m_program->find_function(m_mangled) : nullptr;
  if (!kernel)
    return std::nullopt;
  Prepared p = prepare(*m_program, m_mangled, m_inputs(launch), launch);
  std::optional<WarpAccess> found;
  std::int64_t seen = 0;
  p.machine.run_block(p.launch, dim3_of(block), PtxBudget{}, [&](const PtxAccess& a) {
    const std::optional<MemorySpace> space = space_of(a.space);
    if (found || a.warp != warp || !space || *space != site.space || op_of(a.op) != site.op ||
        a.lanes.width != site.width)
      return;
    const PtxSource& source = kernel->instructions[static_cast<std::size_t>(a.instruction)].source;
    const int line = a.file == m_file_index                ? a.line
                     : source.inlined_file == m_file_index ? source.inlined_line
                                                           : 0;
    if (line == site.line && seen++ == iteration)
      found = a.lanes;
  });
  return found;
}

} // namespace wl
