#include "block_text.h"
#include "error.h"
#include "figures.h"
#include "json_fields.h"
#include "json_input.h"
#include "protocol.h"
#include "run_report.h"
#include "sweep.h"
#include "text_format.h"

#include <algorithm>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

// The parts of a sweep with no GPU in them: its shapes from the command line's side lists, and its
// table. In wl_core, so the GUI can make and export sweeps without the engine.

namespace wl {

namespace {

// One number of a side list: `role` is "start", "end", "step" or "side"; `shown` is the option
// and its whole text, so "--block '32:1024:0': the step '0' is below 1" says which number is wrong.
int parse_int(const std::string& text, const std::string& role, const std::string& shown) {
  const auto [value, problem] = read_whole_number(text);
  const std::string allowed = "; allowed whole numbers from 1 to " + std::to_string(kMaxInt);
  if (text.empty())
    throw UsageError(shown + ": a " + role + " is missing" + allowed);
  if (!problem.empty())
    throw UsageError(shown + ": the " + role + " '" + clip(text, 20) + "' " + problem + allowed);
  if (value < 1 || value > kMaxInt)
    throw UsageError(shown + ": the " + role + " " + std::to_string(value) +
                     (value < 1 ? " is below 1" : " is too large") + allowed);
  return static_cast<int>(value);
}

// Said where the GUI sweeps too, which has no --max-shapes: the option is named with its command.
std::string too_many_hint(std::size_t max_shapes) {
  return "a sweep takes at most " + std::to_string(max_shapes) +
         " shapes; choose fewer sides (`warplens sweep --max-shapes N` raises it, up to " +
         std::to_string(kMaxSweepShapesLimit) + ")";
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, separator);)
    parts.push_back(part);
  return parts;
}

// Every counter name any point collected, in first-seen order: the CSV's counter columns.
std::vector<std::string> counter_columns(const std::vector<SweepPoint>& points) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const SweepPoint& p : points)
    if (p.result && p.result->counters)
      for (const CounterValue& v : p.result->counters->values)
        if (seen.insert(v.name).second)
          names.push_back(v.name);
  return names;
}

// The counter figures the model predicts: a "predicted_KEY" column each, beside the counters.
std::vector<const Figure*> predicted_columns() {
  std::vector<const Figure*> columns;
  for (const Figure& f : all_figures())
    if (f.counter && f.predicted && f.key != "achieved_occupancy") // that one is a bound
      columns.push_back(&f);
  return columns;
}

} // namespace

std::vector<int> parse_side_list(const std::string& text, const std::string& option,
                                 std::size_t max_sides) {
  const std::vector<std::string> range = split(text, ':');
  const std::string shown = option + " '" + clip(text, 40) + "'";
  std::int64_t count = 0;
  if (range.size() == 3) {
    const int start = parse_int(range[0], "start", shown), end = parse_int(range[1], "end", shown),
              step = parse_int(range[2], "step", shown);
    if (end < start)
      throw UsageError(shown + ": the end is before the start; write start:end:step");
    count = (std::int64_t{end} - start) / step + 1; // in 64 bits: end + step may pass INT_MAX
  } else if (range.size() == 1) {
    count = std::count(text.begin(), text.end(), ',') + 1;
  } else {
    throw UsageError(shown + ": write start:end:step or a comma-separated list");
  }
  if (count > static_cast<std::int64_t>(max_sides))
    throw UsageError(shown + ": " + std::to_string(count) + " sides; " + too_many_hint(max_sides));
  std::vector<int> sides;
  if (range.size() == 3) {
    const int start = parse_int(range[0], "start", shown),
              step = parse_int(range[2], "step", shown);
    for (std::int64_t i = 0; i < count; ++i)
      sides.push_back(static_cast<int>(start + i * step));
    return sides;
  }
  for (const std::string& part : split(text, ',')) {
    const int side = parse_int(part, "side", shown);
    // Measured twice, a side would be drawn twice; the list is the user's, so it is not thinned.
    if (std::find(sides.begin(), sides.end(), side) != sides.end())
      throw UsageError(shown + ": " + std::to_string(side) +
                       " is listed twice; list each side once");
    sides.push_back(side);
  }
  if (sides.empty())
    throw UsageError(option + " is empty; write start:end:step or a comma-separated list");
  return sides;
}

std::vector<BlockShape> sweep_shapes(const std::vector<int>& xs, const std::vector<int>& ys,
                                     const std::vector<int>& zs, std::size_t max_shapes) {
  // Each list is short (a parsed list holds at most kMaxSweepShapesLimit), so the product fits.
  const std::uint64_t total = std::uint64_t{xs.size()} * ys.size() * zs.size();
  if (total > max_shapes)
    throw UsageError("the sweep has " + std::to_string(total) + " shapes (" +
                     std::to_string(xs.size()) + " x " + std::to_string(ys.size()) + " x " +
                     std::to_string(zs.size()) + "); " + too_many_hint(max_shapes));
  std::vector<BlockShape> shapes;
  shapes.reserve(total);
  for (int z : zs)
    for (int y : ys)
      for (int x : xs)
        shapes.push_back(BlockShape{x, y, z});
  return shapes;
}

std::string sweep_csv(const std::vector<SweepPoint>& points) {
  const std::vector<std::string> counters = counter_columns(points);
  std::ostringstream csv;
  constexpr int kFixedColumns = 14;
  csv << "block_x,block_y,block_z,status,reason,median_ms,min_ms,noise,samples,gbps,blocks_per_sm,"
         "theoretical_occupancy,registers,verified";
  for (const std::string& name : counters)
    csv << "," << name;
  for (const Figure* f : predicted_columns())
    csv << ",predicted_" << f->key;
  csv << "\n";
  for (const SweepPoint& p : points) {
    csv << p.block.x << "," << p.block.y << "," << p.block.z << ",";
    if (!p.result) {
      // Every row has every column: a refused shape's figures are empty cells.
      const std::size_t empty_after_reason =
          kFixedColumns - 5 + counters.size() + predicted_columns().size();
      csv << "refused," << csv_quoted(p.refused) << std::string(empty_after_reason, ',') << "\n";
      continue;
    }
    const RunResult& r = *p.result;
    // A point from the models alone (the GUI's model sweep) has no timing: its cells stay empty.
    csv << (r.timing ? "ran,," : "modelled,,")
        << (r.timing ? format("%.6f,%.6f,%.5f,%d,%.2f,", r.timing->median_ms, r.timing->min_ms,
                              r.timing->noise, r.timing->samples, r.gbps())
                     : std::string(",,,,,"))
        << (r.occupancy ? format("%d,%.4f", r.occupancy->blocks_per_sm, r.occupancy->occupancy)
                        : ",")
        << "," << (r.attributes ? std::to_string(r.attributes->registers) : "") << ","
        << (r.verification ? (r.verification->passed ? "yes" : "no") : "");
    for (const std::string& name : counters) {
      csv << ",";
      if (r.counters)
        for (const CounterValue& v : r.counters->values)
          if (v.name == name)
            csv << format("%.6g", v.value);
    }
    for (const Figure* f : predicted_columns()) {
      const std::optional<double> predicted = f->predicted(r);
      csv << "," << (predicted ? format("%.0f", *predicted) : "");
    }
    csv << "\n";
  }
  return csv.str();
}

nlohmann::json sweep_points_to_json(const std::vector<SweepPoint>& points) {
  nlohmann::json list = nlohmann::json::array();
  for (const SweepPoint& p : points)
    list.push_back(p.result ? run_result_to_json(*p.result)
                            : nlohmann::json{{"block", {p.block.x, p.block.y, p.block.z}},
                                             {"refused", p.refused}});
  return list;
}

std::vector<SweepPoint> sweep_points_from_json(const nlohmann::json& list,
                                               const std::string& where) {
  if (!list.is_array() || list.empty() || list.size() > kMaxSweepShapesLimit)
    input_error(where, "", describe(list) + " is not a sweep",
                "allowed a list of 1 to " + std::to_string(kMaxSweepShapesLimit) +
                    " shapes, as warplens sweep --json writes");
  std::vector<SweepPoint> points;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = (where.empty() ? "" : where + ": ") + "[" + std::to_string(i) + "]";
    if (list[i].is_object() && list[i].contains("refused")) {
      const Fields entry(list[i], at);
      const std::vector<std::int64_t> b = entry.integers("block", 3, 3, 1, kMaxInt);
      points.push_back(
          {BlockShape{static_cast<int>(b[0]), static_cast<int>(b[1]), static_cast<int>(b[2])},
           entry.text("refused"), std::nullopt});
      continue;
    }
    RunResult result = run_result_from_json(list[i], at);
    points.push_back({result.launch.block, "", std::move(result)});
  }
  return points;
}

} // namespace wl
