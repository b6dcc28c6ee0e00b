#include "report/counter_comparison.h"

#include "base/text_format.h"
#include "report/figures.h"

#include <cmath>

namespace wl {

std::vector<ComparisonRow> compare_counters(const RunResult& r) {
  std::vector<ComparisonRow> rows;
  if (!r.counters || !r.counters->available)
    return rows;
  for (const CounterValue& v : r.counters->values) {
    const Figure* figure = find_figure(v.key);
    const std::optional<double> predicted =
        figure && figure->predicted ? figure->predicted(r) : std::nullopt;
    // The table's name and unit, also for values read from an older recording.
    ComparisonRow row{v.key,
                      figure,
                      figure ? std::string(figure->display) : v.display,
                      figure ? std::string(figure->unit) : v.unit,
                      predicted,
                      v.value,
                      std::nullopt,
                      false,
                      ""};
    if (row.predicted && *row.predicted > 0) {
      row.difference = (row.measured - *row.predicted) / *row.predicted;
      row.flagged = std::fabs(*row.difference) > kComparisonTolerance;
    } else if (row.predicted) {
      row.flagged = row.measured > 0.5; // predicted none, measured some
      if (!row.flagged)
        row.difference = 0.0;
    }
    if (row.flagged && figure && figure->reason)
      row.reason = figure->reason(r, row.measured, *row.predicted);
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string difference_text(const ComparisonRow& row) {
  if (row.difference)
    return format("%+.1f %%", 100 * *row.difference);
  return row.predicted ? "none predicted" : "-";
}

} // namespace wl
