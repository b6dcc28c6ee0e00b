#include "counter_comparison.h"

#include "text_format.h"

#include <algorithm>
#include <cmath>

namespace wl {

namespace {

using Sum = std::int64_t SitePrediction::*;

// The model's total of one field over the sites of one space and direction; nullopt without sites.
std::optional<double> site_total(const LaunchPrediction& p, MemorySpace space, AccessOp op,
                                 Sum field) {
  std::optional<double> total;
  for (const SitePrediction& s : p.sites)
    if (s.space == space && s.op == op)
      total = total.value_or(0) + static_cast<double>(s.*field);
  return total;
}

// What the model predicts for a metric key, if it predicts it at all.
std::optional<double> predicted(const RunResult& r, const std::string& key) {
  const LaunchPrediction& p = r.prediction;
  using enum MemorySpace;
  using enum AccessOp;
  if (key == "global_load_sectors")
    return site_total(p, global, load, &SitePrediction::sectors);
  if (key == "global_store_sectors")
    return site_total(p, global, store, &SitePrediction::sectors);
  if (key == "global_load_requests" || key == "global_load_instructions")
    return site_total(p, global, load, &SitePrediction::requests);
  if (key == "global_store_requests" || key == "global_store_instructions")
    return site_total(p, global, store, &SitePrediction::requests);
  if (key == "shared_load_wavefronts")
    return site_total(p, shared, load, &SitePrediction::wavefronts);
  if (key == "shared_store_wavefronts")
    return site_total(p, shared, store, &SitePrediction::wavefronts);
  if (key == "shared_load_instructions")
    return site_total(p, shared, load, &SitePrediction::requests);
  if (key == "shared_store_instructions")
    return site_total(p, shared, store, &SitePrediction::requests);
  if (key == "shared_load_bank_conflicts")
    return site_total(p, shared, load, &SitePrediction::excess_wavefronts);
  if (key == "shared_store_bank_conflicts")
    return site_total(p, shared, store, &SitePrediction::excess_wavefronts);
  if (key == "achieved_occupancy" && r.occupancy)
    return 100.0 * r.occupancy->occupancy;
  return std::nullopt;
}

std::optional<double> measured(const RunResult& r, const std::string& key) {
  const CounterValue* v = r.counters->find(key);
  return v ? std::optional<double>(v->value) : std::nullopt;
}

bool within_tolerance(double a, double b) {
  return std::fabs(a - b) <= kComparisonTolerance * std::max(std::fabs(b), 1.0);
}

std::string count(double v) { return format("%.0f", v); }

// Shared wavefronts ("load" or "store") that differ: the reason, from the run's other counters.
std::string shared_wavefront_reason(const RunResult& r, const std::string& op, double wavefronts) {
  const auto instructions = measured(r, "shared_" + op + "_instructions");
  const auto requests = predicted(r, "shared_" + op + "_instructions");
  if (instructions && requests && *instructions < (1 - kComparisonTolerance) * *requests)
    return "the compiler merged neighbouring shared accesses into wider ones (" +
           count(*instructions) + " instructions where the source's sites make " +
           count(*requests) +
           "): a wide access moves more bytes per wavefront, so there are fewer wavefronts than "
           "the source's accesses "
           "would need";
  const auto conflicts = measured(r, "shared_" + op + "_bank_conflicts");
  const auto excess = predicted(r, "shared_" + op + "_bank_conflicts");
  const auto expected = predicted(r, "shared_" + op + "_wavefronts");
  if (conflicts && excess && expected && *conflicts > *excess &&
      within_tolerance(wavefronts - *conflicts, *expected - *excess))
    return "the extra wavefronts are the " + count(*conflicts - *excess) +
           " bank conflicts the counter adds beyond the model's: the L1 data banks also serve the "
           "launch's global "
           "traffic and collisions with it are charged to shared accesses. Measured wavefronts "
           "minus counted "
           "conflicts (" +
           count(wavefronts - *conflicts) + ") match the model's conflict-free wavefronts (" +
           count(*expected - *excess) + ")";
  return "";
}

std::string shared_instruction_reason(double instructions, double requests) {
  if (instructions > requests)
    return "warps also issue the instruction with every lane switched off (the compiler predicated "
           "the branch "
           "instead of jumping over it): " +
           count(instructions - requests) +
           " such instructions count here but move no data, so they add no wavefronts";
  return "the compiler merged neighbouring shared accesses into wider ones (LDS.64/LDS.128): fewer "
         "instructions "
         "than the source's accesses, the same bytes";
}

std::string known_reason(const RunResult& r, const std::string& key, double value,
                         double expected) {
  for (const std::string op : {"load", "store"}) {
    if (key == "shared_" + op + "_wavefronts")
      return shared_wavefront_reason(r, op, value);
    if (key == "shared_" + op + "_instructions")
      return shared_instruction_reason(value, expected);
  }
  if (key.find("bank_conflicts") != std::string::npos && value > expected)
    return "the L1 data banks also serve global, local and texture traffic, and the counter "
           "includes their "
           "conflicts: compare the wavefronts, which the model predicts per site";
  if (key == "achieved_occupancy") {
    if (r.occupancy && r.occupancy->waves && r.occupancy->waves->tail_blocks > 0)
      return "achieved is below theoretical: the last wave is partial (" +
             std::to_string(r.occupancy->waves->tail_blocks) + " blocks) and warps finish unevenly";
    return "achieved occupancy averages resident warps over active cycles; blocks start and finish "
           "unevenly";
  }
  if (key.find("global") != std::string::npos && key.find("sectors") != std::string::npos)
    return "sectors also count accesses the model does not declare as sites (local-memory spills, "
           "library code) or "
           "the compiler merged or split accesses";
  if (key.find("instructions") != std::string::npos || key.find("requests") != std::string::npos)
    return "the compiler emits a different number of memory instructions than the source's "
           "accesses (vectorised, "
           "unrolled or predicated differently)";
  return "";
}

} // namespace

std::vector<ComparisonRow> compare_counters(const RunResult& r) {
  std::vector<ComparisonRow> rows;
  if (!r.counters || !r.counters->available)
    return rows;
  for (const CounterValue& v : r.counters->values) {
    ComparisonRow row{v.key, v.display, v.unit, predicted(r, v.key), v.value, 0, false, ""};
    if (row.predicted && *row.predicted > 0) {
      row.difference = (row.measured - *row.predicted) / *row.predicted;
      row.flagged = std::fabs(row.difference) > kComparisonTolerance;
    } else if (row.predicted) {
      row.flagged = row.measured > 0.5; // predicted none, measured some
      row.difference = row.flagged ? 1.0 : 0.0;
    }
    if (row.flagged)
      row.reason = known_reason(r, row.key, row.measured, *row.predicted);
    rows.push_back(std::move(row));
  }
  return rows;
}

} // namespace wl
