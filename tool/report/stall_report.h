#pragma once
// Where a launch's warps waited, as words, text, JSON and back: what each stall reason means and
// which panel shows its cause, `run --stalls`'s table (the launch's reasons, then the lines with
// the most samples), and the JSON's `stalls` (the whole pass, which the worker protocol carries to
// the GUI).

#include "model/run_result.h"
#include "report/panel_table.h"

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace wl {

// A stall reason in words ("waiting for a global or local memory load to return") and the panel
// that shows its cause (Global memory), where one does.
struct StallMeaning {
  std::string_view reason;
  std::string_view words;
  std::optional<Panel> panel;
};
const StallMeaning& stall_meaning(std::string_view reason);

// How busy the schedulers were, from the launch counters (the default set has both): warp
// instructions executed per SM per active cycle, of the 4 an SM's four schedulers can issue.
// Stalls matter where this is well under 4. nullopt without those counters.
struct IssueUse {
  double per_cycle = 0; // instructions per SM per active cycle
  double share = 0;     // of the 4 an SM can issue
};
std::optional<IssueUse> issue_use(const RunResult& r);
// "The schedulers issued 1.23 of 4 instructions per active cycle (30.8 %): the warps waited
// most of the time, so the reasons below are where the time went." or "" without counters.
std::string issue_use_text(const RunResult& r);

// `part` of `whole` samples as a fraction (0 when there are none), and as "53.9 %".
double stall_share(std::uint64_t part, std::uint64_t whole);
std::string stall_percent(std::uint64_t part, std::uint64_t whole);

// A line gets its reasons shown from this share of the launch's samples.
inline constexpr double kStallLineShare = 0.05;

// The launch's reasons with their shares and meanings, then each line with at least
// kStallLineShare of the samples and its top reasons; or why there are no samples. "" without
// a PC-sampling pass.
std::string stalls_text(const RunResult& r);

// `run --csv`'s stall columns: "stall_samples", then "stall_REASON" for every reason (its share of
// the samples, in percent), and the cells of a result; empty cells without a sampling pass.
std::vector<std::string> stall_csv_headers();
std::vector<std::string> stall_csv_cells(const RunResult& r);

nlohmann::json stall_samples_json(const StallSamples& stalls);
// Throws UsageError naming `where` and the key for a value a sampling pass cannot produce: an
// unknown reason, a count that is negative or not whole, not-issued samples above the reason's,
// instructions or lines out of order, sums that do not add up.
StallSamples stall_samples_from_json(const nlohmann::json& j, const std::string& where);

} // namespace wl
