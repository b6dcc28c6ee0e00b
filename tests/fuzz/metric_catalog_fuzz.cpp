// Fuzzes the metric catalog reader (assets/metrics.json). load_metric_catalog takes only a path,
// so the input is written to a scratch file first. An accepted catalog is then asked for what
// `--metrics` selects: every set, "all" and each metric by its key and its CUPTI name.

#include "fuzz_support.h"
#include "io/metric_catalog.h"

namespace {

void select_from(const wl::MetricCatalog& catalog) {
  const auto select = [&](const std::string& spec) {
    wl::fuzz::read_or_refuse([&] { catalog.select(spec); });
  };
  select("all");
  select("default");
  for (const auto& [name, keys] : catalog.sets)
    select(name);
  for (const wl::MetricInfo& metric : catalog.metrics) {
    select(metric.key);
    select(metric.name + ",all");
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = wl::fuzz::scratch_file(wl::fuzz::as_text(data, size), "metrics.json");
  wl::fuzz::read_or_refuse([&] { select_from(wl::load_metric_catalog(file)); });
  return 0;
}
