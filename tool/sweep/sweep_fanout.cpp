#include "sweep/sweep_fanout.h"

#include "base/child_process.h"
#include "base/error.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "protocol/worker_client.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>

namespace wl {

namespace {

using Clock = std::chrono::steady_clock;

// Points of one parameter set, shapes [first, first + count) of the grid.
struct Chunk {
  std::size_t set = 0, first = 0, count = 0;
};

// A chunk gives back its points after this many workers died under it: the points, not the
// workers, are then the likely cause (a kernel that kills every worker it runs on).
constexpr int kMostDeathsPerChunk = 3;
// A worker that lost this many chunks in a row serves no more.
constexpr int kMostLossesInARow = 3;

struct Slot {
  std::unique_ptr<WorkerClient> client;
  WorkerShare share;
  std::optional<Chunk> chunk;
  std::int64_t request = 0;
  int losses_in_a_row = 0;
  int group = -1;         // the device whose points it measures; -1 while its GPU is asked
  std::int64_t probe = 0; // the request asking its GPU (per-device sweeps), 0 before it is sent
};

// One series: every chunk of the grid, measured by the workers of one GPU (per device) or by all.
struct Group {
  std::string device;
  std::deque<Chunk> queue;
  std::vector<std::optional<SweepPoint>> results; // by grid index
  std::vector<int> deaths;                        // per chunk
  std::size_t done = 0;                           // chunks measured or refused
  std::size_t points_done = 0;                    // points measured
};

// Two chunks per worker for each parameter set: enough to even out workers of different speed
// and to lose little when one dies, few enough that each chunk's set-up (inputs, reference) is
// paid rarely.
std::deque<Chunk> make_chunks(std::size_t sets, std::size_t shapes, std::size_t workers) {
  const std::size_t per_chunk =
      std::max<std::size_t>(1, (shapes + 2 * workers - 1) / (2 * workers));
  std::deque<Chunk> chunks;
  for (std::size_t set = 0; set < sets; ++set)
    for (std::size_t first = 0; first < shapes; first += per_chunk)
      chunks.push_back({set, first, std::min(per_chunk, shapes - first)});
  return chunks;
}

class FanOut {
public:
  FanOut(const KernelRequest& base, const SweepGrid& grid, const FanOutOptions& options,
         const std::function<void(const std::string&)>& say)
      : m_base(base), m_grid(grid), m_options(options), m_say(say),
        m_sets(
            param_sets(base.params, grid, kMaxSweepShapesLimit)), // the CLI held it to --max-shapes
        m_chunks(make_chunks(m_sets.size(), grid.shapes.size(), options.commands.size())) {
    for (std::size_t i = 0; i < m_chunks.size(); ++i)
      m_deaths_by_start[{m_chunks[i].set, m_chunks[i].first}] = i;
    if (!options.per_device)
      add_group(""); // one series, whatever GPUs the workers have (checked at the end)
    for (const std::string& command : options.commands) {
      Slot slot;
      slot.share.command = command.empty() ? running_executable() + " worker" : command;
      WorkerClientOptions client = options.client;
      client.command = command;
      slot.client = std::make_unique<WorkerClient>(std::move(client));
      slot.group = options.per_device ? -1 : 0;
      m_slots.push_back(std::move(slot));
    }
  }

  FanOutRun run() {
    const auto start = Clock::now();
    while (!finished()) {
      for (std::size_t w = 0; w < m_slots.size(); ++w)
        serve(w);
      if (std::all_of(m_slots.begin(), m_slots.end(),
                      [](const Slot& s) { return !s.share.stopped.empty(); }))
        throw UsageError(every_worker_stopped());
      for (std::size_t g = 0; g < m_groups.size(); ++g)
        give_up_if_unserved(g);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    FanOutRun run;
    for (Group& group : m_groups) {
      DeviceSweep device{group.device, {}};
      for (std::optional<SweepPoint>& p : group.results)
        device.points.push_back(std::move(*p));
      if (device.device.empty())
        device.device = device_of(device.points);
      run.devices.push_back(std::move(device));
    }
    for (const Slot& s : m_slots)
      run.workers.push_back(s.share);
    run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return run;
  }

private:
  std::string name(std::size_t w) const {
    return "worker " + std::to_string(w + 1) + " (" + clip(m_slots[w].share.command, 60) + ")";
  }

  void stop(std::size_t w, const std::string& why) {
    Slot& slot = m_slots[w];
    slot.share.stopped = why;
    if (slot.chunk)
      m_groups[slot.group].queue.push_front(*slot.chunk);
    slot.chunk.reset();
    m_say(name(w) + " stopped: " + why);
  }

  void serve(std::size_t w) {
    Slot& slot = m_slots[w];
    if (!slot.share.stopped.empty())
      return;
    const WorkerSnapshot snapshot = slot.client->latest();
    if (snapshot.status == WorkerStatus::failed) {
      stop(w, snapshot.last_failure.empty() ? "it could not start" : snapshot.last_failure);
      return;
    }
    if (slot.group < 0) {
      ask_device(w);
      return;
    }
    Group& group = m_groups[slot.group];
    if (!slot.chunk && !group.queue.empty()) {
      slot.chunk = group.queue.front();
      group.queue.pop_front();
      slot.request = slot.client->submit(request_for(*slot.chunk));
    }
    if (!slot.chunk)
      return;
    const std::shared_ptr<const WorkerAnswer> answer =
        slot.client->wait_for(slot.request, std::chrono::milliseconds(0));
    if (answer)
      take(w, *answer);
  }

  // A per-device sweep first asks each worker its GPU (the model of one launch on the worker's own
  // device: no kernel runs), then deals it the chunks of that GPU's series.
  void ask_device(std::size_t w) {
    Slot& slot = m_slots[w];
    if (slot.probe == 0) {
      WorkerRequest r;
      r.engine = m_options.engine;
      r.type = RequestType::model;
      r.kernel_id = m_base.kernel->id;
      r.params = m_base.params;
      // A launch the kernel allows with these parameters: a refusal would say nothing of the GPU.
      const std::vector<BlockShape> allowed = allowed_presets(*m_base.kernel, m_base.params);
      r.block = allowed.empty() ? m_base.kernel->default_block : allowed.front();
      r.arch = "device:" + std::to_string(m_options.engine.device);
      r.engine.model.max_evaluations = 1;
      slot.probe = slot.client->submit(r);
    }
    const std::shared_ptr<const WorkerAnswer> answer =
        slot.client->wait_for(slot.probe, std::chrono::milliseconds(0));
    if (!answer)
      return;
    if (!answer->result) {
      if (answer->worker_died && ++slot.losses_in_a_row < kMostLossesInARow) {
        slot.probe = 0; // its client starts another worker: ask again
        return;
      }
      stop(w, "its GPU could not be identified: " + answer->error);
      return;
    }
    slot.group = group_for(device_label(answer->result->arch));
    m_say(name(w) + ": " + device_label(answer->result->arch));
  }

  int group_for(const std::string& device) {
    for (std::size_t g = 0; g < m_groups.size(); ++g)
      if (m_groups[g].device == device)
        return static_cast<int>(g);
    add_group(device);
    return static_cast<int>(m_groups.size() - 1);
  }

  void add_group(const std::string& device) {
    Group group;
    group.device = device;
    group.queue.assign(m_chunks.begin(), m_chunks.end());
    group.results.resize(m_sets.size() * m_grid.shapes.size());
    group.deaths.assign(m_chunks.size(), 0);
    m_groups.push_back(std::move(group));
  }

  // Done when every worker knows its GPU (or stopped) and every GPU's points are in.
  bool finished() const {
    return std::all_of(m_slots.begin(), m_slots.end(),
                       [](const Slot& s) { return s.group >= 0 || !s.share.stopped.empty(); }) &&
           std::all_of(m_groups.begin(), m_groups.end(),
                       [&](const Group& g) { return g.done == m_chunks.size(); });
  }

  // A GPU whose every worker stopped keeps the points they measured; the rest are refused with
  // the reasons, so its series says where it ends rather than the sweep failing for every GPU.
  void give_up_if_unserved(std::size_t g) {
    Group& group = m_groups[g];
    if (group.done == m_chunks.size())
      return;
    std::string reasons;
    for (std::size_t w = 0; w < m_slots.size(); ++w) {
      if (m_slots[w].group != static_cast<int>(g))
        continue;
      if (m_slots[w].share.stopped.empty())
        return;
      reasons +=
          (reasons.empty() ? "" : "; ") + name(w) + ": " + clip(m_slots[w].share.stopped, 160);
    }
    if (reasons.empty())
      return; // the one group of a plain sweep before any worker stopped: every_worker_stopped
    m_say("every worker on " + group.device + " stopped; its unmeasured points are refused");
    while (!group.queue.empty()) {
      refuse(group, group.queue.front(),
             "every worker on " + group.device + " stopped: " + reasons);
      group.queue.pop_front();
    }
  }

  WorkerRequest request_for(const Chunk& chunk) const {
    WorkerRequest r;
    r.engine = m_options.engine;
    r.type = RequestType::sweep;
    r.kernel_id = m_base.kernel->id;
    r.params = m_sets[chunk.set];
    r.block.reset();
    r.param_axes.clear();
    r.shapes.assign(m_grid.shapes.begin() + static_cast<std::ptrdiff_t>(chunk.first),
                    m_grid.shapes.begin() + static_cast<std::ptrdiff_t>(chunk.first + chunk.count));
    return r;
  }

  void take(std::size_t w, const WorkerAnswer& answer) {
    Slot& slot = m_slots[w];
    Group& group = m_groups[slot.group];
    const Chunk chunk = *slot.chunk;
    slot.chunk.reset();
    if (answer.sweep && counters_held_elsewhere(*answer.sweep)) {
      // The first worker to open a GPU's profiler keeps it; this one would never count here.
      group.queue.push_front(chunk);
      stop(w, "its GPU's counters are held by another worker's profiler (CUPTI lets one process "
              "profile a GPU at a time); the other workers measure its points");
      return;
    }
    if (answer.sweep) {
      for (std::size_t i = 0; i < chunk.count; ++i)
        group.results[chunk.set * m_grid.shapes.size() + chunk.first + i] = (*answer.sweep)[i];
      slot.share.points += static_cast<int>(chunk.count);
      slot.losses_in_a_row = 0;
      ++group.done;
      group.points_done += chunk.count;
      m_say(format("[%zu/%zu] ", group.points_done, group.results.size()) +
            (group.device.empty() ? "" : group.device + ", ") + name(w) + ": " +
            counted(chunk.count, "point"));
      return;
    }
    if (answer.worker_died && answer.ran_past_budget) {
      // A worker that kept talking past the budget without finishing these points would do the
      // same again: they get one budget in all, not a full one for worker after worker.
      refuse(group, chunk,
             "not measured within the request's budget, so not tried again: " + answer.error);
      m_say(name(w) + " ran past its budget on " + counted(chunk.count, "point") +
            "; refused, not tried again (a chunk gets one budget in all): " + answer.error);
      if (++slot.losses_in_a_row >= kMostLossesInARow)
        stop(w, std::to_string(kMostLossesInARow) + " chunks in a row lost: " + answer.error);
      return;
    }
    if (answer.no_gpu || answer.refused) {
      // A worker whose answer was refused (not what was asked, or not what a GPU measures) may
      // be wrong on every chunk: the others measure this one.
      group.queue.push_front(chunk);
      stop(w, answer.refused ? answer.error : "no GPU there: " + answer.error);
      return;
    }
    if (answer.worker_died || answer.fatal || answer.cancelled) {
      ++slot.share.chunks_lost;
      const std::size_t index = m_deaths_by_start.at({chunk.set, chunk.first});
      if (++group.deaths[index] < kMostDeathsPerChunk) {
        group.queue.push_front(chunk); // another worker (or this one's successor) measures it again
        m_say(name(w) + " lost " + counted(chunk.count, "point") + ", given back: " + answer.error);
      } else {
        refuse(group, chunk, "every worker that ran these points died: " + answer.error);
      }
      if (++slot.losses_in_a_row >= kMostLossesInARow)
        stop(w, std::to_string(kMostLossesInARow) + " chunks in a row lost: " + answer.error);
      return;
    }
    // The worker refused the request itself (what it says applies to these points alone). The
    // client checked that an answer with points has the chunk's (answer_check.h).
    refuse(group, chunk,
           answer.error.empty() ? "the worker refused these points without a reason"
                                : answer.error);
  }

  bool counters_held_elsewhere(const std::vector<SweepPoint>& points) const {
    return !m_options.engine.metrics.empty() &&
           std::any_of(points.begin(), points.end(), [](const SweepPoint& p) {
             return p.result && p.result->counters && !p.result->counters->available &&
                    p.result->counters->reason.find("CUPTI_ERROR_HARDWARE_BUSY") !=
                        std::string::npos;
           });
  }

  void refuse(Group& group, const Chunk& chunk, const std::string& why) {
    for (std::size_t i = 0; i < chunk.count; ++i)
      group.results[chunk.set * m_grid.shapes.size() + chunk.first + i] =
          SweepPoint{m_grid.shapes[chunk.first + i], why, std::nullopt, m_sets[chunk.set]};
    ++group.done;
  }

  // A point is measured when it has a result: one refused (by the kernel, or because every
  // worker that ran it died) has its place filled but was not measured.
  std::string every_worker_stopped() const {
    std::size_t measured = 0, refused = 0, total = 0;
    for (const Group& group : m_groups) {
      total += group.results.size();
      for (const std::optional<SweepPoint>& p : group.results) {
        measured += p && p->result;
        refused += p && !p->result;
      }
    }
    std::string text = "every worker stopped with " + std::to_string(measured) + " of " +
                       std::to_string(total ? total : m_sets.size() * m_grid.shapes.size()) +
                       " points measured" +
                       (refused ? " (" + std::to_string(refused) + " refused)" : std::string());
    // One reason said once when every worker gave it (no GPU anywhere), else each worker's.
    const std::string& first = m_slots.front().share.stopped;
    const bool alike = std::all_of(m_slots.begin(), m_slots.end(),
                                   [&](const Slot& slot) { return slot.share.stopped == first; });
    if (alike)
      return text + ", each because " + first;
    for (std::size_t w = 0; w < m_slots.size(); ++w)
      text += "; " + name(w) + ": " + clip(m_slots[w].share.stopped, 160);
    return text;
  }

  // The one GPU kind a plain sweep's points came from; refused when there were several.
  static std::string device_of(const std::vector<SweepPoint>& points) {
    std::set<std::string> devices;
    for (const SweepPoint& p : points)
      if (p.result)
        devices.insert(p.result->arch.name);
    if (devices.size() > 1) {
      std::string names;
      for (const std::string& d : devices)
        names += (names.empty() ? "" : ", ") + d;
      throw UsageError("the workers measured on different GPUs (" + names +
                       "); one series' points must come from one kind of GPU: give workers of "
                       "one kind, or --per-device for a series per GPU");
    }
    return devices.empty() ? "" : *devices.begin();
  }

  const KernelRequest& m_base;
  const SweepGrid& m_grid;
  const FanOutOptions& m_options;
  const std::function<void(const std::string&)>& m_say;
  const std::vector<Params> m_sets;
  const std::deque<Chunk> m_chunks; // every GPU's series measures all of them
  std::map<std::pair<std::size_t, std::size_t>, std::size_t> m_deaths_by_start;
  std::vector<Group> m_groups;
  std::vector<Slot> m_slots;
};

} // namespace

std::string local_worker_command(int device) {
  return "CUDA_VISIBLE_DEVICES=" + std::to_string(device) + " exec '" + running_executable() +
         "' worker";
}

FanOutRun fan_out_sweep(const KernelRequest& base, const SweepGrid& grid,
                        const FanOutOptions& options,
                        const std::function<void(const std::string&)>& say) {
  if (options.commands.empty())
    throw UsageError("a fanned-out sweep needs at least one worker");
  return FanOut(base, grid, options, say).run();
}

} // namespace wl
