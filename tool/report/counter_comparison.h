#pragma once
// Measured counters beside the model's predictions for the same launch: one row per figure both
// sides know, the difference, and, when it is over 2 %, the known reason if there is one (other L1
// traffic in the bank-conflict counter, vectorised shared loads, a partial last wave, caches):
// the figure table's prediction and reasons for each counter, then the figures made of several
// counters (FP32 operations, DRAM and L2 bytes) beside the model's.

#include "model/run_result.h"
#include "report/figures.h"

#include <optional>
#include <string>
#include <vector>

namespace wl {

struct ComparisonRow {
  std::string key;      // the metric key ("global_load_sectors")
  const Figure* figure; // its entry in the figure table; nullptr for a key the table lacks
  std::string display;  // "Global load sectors"
  std::string unit;
  std::optional<double> predicted;
  double measured = 0;
  // (measured - predicted) / predicted; none without a prediction or when none was predicted
  // (predicted 0, measured some: no ratio says that, difference_text does)
  std::optional<double> difference;
  bool flagged = false; // |difference| > 2 %, or predicted none and measured some
  std::string reason;   // why they may differ, when flagged and a reason is known
};

inline constexpr double kComparisonTolerance = 0.02;

std::vector<ComparisonRow> compare_counters(const RunResult& result);

// One measured value of `figure` beside `predicted` (none: no prediction), as compare_counters
// sets a counter beside the figure's own prediction: the difference, the flag, the reason.
ComparisonRow compare_value(const RunResult& result, const Figure& figure, double measured,
                            std::optional<double> predicted);

// The difference as every printer shows it: "+2.3 %", "none predicted" when the model expects
// none and the counter counted some, "-" without a prediction.
std::string difference_text(const ComparisonRow& row);

} // namespace wl
