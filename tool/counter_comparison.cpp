#include "counter_comparison.h"

#include <cmath>

namespace wl {

namespace {

using Sum = std::int64_t SitePrediction::*;

// The model's total of one field over the sites of one space and direction; nullopt without sites.
std::optional<double> site_total(const LaunchPrediction& p, MemorySpace space, AccessOp op, Sum field) {
  std::optional<double> total;
  for (const SitePrediction& s : p.sites)
    if (s.space == space && s.op == op) total = total.value_or(0) + static_cast<double>(s.*field);
  return total;
}

// What the model predicts for a metric key, if it predicts it at all.
std::optional<double> predicted(const RunResult& r, const std::string& key) {
  const LaunchPrediction& p = r.prediction;
  using enum MemorySpace;
  using enum AccessOp;
  if (key == "global_load_sectors") return site_total(p, global, load, &SitePrediction::sectors);
  if (key == "global_store_sectors") return site_total(p, global, store, &SitePrediction::sectors);
  if (key == "global_load_requests" || key == "global_load_instructions")
    return site_total(p, global, load, &SitePrediction::requests);
  if (key == "global_store_requests" || key == "global_store_instructions")
    return site_total(p, global, store, &SitePrediction::requests);
  if (key == "shared_load_wavefronts") return site_total(p, shared, load, &SitePrediction::wavefronts);
  if (key == "shared_store_wavefronts") return site_total(p, shared, store, &SitePrediction::wavefronts);
  if (key == "shared_load_instructions") return site_total(p, shared, load, &SitePrediction::requests);
  if (key == "shared_store_instructions") return site_total(p, shared, store, &SitePrediction::requests);
  if (key == "shared_load_bank_conflicts") return site_total(p, shared, load, &SitePrediction::excess_wavefronts);
  if (key == "shared_store_bank_conflicts") return site_total(p, shared, store, &SitePrediction::excess_wavefronts);
  if (key == "achieved_occupancy" && r.occupancy) return 100.0 * r.occupancy->occupancy;
  return std::nullopt;
}

std::string known_reason(const RunResult& r, const std::string& key, double difference) {
  if (key.find("bank_conflicts") != std::string::npos && difference > 0)
    return "the L1 data banks also serve global, local and texture traffic, and the counter includes their "
           "conflicts: compare the wavefronts, which the model predicts per site";
  if (key.find("shared") != std::string::npos && key.find("instructions") != std::string::npos)
    return "the compiler merged neighbouring shared accesses into wider ones (LDS.64/LDS.128) or split them: the "
           "instruction count changes, the bytes and wavefronts per site do not";
  if (key == "achieved_occupancy") {
    if (r.occupancy && r.occupancy->waves && r.occupancy->waves->tail_blocks > 0)
      return "achieved is below theoretical: the last wave is partial (" +
             std::to_string(r.occupancy->waves->tail_blocks) + " blocks) and warps finish unevenly";
    return "achieved occupancy averages resident warps over active cycles; blocks start and finish unevenly";
  }
  if (key.find("global") != std::string::npos && key.find("sectors") != std::string::npos)
    return "sectors also count accesses the model does not declare as sites (local-memory spills, library code) or "
           "the compiler merged or split accesses";
  if (key.find("instructions") != std::string::npos || key.find("requests") != std::string::npos)
    return "the compiler emits a different number of memory instructions than the source's accesses (vectorised, "
           "unrolled or predicated differently)";
  return "";
}

} // namespace

std::vector<ComparisonRow> compare_counters(const RunResult& r) {
  std::vector<ComparisonRow> rows;
  if (!r.counters || !r.counters->available) return rows;
  for (const CounterValue& v : r.counters->values) {
    ComparisonRow row{v.key, v.display, v.unit, predicted(r, v.key), v.value, 0, false, ""};
    if (row.predicted && *row.predicted > 0) {
      row.difference = (row.measured - *row.predicted) / *row.predicted;
      row.flagged = std::fabs(row.difference) > kComparisonTolerance;
    } else if (row.predicted) {
      row.flagged = row.measured > 0.5; // predicted none, measured some
      row.difference = row.flagged ? 1.0 : 0.0;
    }
    if (row.flagged) row.reason = known_reason(r, row.key, row.difference);
    rows.push_back(std::move(row));
  }
  return rows;
}

} // namespace wl
