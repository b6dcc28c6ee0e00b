#include "model/site_counts.h"

#include "base/text_format.h"
#include "model/kernel_source.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>

namespace wl {

const std::vector<std::string>& optional_sass_metrics() {
  static const std::vector<std::string> metrics = {
      "smsp__sass_inst_executed_op_ldgsts",
      "smsp__sass_thread_inst_executed_op_ldgsts_pred_on",
      "smsp__sass_inst_executed_op_global_atom",
      "smsp__sass_inst_executed_op_global_red",
      "smsp__sass_inst_executed_op_shared_atom",
  };
  return metrics;
}

const std::vector<std::string>& site_sass_metrics() {
  static const std::vector<std::string> metrics = [] {
    std::vector<std::string> names = {
        "smsp__sass_inst_executed", // issued, with every lane predicated off or not
        "smsp__sass_inst_executed_op_global_ld",
        "smsp__sass_inst_executed_op_global_st",
        "smsp__sass_inst_executed_op_shared_ld",
        "smsp__sass_inst_executed_op_shared_st",
        "smsp__sass_thread_inst_executed_op_global_pred_on",
        "smsp__sass_thread_inst_executed_op_shared_pred_on",
        "smsp__sass_inst_executed_op_memory_32b",
        "smsp__sass_inst_executed_op_memory_64b",
        "smsp__sass_inst_executed_op_memory_128b",
        "smsp__sass_sectors_mem_global",
        "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
    };
    names.insert(names.end(), optional_sass_metrics().begin(), optional_sass_metrics().end());
    return names;
  }();
  return metrics;
}

namespace {

// Each kind of access and the metric that counts its executions. A global atomic is an ATOM (its
// result used) or a RED (not): both are the source's one atomic, so both count as its executions.
struct AccessKind {
  MemorySpace space;
  AccessOp op;
  const char* metric;
};

constexpr AccessKind kAccessKinds[] = {
    {MemorySpace::global, AccessOp::load, "smsp__sass_inst_executed_op_global_ld"},
    {MemorySpace::global, AccessOp::store, "smsp__sass_inst_executed_op_global_st"},
    {MemorySpace::global, AccessOp::atomic, "smsp__sass_inst_executed_op_global_atom"},
    {MemorySpace::global, AccessOp::atomic, "smsp__sass_inst_executed_op_global_red"},
    {MemorySpace::shared, AccessOp::load, "smsp__sass_inst_executed_op_shared_ld"},
    {MemorySpace::shared, AccessOp::store, "smsp__sass_inst_executed_op_shared_st"},
    {MemorySpace::shared, AccessOp::atomic, "smsp__sass_inst_executed_op_shared_atom"},
};

} // namespace

const char* access_metric(MemorySpace space, AccessOp op) {
  for (const AccessKind& kind : kAccessKinds)
    if (kind.space == space && kind.op == op)
      return kind.metric; // the first: a global atomic's ATOM metric names RED's too
  return "";
}

const char* lanes_metric(MemorySpace space) {
  return space == MemorySpace::global ? "smsp__sass_thread_inst_executed_op_global_pred_on"
                                      : "smsp__sass_thread_inst_executed_op_shared_pred_on";
}

namespace {

// An instruction's value of a metric: 0 where the pass reported none.
double metric_value(const std::map<std::string, double>& values, const char* metric) {
  const auto found = values.find(metric);
  return found == values.end() ? 0.0 : found->second;
}

} // namespace

void add_to_line(LineIssues& line, const std::map<std::string, double>& values) {
  line.issued += metric_value(values, "smsp__sass_inst_executed");
  line.sectors += metric_value(values, "smsp__sass_sectors_mem_global");
  line.wavefronts += metric_value(values, "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared");
}

std::vector<MeasuredInstruction> memory_accesses(std::uint32_t pc,
                                                 const std::map<std::string, double>& values) {
  const auto value = [&](const char* metric) { return metric_value(values, metric); };
  MeasuredInstruction m;
  m.pc = pc;
  m.issued = value("smsp__sass_inst_executed");
  m.width = value("smsp__sass_inst_executed_op_memory_128b") > 0  ? 16
            : value("smsp__sass_inst_executed_op_memory_64b") > 0 ? 8
            : value("smsp__sass_inst_executed_op_memory_32b") > 0 ? 4
                                                                  : 0;
  if (const double copies = value("smsp__sass_inst_executed_op_ldgsts"); copies > 0) {
    m.executed = copies;
    m.async_copy = true;
    m.lanes = value("smsp__sass_thread_inst_executed_op_ldgsts_pred_on");
    MeasuredInstruction load = m, store = m;
    load.sectors = value("smsp__sass_sectors_mem_global");
    store.space = MemorySpace::shared;
    store.op = AccessOp::store;
    store.wavefronts = value("smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared");
    return {load, store};
  }
  for (const AccessKind& kind : kAccessKinds)
    if (const double executed = value(kind.metric); executed > 0) {
      m.space = kind.space;
      m.op = kind.op;
      m.executed = executed;
    }
  if (m.executed == 0)
    return {};
  m.lanes = value(lanes_metric(m.space));
  m.sectors = value("smsp__sass_sectors_mem_global");
  m.wavefronts = value("smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared");
  return {m};
}

namespace {

double relative(double measured, double predicted) {
  if (predicted == 0)
    return measured == 0 ? 0 : 1;
  return measured / predicted - 1;
}

// The figures a site is predicted, summed over the sites measured with it.
struct Predicted {
  double requests = 0, main = 0; // main: sectors (global) or wavefronts (shared)
  int width = 0;
  bool exact = true; // every site counted, not estimated from a sample
};

Predicted predicted_of(const LaunchPrediction& prediction, const std::vector<std::size_t>& sites) {
  Predicted p;
  for (const std::size_t s : sites) {
    const SitePrediction& site = prediction.sites[s];
    p.requests += static_cast<double>(site.requests);
    p.main += static_cast<double>(traffic(site, site.space));
    p.width = p.width == 0 ? site.width : std::min(p.width, site.width); // the narrowest
    p.exact = p.exact && site.exact;
  }
  return p;
}

// "LDS.128" where the SASS text is at hand, else "16-byte instruction": the widest instruction.
std::string wide_instruction(const SiteMeasurement& m, const SiteCounts& counts) {
  const MeasuredInstruction* widest = nullptr;
  for (const std::size_t i : m.instructions)
    if (!widest || counts.instructions[i].width > widest->width)
      widest = &counts.instructions[i];
  if (!widest->sass.empty()) { // "@!P0 LDS.128 R8, [R20]": the opcode after any predicate
    std::string text = widest->sass;
    if (text.front() == '@')
      text = text.substr(std::min(text.size(), text.find(' ') + 1));
    return text.substr(0, text.find(' '));
  }
  return std::to_string(widest->width) + "-byte instruction";
}

// What the SASS of an atomic shows, where it explains a difference: ptxas's compare-and-swap loop
// (a float add on shared memory, a 64-bit add), which runs once per retry. (An exchange or a
// compare-and-swap of one shared address is done lane by lane, and so modelled:
// WarpAccess::lane_passes.)
std::optional<std::string> atomic_reason(const SiteMeasurement& m, const Predicted& p,
                                         const SiteCounts& counts) {
  const MeasuredInstruction* swap = nullptr;
  for (const std::size_t i : m.instructions)
    if (!swap && counts.instructions[i].sass.find("CAS") != std::string::npos)
      swap = &counts.instructions[i];
  if (swap && m.executed > p.requests * (1 + kSiteTolerance)) {
    const std::string text =
        swap->sass.substr(swap->sass.front() == '@' ? swap->sass.find(' ') + 1 : 0);
    return format("ptxas made the atomic a compare-and-swap loop (%s): it runs again whenever "
                  "another lane changed the value first, %.0f warp executions for the %.0f "
                  "requests predicted; how often it retries is the GPU's timing, which the model "
                  "does not predict",
                  text.substr(0, text.find(' ')).c_str(), m.executed, p.requests);
  }
  return std::nullopt;
}

// Why a flagged site's figures differ from the model, as far as its instructions show.
std::string reason_from_sass(const SiteMeasurement& m, const Predicted& p, const SiteCounts& counts,
                             MemorySpace space, AccessOp op, bool unfinished) {
  const std::string what = op_name(op);
  if (m.instructions.empty())
    return "no " + access_kind(space, op) + " instruction on line " + std::to_string(m.line) +
           ": the compiler moved or removed the access";
  const bool per_request_equal = std::abs(m.difference) <= kSiteTolerance;
  if (unfinished && per_request_equal && m.executed > p.requests)
    return format("the model ran part of this line's work: its sampled blocks stopped before "
                  "their end (the notes say where), so its %.0f requests are of the part run; per "
                  "request its %s are as measured",
                  p.requests, space == MemorySpace::global ? "sectors" : "wavefronts");
  if (op == AccessOp::atomic)
    if (std::optional<std::string> why = atomic_reason(m, p, counts))
      return *why;
  const std::string instructions = std::to_string(m.instructions.size()) + " instruction" +
                                   (m.instructions.size() == 1 ? "" : "s");
  const bool copies = std::any_of(m.instructions.begin(), m.instructions.end(),
                                  [&](std::size_t i) { return counts.instructions[i].async_copy; });
  if (copies && space == MemorySpace::shared)
    return "LDGSTS (cp.async, " + instructions +
           " on the line) writes shared memory as its global data arrives: its wavefronts follow "
           "the sectors and lines it reads as well as the banks it writes, and the model counts "
           "the banks alone";
  if (copies && m.executed > p.requests * (1 + kSiteTolerance))
    return format("LDGSTS (cp.async, %s on the line) runs for the lanes past the matrices' "
                  "edges too, reading nothing and writing zeros: %.0f warp executions more than "
                  "the requests predicted",
                  instructions.c_str(), m.executed - p.requests);
  int widest = 0, narrowest = 1 << 30;
  for (const std::size_t i : m.instructions) {
    widest = std::max(widest, counts.instructions[i].width);
    narrowest = std::min(narrowest, counts.instructions[i].width);
  }
  if (narrowest > p.width && p.width > 0)
    return "the compiler merged " + std::to_string(narrowest / p.width) + " neighbouring " +
           std::to_string(p.width) + "-byte " + what + "s into one " + wide_instruction(m, counts) +
           " (" + instructions + " on the line)";
  if (widest < p.width && widest > 0) {
    // Into as many as the parts used (a float4 of which x and w are read: two), counted by the
    // executions a predicted request became.
    const long parts = p.requests > 0 ? std::lround(m.executed / p.requests) : p.width / widest;
    return "the compiler split each " + std::to_string(p.width) + "-byte " + what + " into " +
           std::to_string(parts) + " " + std::to_string(widest) + "-byte instructions (" +
           instructions + " on the line)";
  }
  if (m.executed < p.requests * (1 - kSiteTolerance) && widest > p.width && p.width > 0)
    return format("the compiler merged some of the line's %d-byte %ss into wider ones (up to %s): "
                  "%.0f warp executions for the %.0f requests predicted (%s on the line)",
                  p.width, what.c_str(), wide_instruction(m, counts).c_str(), m.executed,
                  p.requests, instructions.c_str());
  const double full_lanes = 32 * m.executed;
  if (m.executed > p.requests * (1 + kSiteTolerance) && m.lanes < full_lanes)
    return format("the %s is predicated off for %.1f %% of its lanes: %.0f warp executions more "
                  "than the requests predicted, with no lane on",
                  what.c_str(), 100 * (1 - m.lanes / full_lanes), m.executed - p.requests);
  return format("the %s on the line ran at the model's width, yet the %s differ by %.1f %%: the "
                "model's addresses are not the hardware's",
                instructions.c_str(), space == MemorySpace::global ? "sectors" : "wavefronts",
                100 * std::abs(m.difference));
}

// A line several sites share is an inlined helper reached from several places: its instructions
// come once per place, in the order of the places, each copy a run of nearby PCs (a loop in it
// may be unrolled in one copy and not in another), separated from the next copy by the code
// between the places. So the copies are the runs between the `copies - 1` widest PC gaps. Empty
// when there are fewer instructions than copies: the line's sites are then measured together.
std::vector<std::vector<std::size_t>> inlined_copies(const SiteCounts& counts,
                                                     const std::vector<std::size_t>& on_line,
                                                     std::size_t copies) {
  if (copies == 1)
    return {on_line};
  if (on_line.size() < copies)
    return {};
  std::vector<std::size_t> gaps(on_line.size() - 1); // gap i: between instruction i and i + 1
  for (std::size_t i = 0; i < gaps.size(); ++i)
    gaps[i] = i;
  const auto width = [&](std::size_t i) {
    return counts.instructions[on_line[i + 1]].pc - counts.instructions[on_line[i]].pc;
  };
  std::stable_sort(gaps.begin(), gaps.end(),
                   [&](std::size_t a, std::size_t b) { return width(a) > width(b); });
  std::vector<std::size_t> cuts(gaps.begin(), gaps.begin() + static_cast<long>(copies - 1));
  std::sort(cuts.begin(), cuts.end());
  std::vector<std::vector<std::size_t>> runs(1);
  for (std::size_t i = 0; i < on_line.size(); ++i) {
    runs.back().push_back(on_line[i]);
    if (std::binary_search(cuts.begin(), cuts.end(), i))
      runs.emplace_back();
  }
  return runs;
}

} // namespace

namespace {

void sort_and_sum(SiteCounts& counts, std::vector<MeasuredInstruction> instructions) {
  std::sort(instructions.begin(), instructions.end(),
            [](const auto& a, const auto& b) { return a.pc < b.pc; });
  counts.instructions = std::move(instructions);
  for (const MeasuredInstruction& i : counts.instructions) {
    counts.global_sectors += i.sectors;
    counts.shared_wavefronts += i.wavefronts;
  }
}

} // namespace

namespace {

// Where a site stands: its line of the kernel's file and its kind of access.
using Place = std::tuple<int, MemorySpace, AccessOp>;

// Whose sites: a bundled kernel's, written in its source (the sites sharing a place are an
// inlined helper's copies, and split its instructions: inlined_copies), or a kernel file's, found
// in its PTX (the sites sharing a place are measured together, and where the model sampled the
// launch, its sectors or wavefronts per request are what it knows exactly).
enum class SitesOf { bundled_kernel, kernel_file };

// Each site given its instructions (those at its place, `sites_at`) and compared with its
// prediction.
void compare_sites(SiteCounts& counts, const std::map<Place, std::vector<std::size_t>>& sites_at,
                   const std::map<Place, std::vector<std::size_t>>& instructions_at,
                   const LaunchPrediction& prediction, SitesOf of) {
  for (const auto& [place, sites] : sites_at) {
    const auto found = instructions_at.find(place);
    const std::vector<std::size_t> on_line =
        found == instructions_at.end() ? std::vector<std::size_t>{} : found->second;
    const std::vector<std::vector<std::size_t>> runs =
        of == SitesOf::bundled_kernel ? inlined_copies(counts, on_line, sites.size())
                                      : std::vector<std::vector<std::size_t>>{};
    for (std::size_t k = 0; k < sites.size(); ++k) {
      SiteMeasurement& m = counts.sites[sites[k]];
      m.line = std::get<0>(place);
      m.instructions = runs.empty() ? on_line : runs[k];
      if (runs.empty())
        for (const std::size_t other : sites)
          if (other != sites[k])
            m.measured_with.push_back(other);
      for (const std::size_t i : m.instructions) {
        const MeasuredInstruction& mi = counts.instructions[i];
        m.executed += mi.executed;
        m.issued += mi.issued;
        m.lanes += mi.lanes;
        m.sectors += mi.sectors;
        m.wavefronts += mi.wavefronts;
      }
      std::vector<std::size_t> together = m.measured_with;
      together.push_back(sites[k]);
      const Predicted p = predicted_of(prediction, together);
      const MemorySpace space = std::get<1>(place);
      m.difference = relative(traffic(m, space), p.main);
      m.request_difference = relative(m.executed, p.requests);
      const bool sampled = of == SitesOf::kernel_file && !p.exact;
      if (sampled)
        m.difference = relative(m.executed > 0 ? traffic(m, space) / m.executed : 0,
                                p.requests > 0 ? p.main / p.requests : 0);
      m.flagged = std::abs(m.difference) > kSiteTolerance ||
                  std::abs(m.request_difference) > (sampled ? kSampledTolerance : kSiteTolerance);
      if (m.flagged)
        m.reason = reason_from_sass(m, p, counts, space, std::get<2>(place),
                                    sampled && prediction.unfinished);
    }
  }
}

} // namespace

SiteCounts attribute_lines(const std::string& file, std::vector<MeasuredInstruction> instructions,
                           std::vector<LineIssues> lines, const LaunchPrediction& prediction) {
  SiteCounts counts;
  counts.file = file;
  sort_and_sum(counts, std::move(instructions));
  std::sort(lines.begin(), lines.end(),
            [](const auto& a, const auto& b) { return a.line < b.line; });
  counts.line_issues = std::move(lines);
  std::map<Place, std::vector<std::size_t>> sites_at, instructions_at;
  for (std::size_t s = 0; s < prediction.sites.size(); ++s)
    sites_at[{prediction.sites[s].line, prediction.sites[s].space, prediction.sites[s].op}]
        .push_back(s);
  for (std::size_t i = 0; i < counts.instructions.size(); ++i) {
    const MeasuredInstruction& m = counts.instructions[i];
    if (m.file != file || m.line <= 0)
      counts.unclaimed.push_back(i);
    else
      instructions_at[{m.line, m.space, m.op}].push_back(i);
  }
  // The file's sites are what its PTX does on a line: the accesses of one kind on one line are
  // compared together (ptxas may merge, split or reorder them).
  counts.sites.resize(prediction.sites.size());
  compare_sites(counts, sites_at, instructions_at, prediction, SitesOf::kernel_file);
  counts.available = true;
  return counts;
}

std::vector<LineMeasurement> measured_lines(const SiteCounts& counts) {
  std::map<int, LineMeasurement> lines;
  for (const LineIssues& l : counts.line_issues) {
    LineMeasurement& line = lines[l.line];
    line.issued += l.issued;
    line.sectors += l.sectors;
    line.wavefronts += l.wavefronts;
  }
  for (std::size_t i = 0; i < counts.instructions.size(); ++i) {
    const MeasuredInstruction& m = counts.instructions[i];
    if (m.file != counts.file || m.line <= 0)
      continue;
    LineMeasurement& line = lines[m.line];
    line.memory.push_back(i);
    (m.space == MemorySpace::global ? line.global_requests : line.shared_requests) += m.executed;
    line.access_sectors += m.sectors;
    line.access_wavefronts += m.wavefronts;
  }
  std::vector<LineMeasurement> ordered;
  for (auto& [number, line] : lines) {
    line.line = number;
    ordered.push_back(std::move(line));
  }
  return ordered;
}

SiteCounts attribute_sites(const KernelDesc& kernel, const Params& params,
                           const LaunchPrediction& prediction,
                           std::vector<MeasuredInstruction> instructions) {
  SiteCounts counts;
  const SiteLines lines = site_lines(kernel, params);
  counts.file = lines.file;
  sort_and_sum(counts, std::move(instructions));
  counts.sites.resize(kernel.sites.size());
  // Sites and instructions by (line, space, op), each in order.
  std::map<Place, std::vector<std::size_t>> sites_at, instructions_at;
  for (std::size_t s = 0; s < kernel.sites.size(); ++s)
    sites_at[{lines.lines[s], kernel.sites[s].space, kernel.sites[s].op}].push_back(s);
  for (std::size_t i = 0; i < counts.instructions.size(); ++i) {
    const MeasuredInstruction& m = counts.instructions[i];
    const Place place{m.file == lines.file ? m.line : -1, m.space, m.op};
    if (sites_at.count(place))
      instructions_at[place].push_back(i);
    else
      counts.unclaimed.push_back(i);
  }
  compare_sites(counts, sites_at, instructions_at, prediction, SitesOf::bundled_kernel);
  counts.available = true;
  return counts;
}

} // namespace wl
