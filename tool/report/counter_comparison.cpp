#include "report/counter_comparison.h"

#include "base/text_format.h"
#include "report/figures.h"

#include <cmath>

namespace wl {

namespace {

// A measured value beside the figure's prediction: the difference, and the reason where it is
// over the tolerance. `display` and `unit` are a recording's own where the table lacks the key.
ComparisonRow compared(const RunResult& r, const std::string& key, const Figure* figure,
                       std::string display, std::string unit, double measured,
                       std::optional<double> predicted) {
  ComparisonRow row{key,
                    figure,
                    figure ? std::string(figure->display) : std::move(display),
                    figure ? std::string(figure->unit) : std::move(unit),
                    predicted,
                    measured,
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
  return row;
}

std::optional<double> prediction_of(const Figure* figure, const RunResult& r) {
  return figure && figure->predicted ? figure->predicted(r) : std::nullopt;
}

} // namespace

std::vector<ComparisonRow> compare_counters(const RunResult& r) {
  std::vector<ComparisonRow> rows;
  if (!r.counters || !r.counters->available)
    return rows;
  for (const CounterValue& v : r.counters->values) {
    const Figure* figure = find_figure(v.key);
    rows.push_back(
        compared(r, v.key, figure, v.display, v.unit, v.value, prediction_of(figure, r)));
  }
  // The figures several counters make (FLOPs from FADD, FMUL and FFMA), after them.
  for (const Figure& figure : all_figures())
    if (figure.from_counters)
      if (const std::optional<double> measured = figure.measured(r))
        rows.push_back(
            compared(r, std::string(figure.key), &figure, "", "", *measured, figure.predicted(r)));
  return rows;
}

ComparisonRow compare_value(const RunResult& result, const Figure& figure, double measured,
                            std::optional<double> predicted) {
  return compared(result, std::string(figure.key), &figure, "", "", measured, predicted);
}

std::string difference_text(const ComparisonRow& row) {
  if (row.difference)
    return format("%+.1f %%", 100 * *row.difference);
  return row.predicted ? "none predicted" : "-";
}

} // namespace wl
