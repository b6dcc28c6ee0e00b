#include "report/stall_report.h"

#include "base/error.h"
#include "base/json_fields.h"
#include "base/text_format.h"
#include "model/run_options.h"

#include <array>
#include <limits>

namespace wl {

namespace {

using nlohmann::json;

// The words are ours, after the Nsight Compute Profiling Guide's descriptions of its warp states.
constexpr std::array kStallMeanings = {
    StallMeaning{"barrier", "waiting at __syncthreads for the other warps of its block",
                 Panel::source},
    StallMeaning{"branch_resolving", "waiting for a branch's target to be worked out",
                 Panel::divergence},
    StallMeaning{"dispatch_stall", "chosen, but the dispatcher could not send the instruction",
                 std::nullopt},
    StallMeaning{"drain", "at its exit, waiting for its stores to drain to memory",
                 Panel::global_memory},
    StallMeaning{"imc_miss", "waiting for a constant-cache miss", std::nullopt},
    StallMeaning{"lg_throttle",
                 "the queue of global and local memory instructions is full: too many in flight",
                 Panel::global_memory},
    StallMeaning{"long_scoreboard",
                 "waiting for a global or local memory load (L1TEX) to return its data",
                 Panel::global_memory},
    StallMeaning{"math_pipe_throttle", "the math pipe it needs is busy with other warps' work",
                 Panel::roofline},
    StallMeaning{"membar", "waiting at a memory fence", std::nullopt},
    StallMeaning{"mio_throttle",
                 "the shared-memory and special-math instruction queue (MIO) is full",
                 Panel::shared_memory},
    StallMeaning{"misc", "a reason the hardware does not name", std::nullopt},
    StallMeaning{"no_instruction", "no instruction fetched yet (an instruction-cache miss)",
                 std::nullopt},
    StallMeaning{"not_selected",
                 "ready, but another warp issued: more ready warps than the scheduler needs",
                 Panel::occupancy},
    StallMeaning{"selected", "issuing an instruction: no stall", std::nullopt},
    StallMeaning{"short_scoreboard",
                 "waiting for a shared-memory load or a special-math result (MIO)",
                 Panel::shared_memory},
    StallMeaning{"sleeping", "asleep (__nanosleep) or with every thread waiting", std::nullopt},
    StallMeaning{"tex_throttle", "the texture queue is full", std::nullopt},
    StallMeaning{"wait",
                 "waiting a fixed number of cycles for the result of the instruction before",
                 std::nullopt},
    StallMeaning{"gmma", "waiting for a warpgroup matrix multiply (wgmma) to finish", std::nullopt},
    StallMeaning{"warpgroup_arrive",
                 "waiting at a warpgroup's arrive fence before a matrix multiply (wgmma)",
                 std::nullopt},
    StallMeaning{"other", "a reason CUPTI names and this WarpLens does not know", std::nullopt},
};

std::string reason_row(const StallCount& c, std::uint64_t whole) {
  const StallMeaning& meaning = stall_meaning(c.reason);
  std::string row =
      format("  %-18s %7s  %s", c.reason.c_str(), stall_percent(c.samples, whole).c_str(),
             std::string(meaning.words).c_str());
  if (meaning.panel)
    row += " (see " + std::string(panel_title(*meaning.panel)) + ")";
  return row + "\n";
}

// "long_scoreboard 58.1 %, wait 3.2 %": a line's reasons, its top three, as shares of the launch.
std::string top_reasons(const std::vector<StallCount>& reasons, std::uint64_t whole) {
  std::string text;
  for (std::size_t i = 0; i < reasons.size() && i < 3; ++i)
    text += (i ? ", " : "") + reasons[i].reason + " " + stall_percent(reasons[i].samples, whole);
  return text;
}

// An SM's four schedulers issue one instruction each a cycle at most.
constexpr double kIssuesPerSmCycle = 4;
// Past this share of the issue slots the schedulers are mostly busy: waiting is not the limit.
constexpr double kBusyIssueShare = 0.6;

} // namespace

std::optional<IssueUse> issue_use(const RunResult& r) {
  if (!r.counters || !r.counters->available || r.arch.sm_count <= 0)
    return std::nullopt;
  const CounterValue* executed = r.counters->find("warp_instructions");
  const CounterValue* cycles = r.counters->find("sm_active_cycles");
  if (!executed || !cycles || !(cycles->value > 0))
    return std::nullopt;
  IssueUse use;
  use.per_cycle = executed->value / (cycles->value * r.arch.sm_count);
  use.share = use.per_cycle / kIssuesPerSmCycle;
  return use;
}

std::string issue_use_text(const RunResult& r) {
  const std::optional<IssueUse> use = issue_use(r);
  if (!use)
    return "";
  return format("The schedulers issued %.2f of 4 instructions per SM per active cycle (%s): ",
                use->per_cycle, format_percent(100 * use->share).c_str()) +
         (use->share < kBusyIssueShare
              ? "the warps waited most cycles, so the reasons below are where the time went."
              : "they were mostly busy, so the kernel is limited by its instructions more than by "
                "waiting.");
}

double stall_share(std::uint64_t part, std::uint64_t whole) {
  return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0;
}

std::string stall_percent(std::uint64_t part, std::uint64_t whole) {
  return format_percent(100 * stall_share(part, whole));
}

const StallMeaning& stall_meaning(std::string_view reason) {
  for (const StallMeaning& m : kStallMeanings)
    if (m.reason == reason)
      return m;
  return kStallMeanings.back(); // "other"
}

std::string stalls_text(const RunResult& r) {
  if (!r.stalls)
    return "";
  const StallSamples& s = *r.stalls;
  if (!s.available)
    return "\nwarp stalls: not sampled (" + s.reason + ")\n";
  const std::uint64_t whole = s.samples();
  std::string text =
      format("\nwarp stalls (PC sampling: an SM's warp every %s cycles; %s samples "
             "of %s, %s dropped, in %.2f s)\n",
             format_count(std::int64_t{1} << s.period).c_str(),
             format_count(static_cast<std::int64_t>(whole)).c_str(), s.function.c_str(),
             format_count(static_cast<std::int64_t>(s.dropped_samples)).c_str(), s.seconds);
  if (!s.reason.empty())
    text += "  note: " + s.reason + "\n";
  if (const std::string use = issue_use_text(r); !use.empty())
    text += "  " + use + "\n";
  for (const StallCount& c : s.launch)
    if (c.samples > 0)
      text += reason_row(c, whole);
  if (!s.unnamed.empty())
    text += "  other: " + joined(s.unnamed, ", ") + "\n";
  std::string lines;
  for (const StalledLine& l : s.lines)
    if (whole && static_cast<double>(l.samples) >= kStallLineShare * static_cast<double>(whole))
      lines += format("  line %-5d %7s  %s\n", l.line, stall_percent(l.samples, whole).c_str(),
                      top_reasons(l.reasons, whole).c_str());
  if (!lines.empty())
    text += format("lines of %s with at least %.0f %% of the samples:\n", s.file.c_str(),
                   100 * kStallLineShare) +
            lines;
  return text;
}

std::vector<std::string> stall_csv_headers() {
  std::vector<std::string> headers = {"stall_samples"};
  for (const std::string& reason : stall_reasons())
    headers.push_back("stall_" + reason);
  return headers;
}

std::vector<std::string> stall_csv_cells(const RunResult& r) {
  std::vector<std::string> cells(stall_reasons().size() + 1);
  if (!r.stalls || !r.stalls->available)
    return cells;
  const std::uint64_t whole = r.stalls->samples();
  cells[0] = std::to_string(whole);
  for (std::size_t i = 0; i < stall_reasons().size(); ++i) {
    std::uint64_t samples = 0;
    for (const StallCount& c : r.stalls->launch)
      if (c.reason == stall_reasons()[i])
        samples = c.samples;
    cells[i + 1] = format(
        "%.2f", whole ? 100.0 * static_cast<double>(samples) / static_cast<double>(whole) : 0.0);
  }
  return cells;
}

namespace {

json counts_json(const std::vector<StallCount>& counts) {
  json out = json::array();
  for (const StallCount& c : counts)
    out.push_back({{"reason", c.reason}, {"samples", c.samples}, {"not_issued", c.not_issued}});
  return out;
}

} // namespace

json stall_samples_json(const StallSamples& s) {
  json instructions = json::array();
  for (const StalledInstruction& i : s.instructions)
    instructions.push_back({{"pc", i.pc},
                            {"sass", i.sass},
                            {"file", i.file},
                            {"line", i.line},
                            {"reasons", counts_json(i.reasons)}});
  json lines = json::array();
  for (const StalledLine& l : s.lines)
    lines.push_back(
        {{"line", l.line}, {"samples", l.samples}, {"reasons", counts_json(l.reasons)}});
  return {{"available", s.available},
          {"reason", s.reason},
          {"function", s.function},
          {"file", s.file},
          {"period", s.period},
          {"total_samples", s.total_samples},
          {"dropped_samples", s.dropped_samples},
          {"unnamed", s.unnamed},
          {"seconds", s.seconds},
          {"samples", s.samples()},
          {"launch", counts_json(s.launch)},
          {"lines", lines},
          {"instructions", instructions}};
}

namespace {

// Samples are whole counts; a launch has far fewer than 2^53, where a double still holds each.
constexpr std::int64_t kMostSamples = std::int64_t{1} << 53;

std::uint64_t samples_of(const Fields& f, const char* key) {
  return static_cast<std::uint64_t>(f.integer(key, 0, kMostSamples));
}

std::vector<StallCount> counts_from(const Fields& f, const char* key) {
  std::vector<StallCount> counts;
  for (const Fields& c : f.objects(key, stall_reasons().size())) {
    c.only({"reason", "samples", "not_issued"}, "a stall reason's samples");
    StallCount count{.reason = c.choice("reason", stall_reasons()),
                     .samples = samples_of(c, "samples"),
                     .not_issued = samples_of(c, "not_issued")};
    if (count.not_issued > count.samples)
      c.fail("not_issued", std::to_string(count.not_issued),
             "at most the reason's samples (" + std::to_string(count.samples) + ")");
    for (const StallCount& before : counts)
      if (before.reason == count.reason)
        c.fail("reason", count.reason, "each reason once");
    counts.push_back(std::move(count));
  }
  return counts;
}

bool same_counts(std::vector<StallCount> a, std::vector<StallCount> b) {
  sort_stall_counts(a);
  sort_stall_counts(b);
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].reason != b[i].reason || a[i].samples != b[i].samples ||
        a[i].not_issued != b[i].not_issued)
      return false;
  return true;
}

// The launch's and the lines' sums, as given, held to the instructions' own.
void check_sums(const Fields& f, const StallSamples& read) {
  StallSamples summed = read;
  summarise_stalls(summed);
  if (!same_counts(counts_from(f, "launch"), summed.launch))
    f.fail("launch", "reasons that are not the instructions' sums",
           "the sum of every instruction's samples per reason");
  const std::vector<Fields> lines = f.objects("lines");
  if (lines.size() != summed.lines.size())
    f.fail("lines", std::to_string(lines.size()) + " lines",
           "one per line of " + read.file + " its instructions are on (" +
               std::to_string(summed.lines.size()) + ")");
  for (std::size_t i = 0; i < lines.size(); ++i) {
    lines[i].only({"line", "samples", "reasons"}, "a line's samples");
    const StalledLine& want = summed.lines[i];
    if (lines[i].integer("line", 1, std::numeric_limits<int>::max()) != want.line ||
        samples_of(lines[i], "samples") != want.samples ||
        !same_counts(counts_from(lines[i], "reasons"), want.reasons))
      lines[i].fail("line", std::to_string(lines[i].integer("line", 1, kMostSamples)),
                    "the lines in order, each with the sum of its instructions' samples (line " +
                        std::to_string(want.line) + ": " + std::to_string(want.samples) + ")");
  }
}

} // namespace

StallSamples stall_samples_from_json(const json& j, const std::string& where) {
  const Fields f(j, where, "stalls.");
  f.only({"available", "reason", "function", "file", "period", "total_samples", "dropped_samples",
          "unnamed", "seconds", "samples", "launch", "lines", "instructions"},
         "the stall samples");
  StallSamples s;
  s.available = f.boolean("available");
  s.reason = f.text("reason");
  s.function = f.text("function");
  s.file = f.text("file");
  s.period = static_cast<int>(f.integer("period", s.available ? 5 : 0, 31));
  s.total_samples = samples_of(f, "total_samples");
  s.dropped_samples = samples_of(f, "dropped_samples");
  s.unnamed = f.texts("unnamed");
  s.seconds = f.number("seconds", 0, kMaxRequestSeconds);
  std::uint32_t last_pc = 0;
  for (const Fields& i : f.objects("instructions")) {
    i.only({"pc", "sass", "file", "line", "reasons"}, "a sampled instruction");
    StalledInstruction instruction{
        .pc = static_cast<std::uint32_t>(
            i.integer("pc", 0, std::numeric_limits<std::uint32_t>::max())),
        .sass = i.text("sass"),
        .file = i.text("file"),
        .line = static_cast<int>(i.integer("line", 0, std::numeric_limits<int>::max())),
        .reasons = counts_from(i, "reasons")};
    if (!s.instructions.empty() && instruction.pc <= last_pc)
      i.fail("pc", std::to_string(instruction.pc),
             "each instruction once, in increasing order (after " + std::to_string(last_pc) + ")");
    last_pc = instruction.pc;
    s.instructions.push_back(std::move(instruction));
  }
  double sum = 0; // in a double, which cannot wrap: every count is at most 2^53 already
  for (const StalledInstruction& i : s.instructions)
    for (const StallCount& c : i.reasons)
      sum += static_cast<double>(c.samples);
  if (sum > static_cast<double>(kMostSamples))
    f.fail("instructions", format("%.0f samples in all", sum),
           "at most 2^53 samples over the launch");
  if (!s.available && !s.instructions.empty())
    f.fail("instructions", std::to_string(s.instructions.size()) + " instructions",
           "none when the samples are not available");
  check_sums(f, s);
  summarise_stalls(s);
  if (samples_of(f, "samples") != s.samples())
    f.fail("samples", std::to_string(samples_of(f, "samples")),
           "the sum of every instruction's samples (" + std::to_string(s.samples()) + ")");
  return s;
}

} // namespace wl
