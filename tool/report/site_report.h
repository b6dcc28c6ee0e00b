#pragma once
// Per-site measured figures as text, JSON and back: the CLI's `--per-site` table, the JSON's
// `site_counts` (the whole measurement, which the worker protocol carries to the GUI) and each
// site's `measured` object and CSV columns (under the figure table's keys).

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

// A sweep CSV's per-site columns: their headers ("load a: sectors" the model's figure, "load a:
// measured_sectors" the pass's, for each site figure the pass measures, and "load a:
// measured_flagged") and one point's cells, empty where the point has no per-site figures.
std::vector<std::string> site_csv_headers(const RunResult& r);
std::vector<std::string> site_csv_cells(const RunResult& r);

// `run --csv`'s measured columns of a site row: the line the pass placed its instructions on, the
// instructions and lanes executed, "measured_KEY" for each site figure the pass measures, and
// whether it is flagged and why; cells empty without a per-site pass.
std::vector<std::string> site_measured_csv_headers();
std::vector<std::string> site_measured_csv_cells(const RunResult& r, std::size_t site);

nlohmann::json site_counts_json(const SiteCounts& counts);
// One site's measured figures, for sites[*].measured: its line, instructions, the instructions
// and lanes executed, each site figure the pass measures under its key, and the difference.
nlohmann::json site_measured_json(const SiteCounts& counts, const SitePrediction& site,
                                  std::size_t index);
// `sites`: the prediction's sites, one measured each; `kernel_file`: a kernel file's figures, by
// line too. Throws UsageError naming `where` and the key for a value out of range.
SiteCounts site_counts_from_json(const nlohmann::json& j, const std::string& where,
                                 std::size_t sites, bool kernel_file = false);

} // namespace wl
