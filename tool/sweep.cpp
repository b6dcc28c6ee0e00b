#include "sweep.h"

#include "block_text.h"
#include "error.h"
#include "run_report.h"
#include "text_format.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <future>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

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

// The counters of every shape that ran, a batch of shapes per profiling session: each pass
// runs the whole batch, so the session's fixed cost is shared.
void add_counters(KernelSession& session, std::vector<SweepPoint>& points) {
  constexpr std::size_t kShapesPerSession = 64;
  std::vector<SweepPoint*> measured;
  for (SweepPoint& p : points)
    if (p.result) measured.push_back(&p);
  for (std::size_t first = 0; first < measured.size(); first += kShapesPerSession) {
    const std::size_t last = std::min(measured.size(), first + kShapesPerSession);
    std::vector<BlockShape> blocks;
    for (std::size_t i = first; i < last; ++i) blocks.push_back(measured[i]->block);
    std::vector<CounterResult> counters = session.count(blocks);
    for (std::size_t i = first; i < last; ++i) measured[i]->result->counters = std::move(counters[i - first]);
  }
}

// The model of every shape, made on the other cores while the GPU measures the shapes in order:
// each worker takes the next shape nobody has started, so the first shapes are ready first.
class Predictions {
public:
  Predictions(const KernelSession& session, const std::vector<BlockShape>& shapes)
      : m_session(session), m_shapes(shapes), m_promises(shapes.size()) {
    for (std::promise<RunResult>& p : m_promises) m_futures.push_back(p.get_future());
    const unsigned workers = std::clamp(std::thread::hardware_concurrency(), 2u, 16u) - 1;
    for (unsigned w = 0; w < std::min<std::size_t>(workers, shapes.size()); ++w) m_workers.emplace_back([this] { work(); });
  }

  // Throws what the model threw for that shape (UsageError for a shape the kernel refuses).
  RunResult get(std::size_t index) { return m_futures[index].get(); }

private:
  void work() {
    for (std::size_t i = m_next++; i < m_shapes.size(); i = m_next++) {
      try {
        m_promises[i].set_value(m_session.predict(m_shapes[i]));
      } catch (...) {
        m_promises[i].set_exception(std::current_exception());
      }
    }
  }

  const KernelSession& m_session;
  const std::vector<BlockShape>& m_shapes;
  std::vector<std::promise<RunResult>> m_promises;
  std::vector<std::future<RunResult>> m_futures;
  std::atomic<std::size_t> m_next{0};
  std::vector<std::jthread> m_workers; // last: joined before the rest is destroyed
};

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

SweepRun run_sweep(const KernelDesc& kernel, const Params& params, const std::vector<BlockShape>& shapes,
                   const EngineOptions& options, const std::function<void(int, int, const SweepPoint&)>& progress) {
  KernelSession session(kernel, params, options);
  SweepRun run;
  run.setup = session.setup();
  const auto start = std::chrono::steady_clock::now();
  Predictions predictions(session, shapes);
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    SweepPoint point{shapes[i], "", std::nullopt};
    try {
      point.result = session.measure(predictions.get(i), false);
    } catch (const UsageError& e) {
      point.refused = e.what();
    }
    run.points.push_back(std::move(point));
    if (progress) progress(static_cast<int>(run.points.size()), static_cast<int>(shapes.size()), run.points.back());
  }
  if (!options.metrics.empty()) add_counters(session, run.points);
  run.shape_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

std::string sweep_cost_summary(const SweepRun& run) {
  const SessionSetup& s = run.setup;
  double model = 0, verify = 0, timing = 0, counters = 0;
  int ran = 0;
  for (const SweepPoint& p : run.points) {
    if (!p.result) continue;
    ++ran;
    model += p.result->prediction.seconds;
    if (p.result->verification) verify += p.result->verification->seconds;
    if (p.result->timing) timing += p.result->timing->seconds;
    if (p.result->counters) counters += p.result->counters->seconds;
  }
  const auto ms_each = [&](double seconds) { return ran ? 1e3 * seconds / ran : 0.0; };
  return format("set-up %.2f s (device %.2f, inputs %.2f, reference %.2f, upload %.2f, counter profiler %.2f "
                "alongside); %d shapes measured in %.2f s, %.1f ms each (verify %.1f, timing %.1f, counters %.1f; "
                "the model, %.1f ms each, made alongside on other cores)",
                s.total, s.device, s.inputs, s.reference, s.upload, s.counters, ran, run.shape_seconds,
                ms_each(run.shape_seconds), ms_each(verify), ms_each(timing), ms_each(counters), ms_each(model));
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
    csv << "ran,," << format("%.6f,%.6f,%.5f,%d,%.2f,", r.timing->median_ms, r.timing->min_ms, r.timing->noise,
                             r.timing->samples, r.gbps())
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

} // namespace wl
