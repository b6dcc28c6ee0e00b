#include "sweep.h"

#include "block_text.h"
#include "error.h"
#include "protocol.h"
#include "run_report.h"
#include "text_format.h"

#include <charconv>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

// The parts of a sweep with no GPU in them: its shapes from the command line's side lists, and its
// table. In wl_core, so the GUI can make and export sweeps without the engine.

namespace wl {

namespace {

int parse_int(const std::string& text, const std::string& option) {
  int value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || value < 1)
    throw UsageError(option + " '" + text + "': sides are whole numbers of at least 1");
  return value;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, separator);) parts.push_back(part);
  return parts;
}

// Every counter name any point collected, in first-seen order: the CSV's counter columns.
std::vector<std::string> counter_columns(const std::vector<SweepPoint>& points) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const SweepPoint& p : points)
    if (p.result && p.result->counters)
      for (const CounterValue& v : p.result->counters->values)
        if (seen.insert(v.name).second) names.push_back(v.name);
  return names;
}

double predicted_total(const RunResult& r, MemorySpace space, AccessOp op, std::int64_t SitePrediction::*field) {
  double total = 0;
  for (const SitePrediction& s : r.prediction.sites)
    if (s.space == space && s.op == op) total += static_cast<double>(s.*field);
  return total;
}

} // namespace

std::vector<int> parse_side_list(const std::string& text, const std::string& option) {
  const std::vector<std::string> range = split(text, ':');
  std::vector<int> sides;
  if (range.size() == 3) {
    const int start = parse_int(range[0], option), end = parse_int(range[1], option), step = parse_int(range[2], option);
    if (end < start) throw UsageError(option + " '" + text + "': the end is before the start; write start:end:step");
    for (int side = start; side <= end; side += step) sides.push_back(side);
    return sides;
  }
  if (range.size() != 1) throw UsageError(option + " '" + text + "': write start:end:step or a comma-separated list");
  for (const std::string& part : split(text, ',')) sides.push_back(parse_int(part, option));
  if (sides.empty()) throw UsageError(option + " is empty; write start:end:step or a comma-separated list");
  return sides;
}

std::vector<BlockShape> sweep_shapes(const std::vector<int>& xs, const std::vector<int>& ys, const std::vector<int>& zs) {
  std::vector<BlockShape> shapes;
  for (int z : zs)
    for (int y : ys)
      for (int x : xs) shapes.push_back(BlockShape{x, y, z});
  return shapes;
}

std::string sweep_csv(const std::vector<SweepPoint>& points) {
  const std::vector<std::string> counters = counter_columns(points);
  std::ostringstream csv;
  csv << "block_x,block_y,block_z,status,reason,median_ms,min_ms,noise,samples,gbps,blocks_per_sm,"
         "theoretical_occupancy,registers,verified";
  for (const std::string& name : counters) csv << "," << name;
  csv << ",predicted_global_load_requests,predicted_global_load_sectors,predicted_global_store_sectors,"
         "predicted_shared_load_wavefronts,predicted_shared_store_wavefronts\n";
  for (const SweepPoint& p : points) {
    csv << p.block.x << "," << p.block.y << "," << p.block.z << ",";
    if (!p.result) {
      csv << "refused,\"" << p.refused << "\"\n";
      continue;
    }
    const RunResult& r = *p.result;
    // A point from the models alone (the GUI's model sweep) has no timing: its cells stay empty.
    csv << (r.timing ? "ran,," : "modelled,,")
        << (r.timing ? format("%.6f,%.6f,%.5f,%d,%.2f,", r.timing->median_ms, r.timing->min_ms, r.timing->noise,
                              r.timing->samples, r.gbps())
                     : std::string(",,,,,"))
        << (r.occupancy ? format("%d,%.4f", r.occupancy->blocks_per_sm, r.occupancy->occupancy) : ",") << ","
        << (r.attributes ? std::to_string(r.attributes->registers) : "") << ","
        << (r.verification ? (r.verification->passed ? "yes" : "no") : "");
    for (const std::string& name : counters) {
      csv << ",";
      if (r.counters)
        for (const CounterValue& v : r.counters->values)
          if (v.name == name) csv << format("%.6g", v.value);
    }
    using enum MemorySpace;
    using enum AccessOp;
    csv << format(",%.0f,%.0f,%.0f,%.0f,%.0f\n", predicted_total(r, global, load, &SitePrediction::requests),
                  predicted_total(r, global, load, &SitePrediction::sectors),
                  predicted_total(r, global, store, &SitePrediction::sectors),
                  predicted_total(r, shared, load, &SitePrediction::wavefronts),
                  predicted_total(r, shared, store, &SitePrediction::wavefronts));
  }
  return csv.str();
}

nlohmann::json sweep_points_to_json(const std::vector<SweepPoint>& points) {
  nlohmann::json list = nlohmann::json::array();
  for (const SweepPoint& p : points)
    list.push_back(p.result ? run_result_to_json(*p.result)
                            : nlohmann::json{{"block", {p.block.x, p.block.y, p.block.z}}, {"refused", p.refused}});
  return list;
}

std::vector<SweepPoint> sweep_points_from_json(const nlohmann::json& list) {
  if (!list.is_array() || list.empty()) throw UsageError("not a sweep: an array of shapes is expected");
  std::vector<SweepPoint> points;
  try {
    for (const nlohmann::json& entry : list) {
      if (entry.contains("refused")) {
        const nlohmann::json& b = entry.at("block");
        points.push_back({BlockShape{b.at(0).get<int>(), b.at(1).get<int>(), b.at(2).get<int>()},
                          entry.at("refused").get<std::string>(), std::nullopt});
        continue;
      }
      RunResult result = run_result_from_json(entry);
      points.push_back({result.launch.block, "", std::move(result)});
    }
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(std::string("not a sweep: ") + e.what());
  }
  return points;
}

} // namespace wl
