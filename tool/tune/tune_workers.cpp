#include "tune/tune_workers.h"

#include "base/child_process.h"
#include "base/error.h"
#include "base/json_input.h"
#include "base/text_format.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

namespace wl {

namespace {

// As a sweep's chunks (sweep_fanout.cpp): a point whose worker died this often is refused rather
// than sent again, and a worker that lost this many points in a row takes no more.
constexpr int kMostDeathsPerPoint = 3;
constexpr int kMostLossesInARow = 3;

// The answer to `id`, or nullptr once the worker has failed for good (it could not start, or
// died too often); the client answers a request in flight when its worker dies.
std::shared_ptr<const WorkerAnswer> answer_to(const WorkerClient& client, std::int64_t id) {
  while (true) {
    if (auto answer = client.wait_for(id, std::chrono::milliseconds(500)))
      return answer;
    if (client.latest().status == WorkerStatus::failed)
      return client.wait_for(id, std::chrono::milliseconds(0));
  }
}

std::string failure_of(const WorkerClient& client) {
  const std::string last = client.latest().last_failure;
  return last.empty() ? "it could not start" : last;
}

// A model of one allowed launch on the worker's own GPU (no kernel runs): asked of every worker at
// once, so that they start side by side.
std::int64_t ask_gpu(WorkerClient& client, const KernelRequest& base, const EngineOptions& engine) {
  WorkerRequest r;
  r.engine = engine;
  r.type = RequestType::model;
  r.kernel_id = base.kernel->id;
  r.params = base.params;
  const std::vector<BlockShape> allowed = allowed_presets(*base.kernel, base.params);
  r.block = allowed.empty() ? base.kernel->default_block : allowed.front();
  r.arch = "device:" + std::to_string(engine.device);
  r.engine.model.max_evaluations = 1;
  return client.submit(r);
}

// Why no worker could measure, in one line: a reason every worker gave once, else each worker's
// (the first few).
std::string none_could(const std::vector<std::pair<std::string, std::string>>& stopped) {
  const bool same = std::all_of(stopped.begin(), stopped.end(),
                                [&](const auto& s) { return s.second == stopped.front().second; });
  if (same)
    return "no worker could measure the tune: " +
           (stopped.size() == 1 ? stopped.front().first
                                : "each of the " + std::to_string(stopped.size()) + " workers") +
           " stopped: " + clip(stopped.front().second, 300);
  std::string text = "no worker could measure the tune: ";
  for (std::size_t i = 0; i < std::min<std::size_t>(stopped.size(), 3); ++i)
    text += (i ? "; " : "") + stopped[i].first + ": " + clip(stopped[i].second, 120);
  if (stopped.size() > 3)
    text += "; and " + std::to_string(stopped.size() - 3) + " more";
  return text;
}

// The devices' words for the cache: one kind, each board by its id.
std::string devices_text(const std::vector<Arch>& gpus) {
  std::set<std::string> boards;
  for (const Arch& a : gpus)
    boards.insert(a.uuid.empty() ? "no id" : a.uuid.substr(0, 12));
  std::string text = gpus.front().name + " (";
  for (const std::string& b : boards)
    text += (text.back() == '(' ? "" : ", ") + b;
  return text + ")";
}

// One worker's measurer: each point a sweep of one launch.
class WorkerMeasure {
public:
  WorkerMeasure(TuneWorker& worker, const KernelDesc& kernel, const EngineOptions& engine,
                std::shared_ptr<std::map<std::string, int>> deaths,
                std::shared_ptr<std::mutex> deaths_guard)
      : m_worker(&worker), m_kernel(&kernel), m_engine(engine), m_deaths(std::move(deaths)),
        m_deaths_guard(std::move(deaths_guard)) {}

  SweepPoint operator()(const SweepPoint& modelled) {
    while (true) {
      WorkerRequest r;
      r.engine = m_engine;
      r.type = RequestType::sweep;
      r.kernel_id = m_kernel->id;
      r.params = modelled.params;
      r.shapes = {modelled.block};
      WorkerClient& client = *m_worker->client;
      const std::shared_ptr<const WorkerAnswer> answer = answer_to(client, client.submit(r));
      if (!answer)
        throw TuneMeasurerStopped{m_worker->name + " stopped: " + failure_of(client)};
      if (answer->sweep && answer->sweep->size() == 1) {
        m_losses_in_a_row = 0;
        return answer->sweep->front();
      }
      if (answer->no_gpu || answer->refused)
        throw TuneMeasurerStopped{
            m_worker->name +
            " stopped: " + (answer->refused ? answer->error : "no GPU there: " + answer->error)};
      if (answer->worker_died && answer->ran_past_budget)
        return refused(modelled, "not measured within the request's budget, so not tried again: " +
                                     answer->error);
      if (!(answer->worker_died || answer->fatal || answer->cancelled))
        return refused(modelled, answer->error.empty() ? "the worker refused it without a reason"
                                                       : answer->error);
      // Lost with its worker: measured again (its client starts another), unless this point has
      // now ended workers too often or this worker has lost too many in a row.
      if (died_too_often(modelled))
        return refused(modelled, "every worker that ran this point died: " + answer->error);
      if (++m_losses_in_a_row >= kMostLossesInARow)
        throw TuneMeasurerStopped{m_worker->name +
                                  " stopped: " + std::to_string(kMostLossesInARow) +
                                  " points in a row lost: " + answer->error};
    }
  }

private:
  static SweepPoint refused(const SweepPoint& modelled, const std::string& why) {
    return SweepPoint{modelled.block, why, std::nullopt, modelled.params};
  }

  bool died_too_often(const SweepPoint& modelled) {
    const std::lock_guard lock(*m_deaths_guard);
    return ++(*m_deaths)[tune_point_key(modelled)] >= kMostDeathsPerPoint;
  }

  TuneWorker* m_worker;
  const KernelDesc* m_kernel;
  EngineOptions m_engine;
  std::shared_ptr<std::map<std::string, int>> m_deaths; // by point, over every worker
  std::shared_ptr<std::mutex> m_deaths_guard;
  int m_losses_in_a_row = 0;
};

} // namespace

TuneWorkers start_tune_workers(const std::vector<std::string>& commands, const KernelRequest& base,
                               const EngineOptions& engine,
                               const std::function<void(const std::string&)>& say) {
  std::vector<TuneWorker> started;
  std::vector<std::int64_t> probes;
  for (std::size_t i = 0; i < commands.size(); ++i) {
    const std::string shown = commands[i].empty() ? running_executable() + " worker" : commands[i];
    started.push_back(
        {"worker " + std::to_string(i + 1) + " (" + clip(shown, 60) + ")",
         std::make_unique<WorkerClient>(WorkerClientOptions{.command = commands[i]})});
    probes.push_back(ask_gpu(*started.back().client, base, engine));
  }
  TuneWorkers out;
  std::vector<Arch> gpus;
  std::set<std::string> drivers;
  std::vector<std::pair<std::string, std::string>> stopped; // name, why
  for (std::size_t i = 0; i < started.size(); ++i) {
    WorkerClient& client = *started[i].client;
    const std::shared_ptr<const WorkerAnswer> answer = answer_to(client, probes[i]);
    if (!answer || !answer->result) {
      stopped.emplace_back(started[i].name, answer ? answer->error : failure_of(client));
      continue;
    }
    gpus.push_back(answer->result->arch);
    const std::string driver = client.latest().driver;
    drivers.insert(driver.empty() ? "unknown" : driver);
    out.workers.push_back(std::move(started[i]));
  }
  if (out.workers.empty())
    throw UsageError(none_could(stopped));
  for (const auto& [name, why] : stopped)
    say(name + " stopped: " + clip(why, 300) + "; the others measure its points");
  for (std::size_t i = 0; i < out.workers.size(); ++i)
    say(out.workers[i].name + ": " + device_label(gpus[i]));
  for (const Arch& a : gpus)
    if (a.name != gpus.front().name)
      throw UsageError("the workers' GPUs are of different kinds (" + gpus.front().name + ", " +
                       a.name + "): a tune's times are one series; give workers on one kind");
  out.arch = gpus.front();
  out.device = devices_text(gpus);
  for (const std::string& d : drivers)
    out.driver += (out.driver.empty() ? "" : ", ") + d;
  return out;
}

std::vector<TuneMeasure> tune_worker_measures(TuneWorkers& workers, const KernelDesc& kernel,
                                              const EngineOptions& engine) {
  auto deaths = std::make_shared<std::map<std::string, int>>();
  auto guard = std::make_shared<std::mutex>();
  std::vector<TuneMeasure> measures;
  for (TuneWorker& w : workers.workers)
    measures.push_back(WorkerMeasure(w, kernel, engine, deaths, guard));
  return measures;
}

} // namespace wl
