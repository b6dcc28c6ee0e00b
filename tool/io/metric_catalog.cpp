#include "io/metric_catalog.h"

#include "base/error.h"
#include "base/json_fields.h"
#include "base/json_input.h"

#include <algorithm>

namespace wl {

namespace {

std::vector<std::string> split_commas(const std::string& spec) {
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t comma = spec.find(',', start);
    parts.push_back(spec.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos)
      return parts;
    start = comma + 1;
  }
}

std::string counter_keys() {
  std::string keys;
  for (const Figure& f : all_figures())
    if (f.counter)
      keys.append(keys.empty() ? "" : ", ").append(f.key);
  return keys;
}

// "'NAME' a second time", appended piece by piece: GCC 12's -Wrestrict misfires on "'" + text.
std::string a_second_time(const std::string& name) {
  std::string wrong = "'";
  wrong += clip(name, 60);
  wrong += "' a second time";
  return wrong;
}

MetricInfo metric_from(const Fields& m) {
  m.only({"key", "name", "fallbacks"}, "a metric");
  MetricInfo info{m.text("key", false), m.name("name", false),
                  m.has("fallbacks") ? m.names("fallbacks") : std::vector<std::string>{}};
  info.figure = find_figure(info.key);
  if (!info.figure || !info.figure->counter) {
    std::string wrong = "'"; // appended piece by piece: GCC 12's -Wrestrict misfires otherwise
    wrong += clip(info.key, 40);
    wrong += "' is no counter of the figure table";
    m.fail("key", wrong, "allowed " + counter_keys());
  }
  return info;
}

} // namespace

const MetricInfo* MetricCatalog::find(const std::string& key_or_name) const {
  for (const MetricInfo& m : metrics)
    if (m.key == key_or_name || m.name == key_or_name)
      return &m;
  return nullptr;
}

std::vector<const MetricInfo*> MetricCatalog::select(const std::string& spec) const {
  std::vector<const MetricInfo*> chosen;
  const auto add = [&](const MetricInfo* m) {
    if (std::find(chosen.begin(), chosen.end(), m) == chosen.end())
      chosen.push_back(m);
  };
  for (const std::string& part : split_commas(spec)) {
    if (part.empty())
      throw UsageError("--metrics '" + clip(spec, 60) +
                       "': an empty name in the list; give sets or counters with a comma "
                       "between, e.g. default,memory");
    if (part == "all") {
      for (const MetricInfo& m : metrics)
        add(&m);
    } else if (const auto set = sets.find(part); set != sets.end()) {
      for (const std::string& key : set->second)
        add(find(key));
    } else if (const MetricInfo* m = find(part)) {
      add(m);
    } else {
      std::string known = "all";
      for (const auto& [name, _] : sets)
        known += ", " + name;
      throw UsageError("--metrics: unknown metric '" + clip(part, 60) + "'; allowed " + known +
                       ", or the keys and CUPTI names in assets/metrics.json (e.g. " +
                       (metrics.empty() ? std::string("none") : metrics.front().key) + ")");
    }
  }
  return chosen;
}

MetricCatalog load_metric_catalog(const std::filesystem::path& file) {
  const std::string origin = clip(file.string(), 160);
  const nlohmann::json json = read_json_document(file, "metric catalog");
  const Fields top(json, origin);
  top.only({"about", "metrics", "sets"}, "the metric catalog");
  MetricCatalog catalog;
  for (const Fields& m : top.objects("metrics", 4096)) {
    MetricInfo metric = metric_from(m);
    // A second entry for a key or a CUPTI name would never be found: find() takes the first.
    for (const MetricInfo& earlier : catalog.metrics) {
      if (earlier.key == metric.key)
        m.fail("key", a_second_time(metric.key), "allowed each key once");
      if (earlier.name == metric.name)
        m.fail("name", a_second_time(metric.name), "allowed each name once");
    }
    catalog.metrics.push_back(std::move(metric));
  }
  const Fields sets = top.object("sets");
  for (const auto& [name, keys] : sets.raw().items()) {
    catalog.sets[name] = sets.texts(name.c_str());
    for (const std::string& key : catalog.sets[name])
      if (!catalog.find(key))
        sets.fail(name, "names unknown metric '" + clip(key, 40) + "'",
                  "allowed the keys of 'metrics'");
  }
  return catalog;
}

} // namespace wl
