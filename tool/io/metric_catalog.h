#pragma once
// The hardware counters WarpLens knows, as data (assets/metrics.json): which CUPTI metric feeds
// which counter figure of the figure table (figures.h, where its name, unit and meaning are),
// fallbacks for chips that name it differently, and named sets. Pure host code, so the catalog
// is read and checked without CUPTI or a GPU.

#include "report/figures.h"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace wl {

struct MetricInfo {
  std::string key;                    // "global_load_sectors": a counter of the figure table
  std::string name;                   // "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
  std::vector<std::string> fallbacks; // other chips' names for the same figure
  const Figure* figure = nullptr;     // display name, unit, panel, meaning: figures.h

  std::string display() const { return std::string(figure->display); }
  std::string unit() const { return std::string(figure->unit); }
};

struct MetricCatalog {
  std::vector<MetricInfo> metrics;
  std::map<std::string, std::vector<std::string>> sets; // "default" -> keys

  const MetricInfo* find(const std::string& key_or_name) const;
  // "all", or a comma-separated list of set names ("default"), keys or CUPTI names, each metric
  // once; throws UsageError naming the unknown one and the sets.
  std::vector<const MetricInfo*> select(const std::string& spec) const;
};

// Reads and checks the catalog: every key typed, every set naming known metrics. Throws
// UsageError "FILE: KEY: ...".
MetricCatalog load_metric_catalog(const std::filesystem::path& file);

} // namespace wl
