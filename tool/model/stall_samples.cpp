#include "model/stall_samples.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace wl {

const std::vector<std::string>& stall_reasons() {
  static const std::vector<std::string> reasons = {"barrier",
                                                   "branch_resolving",
                                                   "dispatch_stall",
                                                   "drain",
                                                   "imc_miss",
                                                   "lg_throttle",
                                                   "long_scoreboard",
                                                   "math_pipe_throttle",
                                                   "membar",
                                                   "mio_throttle",
                                                   "misc",
                                                   "no_instruction",
                                                   "not_selected",
                                                   "selected",
                                                   "short_scoreboard",
                                                   "sleeping",
                                                   "tex_throttle",
                                                   "wait",
                                                   "gmma",
                                                   "warpgroup_arrive",
                                                   "other"};
  return reasons;
}

bool known_stall_reason(std::string_view reason) {
  const auto& all = stall_reasons();
  return std::find(all.begin(), all.end(), reason) != all.end();
}

CuptiStallName parse_cupti_stall_name(std::string_view name) {
  constexpr std::string_view kPrefix = "smsp__pcsamp_warps_issue_stalled_";
  constexpr std::string_view kNotIssued = "_not_issued";
  if (!name.starts_with(kPrefix) || name.size() == kPrefix.size())
    return {};
  name.remove_prefix(kPrefix.size());
  CuptiStallName parsed;
  if (name.ends_with(kNotIssued) && name.size() > kNotIssued.size()) {
    parsed.not_issued = true;
    name.remove_suffix(kNotIssued.size());
  }
  parsed.reason = std::string(name);
  if (parsed.reason == "no_instructions") // PC sampling's spelling; ncu's warp states say it once
    parsed.reason = "no_instruction";
  return parsed;
}

std::uint64_t StalledInstruction::samples() const {
  std::uint64_t sum = 0;
  for (const StallCount& c : reasons)
    sum += c.samples;
  return sum;
}

std::uint64_t StallSamples::samples() const {
  std::uint64_t sum = 0;
  for (const StallCount& c : launch)
    sum += c.samples;
  return sum;
}

namespace {

std::size_t order_of(const std::string& reason) {
  const auto& all = stall_reasons();
  return static_cast<std::size_t>(std::find(all.begin(), all.end(), reason) - all.begin());
}

void add_counts(std::map<std::string, StallCount>& into, const std::vector<StallCount>& counts) {
  for (const StallCount& c : counts) {
    StallCount& sum = into[c.reason];
    sum.reason = c.reason;
    sum.samples += c.samples;
    sum.not_issued += c.not_issued;
  }
}

std::vector<StallCount> sorted_counts(const std::map<std::string, StallCount>& sums) {
  std::vector<StallCount> counts;
  for (const auto& [reason, count] : sums)
    counts.push_back(count);
  sort_stall_counts(counts);
  return counts;
}

} // namespace

void sort_stall_counts(std::vector<StallCount>& counts) {
  std::stable_sort(counts.begin(), counts.end(), [](const StallCount& a, const StallCount& b) {
    return a.samples != b.samples ? a.samples > b.samples : order_of(a.reason) < order_of(b.reason);
  });
}

void summarise_stalls(StallSamples& stalls) {
  std::map<std::string, StallCount> launch;
  std::map<int, std::map<std::string, StallCount>> lines;
  for (StalledInstruction& i : stalls.instructions) {
    sort_stall_counts(i.reasons);
    add_counts(launch, i.reasons);
    if (i.line > 0 && i.file == stalls.file)
      add_counts(lines[i.line], i.reasons);
  }
  stalls.launch = sorted_counts(launch);
  stalls.lines.clear();
  for (const auto& [line, sums] : lines) {
    StalledLine l{.line = line, .samples = 0, .reasons = sorted_counts(sums)};
    for (const StallCount& c : l.reasons)
      l.samples += c.samples;
    stalls.lines.push_back(std::move(l));
  }
}

int sampling_period_for(double cycles, int sms, double wanted) {
  if (!(cycles > 0) || sms <= 0 || !(wanted > 0))
    return 5;
  const double per_sample = cycles * sms / wanted;
  const int period = static_cast<int>(std::lround(std::log2(std::max(per_sample, 1.0))));
  return std::clamp(period, 5, 31);
}

} // namespace wl
