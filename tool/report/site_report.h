#pragma once
// Per-site measured figures as text, JSON and back: the CLI's `--per-site` table, the JSON's
// `site_counts` (the whole measurement, which the worker protocol carries to the GUI) and each
// site's `measured` object (ncu's SASS metric names).

#include "model/run_result.h"

#include <string>

#include <nlohmann/json.hpp>

namespace wl {

// The table of every site: predicted beside measured, flagged rows with their reason.
std::string site_counts_text(const RunResult& r);

// Every memory instruction's sectors (global) and wavefronts (shared), summed, beside the launch
// counters of the same traffic, and what a difference means: the shared wavefronts counter also
// holds conflicts charged from other L1 traffic, which no instruction of the kernel made. A line
// per space the launch counted; none without both a per-site pass and the counters.
std::vector<std::string> site_sums_lines(const RunResult& r);

// One line for a sweep's row: "sites: 7 of 7 within 2 %" or "sites: 6 of 7 within 2 % (load A
// tile differs)", or why none were measured; "" without a per-site pass.
std::string site_counts_summary(const RunResult& r);

// A sweep CSV's per-site columns: their headers (each site's name, then ncu's SASS metric name or
// the model's figure) and one point's cells, empty where the point has no per-site figures.
std::vector<std::string> site_csv_headers(const RunResult& r);
std::vector<std::string> site_csv_cells(const RunResult& r);

nlohmann::json site_counts_json(const SiteCounts& counts);
// One site's measured figures under ncu's SASS metric names, for sites[*].measured.
nlohmann::json site_measured_json(const SiteCounts& counts, const SitePrediction& site,
                                  std::size_t index);
// `sites`: the prediction's sites, one measured each; `kernel_file`: a kernel file's figures, by
// line too. Throws UsageError naming `where` and the key for a value out of range.
SiteCounts site_counts_from_json(const nlohmann::json& j, const std::string& where,
                                 std::size_t sites, bool kernel_file = false);

} // namespace wl
