#include "protocol/worker_client.h"

#include "base/child_process.h"
#include "base/error.h"
#include "base/json_fields.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "kernel_file/compile_server.h"
#include "protocol/answer_check.h"
#include "registry.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

namespace wl {

namespace {

constexpr std::size_t kRecentAnswers = 64;
constexpr std::size_t kStderrTail = 5;
// Each text a worker sends (a device name, a message) is cut to this: the longest it sends when
// it is right is a counter comparison's reason of about 300 bytes.
constexpr std::size_t kMostWorkerTextBytes = 1000;
// A worker that answered with a fatal error exits at once (its CUDA context is gone); past this,
// it is killed, so the requests waiting for the next worker are not held up by it.
constexpr double kExitAfterFatal = 5;

std::vector<std::string> worker_argv(const std::string& command) {
  if (command.empty())
    return {running_executable(), "worker"};
  return {"/bin/sh", "-c", command};
}

std::string request_words(const WorkerRequest& request) {
  return format("request %lld (%s %s)", static_cast<long long>(request.id),
                request_type_name(request.type), request.kernel_id.c_str());
}

} // namespace

struct WorkerClient::Worker {
  std::unique_ptr<ChildProcess> process;
  std::thread thread; // runs serve()
  Clock::time_point started;
  Clock::time_point last_line; // of stdout: the heartbeat shows a busy worker is alive
  bool hello = false;
  bool ended = false;
  int answered = 0;
  std::string kill_reason;    // set by whoever killed it
  std::string fatal_message;  // its last error before a sticky-CUDA-error exit
  Clock::time_point fatal_at; // when it said so: it has kExitAfterFatal to end
  std::int64_t overran = 0;   // the request it was killed for running past the budget of
  std::deque<std::string> stderr_tail;
  std::ofstream log;
  bool wrote = false; // a line on stdout, read or not
  // Its first line when that was no hello and arrived after the worker was already judged (its
  // input broke first): unread, it would go unnamed, and it most often says what went wrong.
  std::string first_line;

  // Why it ended, in one line: the watchdog's reason, the sticky error, or how it exited.
  // A kill reason keeps how the process ended: a worker whose input broke because it had already
  // exited says so with its exit code.
  std::string ending(const std::string& how) const {
    const std::string exited =
        "the worker " + how + (hello ? "" : " before saying hello") +
        (first_line.empty() ? "" : "; its first line was '" + first_line + "', not a hello");
    std::string reason = !kill_reason.empty() ? kill_reason + "; " + exited
                         : !fatal_message.empty()
                             ? "the worker stopped after a sticky CUDA error: " + fatal_message
                             : exited;
    if (kill_reason.empty() && !stderr_tail.empty())
      reason += "; last line on stderr: " + stderr_tail.back();
    return reason;
  }
};

WorkerClient::WorkerClient(WorkerClientOptions options) : m_options(std::move(options)) {
  m_snapshot.command = m_options.command.empty() ? "warplens worker" : m_options.command;
  {
    const std::lock_guard lock(m_mutex);
    start_locked();
  }
  m_watchdog = std::thread(&WorkerClient::watch, this);
}

WorkerClient::~WorkerClient() {
  {
    std::unique_lock lock(m_mutex);
    m_stopping = true;
    if (m_worker && !m_worker->ended) {
      m_worker->process->send(
          protocol_line(request_to_json({.id = m_next_id++, .type = RequestType::shutdown})));
      m_worker->process->close_input();
    }
    if (!m_changed.wait_for(lock, std::chrono::milliseconds(500), [&] { return !m_worker; })) {
      kill_locked(*m_worker, "the client is closing");
      m_changed.wait(lock, [&] { return !m_worker; });
    }
  }
  m_changed.notify_all();
  m_watchdog.join();
}

namespace {

// What a request's own work may take, beside the set-up the options allow: its timing budget, a
// pass of counters, one per site, one of PC sampling and an energy batch where asked, the CPU
// reference of each parameter set at a pessimistic 1 GFLOP/s and 1 GB/s (a 4096^3 matmul's is
// minutes, a vector add's a fraction of a second), a kernel file's compile (the compile server's
// deadline) and its launches' limit; a sweep that for every point. A worker whose progress only
// repeats is given up at this, not at a fixed minute: progress is not an answer.
double request_seconds(const WorkerRequest& request) {
  // Counters, per-site or stalls: CUPTI's set-up and replays; energy: its batch and the waits
  // for NVML's counter.
  constexpr double kPerPass = 10;
  constexpr double kPerShapeBesideTiming = 0.5; // its upload, verification and model
  const EngineOptions& e = request.engine;
  const double passes = (e.metrics.empty() ? 0 : kPerPass) + (e.per_site ? kPerPass : 0) +
                        (e.stalls ? kPerPass : 0) + (e.energy ? kPerPass : 0);
  const double file =
      request.kernel_file ? CompileLimits{}.seconds + request.engine.kernel_time_limit : 0;
  double reference = 0;
  if (const KernelDesc* kernel = find_kernel(request.kernel_id); kernel && e.verify) {
    try {
      const double flops = kernel->flops ? kernel->flops(request.params) : 0;
      reference = flops / 1e9 + kernel->bytes_moved(request.params) / 1e9;
    } catch (const std::exception&) { // parameters the kernel refuses: the worker says so at once
    }
  }
  if (request.type == RequestType::run)
    return e.timing.max_seconds + passes + reference + file;
  if (request.type == RequestType::sweep) {
    const SweepGrid grid{request.shapes, request.param_axes};
    const double points = static_cast<double>(grid.points());
    const double sets = points / static_cast<double>(std::max<std::size_t>(1, grid.shapes.size()));
    return points * (e.timing.max_seconds + kPerShapeBesideTiming + passes) + sets * reference +
           file;
  }
  return file; // a model: its compile, and the model's own time, which the set-up allows
}

} // namespace

std::int64_t WorkerClient::submit(WorkerRequest request, double budget_seconds) {
  attach_kernel_file(request); // a worker knows a person's kernel only from the text it is sent
  std::int64_t id = 0;
  {
    const std::lock_guard lock(m_mutex);
    id = request.id = m_next_id++;
    if (budget_seconds <= 0)
      budget_seconds = m_options.setup_seconds + request_seconds(request);
    Pending& pending = m_pending[id];
    pending.request = std::move(request);
    pending.budget_seconds = budget_seconds;
    m_snapshot.newest_request = id;
    m_snapshot.phase.clear();
    m_snapshot.done = m_snapshot.total = 0;
    m_snapshot.timed_part.reset();
    if (!m_worker && !m_restart_wanted && !m_stopping)
      start_locked(); // sends what is pending
    else
      send_locked(pending);
    update_status_locked();
  }
  m_changed.notify_all(); // the watchdog times the request
  notify();
  return id;
}

void WorkerClient::cancel_all() {
  const std::lock_guard lock(m_mutex);
  if (m_worker && !m_worker->ended)
    m_worker->process->send(
        protocol_line(request_to_json({.id = m_next_id++, .type = RequestType::cancel})));
}

WorkerSnapshot WorkerClient::latest() const {
  const std::lock_guard lock(m_mutex);
  return m_snapshot;
}

std::shared_ptr<const WorkerAnswer>
WorkerClient::wait_for(std::int64_t id, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(m_mutex);
  std::shared_ptr<const WorkerAnswer> found;
  m_changed.wait_for(lock, timeout, [&] {
    for (const auto& answer : m_recent)
      if (answer->id == id)
        found = answer;
    return found != nullptr;
  });
  return found;
}

void WorkerClient::start_locked() {
  auto worker = std::make_unique<Worker>();
  try {
    worker->process = std::make_unique<ChildProcess>(worker_argv(m_options.command));
  } catch (const Error& e) {
    m_snapshot.status = WorkerStatus::failed;
    m_snapshot.last_failure = e.what();
    while (!m_pending.empty())
      answer_locked({.id = m_pending.begin()->first,
                     .request_type = m_pending.begin()->second.request.type,
                     .error = e.what(),
                     .worker_died = true});
    return;
  }
  worker->started = Clock::now();
  if (!m_options.log_path.empty())
    worker->log.open(m_options.log_path, std::ios::app);
  if (m_snapshot.pid != 0)
    ++m_snapshot.restarts;
  m_snapshot.pid = worker->process->pid();
  m_snapshot.worker_pid = 0;
  worker->thread = std::thread(&WorkerClient::serve, this, std::ref(*worker));
  m_worker = std::move(worker);
  for (auto& [id, pending] : m_pending)
    if (!pending.sent)
      send_locked(pending);
  update_status_locked();
}

void WorkerClient::send_locked(Pending& pending) {
  // A worker that said it stops (a sticky CUDA error, a kernel past its time limit) would never
  // answer: the request waits for the next worker.
  if (!m_worker || m_worker->ended || !m_worker->fatal_message.empty())
    return; // sent by the next worker
  const bool worker_idle = !any_sent_locked();
  if (!m_worker->process->send(protocol_line(request_to_json(pending.request)))) {
    kill_locked(*m_worker, "the worker stopped reading its input");
    return;
  }
  pending.sent = true;
  if (worker_idle)
    m_head_since = Clock::now();
}

void WorkerClient::serve(Worker& worker) {
  worker.process->pump(
      [&](const std::string& line, bool too_long) { on_line(worker, line, too_long); },
      [&](const std::string& line) {
        const std::lock_guard lock(m_mutex);
        // ssh ends its lines with \r\n: the \r is the line's end, not a character to show.
        const std::string_view text(line.data(),
                                    line.ends_with('\r') ? line.size() - 1 : line.size());
        worker.stderr_tail.push_back(clip(text, 300));
        if (worker.stderr_tail.size() > kStderrTail)
          worker.stderr_tail.pop_front();
        if (worker.log)
          worker.log << line << std::endl;
      });
  on_exit(worker, worker.process->wait());
}

namespace {

// "not valid JSON (...)" from "worker line: not valid JSON (...)".
std::string without_origin(const std::string& message, const std::string& origin) {
  return message.starts_with(origin + ": ") ? message.substr(origin.size() + 2) : message;
}

// Whether `line` is a hello, of any protocol.
bool is_hello(const std::string& line) {
  try {
    return response_from_json(parse_json_text(line, "worker line", kMaxAnswerLineBytes)).type ==
           ResponseType::hello;
  } catch (const std::exception&) {
    return false;
  }
}

} // namespace

// A killed worker's line before any hello, when it is no hello: named with how the worker ended,
// since it most often says what went wrong (`echo hi; exit 3`).
void WorkerClient::remember_first_line(Worker& worker, const std::string& line) {
  if (!worker.hello && worker.first_line.empty() && !is_hello(line))
    worker.first_line = clip(line, 60);
}

// Parsing (a result can be large) happens outside the lock. A line that is not the protocol's
// stops the worker at once, naming it: the worker is broken or is no worker, and waiting for its
// silence would blame the wrong thing.
void WorkerClient::on_line(Worker& worker, const std::string& line, bool too_long) {
  {
    const std::lock_guard lock(m_mutex);
    const bool first = !worker.wrote;
    worker.wrote = true;
    if (!worker.kill_reason.empty()) {
      // Killed: the requests it had are answered as lost, whatever it still says.
      if (first && !too_long)
        remember_first_line(worker, line);
      return;
    }
    worker.last_line = Clock::now();
  }
  if (too_long) {
    refuse_line(worker, line,
                format("a line of more than %zu bytes ('%s'), more than any answer may be",
                       kMaxAnswerLineBytes, clip(line, 40).c_str()));
    return;
  }
  nlohmann::json parsed;
  try {
    parsed = parse_json_text(line, "worker line", kMaxAnswerLineBytes);
  } catch (const Error& e) {
    refuse_line(worker, line,
                "a line that is not JSON ('" + clip(line, 40) +
                    "': " + without_origin(e.what(), "worker line") + ")");
    return;
  }
  clip_texts(parsed, kMostWorkerTextBytes);
  WorkerResponse response;
  bool refused = false;
  try {
    response = read_answer(parsed);
  } catch (const std::exception& e) {
    const auto id_field = parsed.is_object() ? parsed.find("id") : parsed.end();
    const std::optional<std::int64_t> id =
        id_field != parsed.end() ? as_whole_number(*id_field) : std::nullopt;
    response = WorkerResponse{.id = id.value_or(-1),
                              .type = ResponseType::error,
                              .message = "the worker's answer was refused: " + clip(e.what(), 300)};
    refused = true;
  }
  on_response(worker, response, refused);
}

void WorkerClient::refuse_line(Worker& worker, const std::string& line, const std::string& what) {
  const std::lock_guard lock(m_mutex);
  if (worker.log) // more of it than the reason quotes; the reason follows when the worker ends
    worker.log << "(stdout) " << clip(line, 1000) << std::endl;
  // Killed meanwhile for another reason (its input broke as it exited, while this line was read).
  if (!worker.kill_reason.empty())
    remember_first_line(worker, line);
  refuse_line_locked(worker, what);
}

void WorkerClient::refuse_line_locked(Worker& worker, const std::string& what) {
  kill_locked(worker, "the worker wrote " + what +
                          (worker.hello ? ", so the client killed it"
                                        : " before its hello, so the client killed it (is the "
                                          "command right?)"));
}

// The line read and, when it answers a request still pending, checked against that request
// (answer_check.h) outside the lock: a sweep's answer can be large.
WorkerResponse WorkerClient::read_answer(const nlohmann::json& line) const {
  WorkerResponse response = response_from_json(line);
  std::optional<Pending> asked;
  {
    const std::lock_guard lock(m_mutex);
    if (const auto it = m_pending.find(response.id); it != m_pending.end())
      asked = it->second;
  }
  if (!asked)
    return response;
  check_answer(asked->request, asked->budget_seconds, response);
  return with_own_model(asked->request, std::move(response));
}

void WorkerClient::on_response(Worker& worker, const WorkerResponse& response, bool refused) {
  {
    const std::lock_guard lock(m_mutex);
    if (const std::string wrong = out_of_turn(worker, response, refused); !wrong.empty()) {
      refuse_line_locked(worker, wrong);
    } else if (response.type == ResponseType::hello) {
      // A worker of another build may mean another kernel by the same request: its points
      // would be merged with ours as if they were the same launch.
      const bool same_catalog = response.catalog == catalog_version();
      if (response.protocol != kProtocolVersion)
        kill_locked(worker, format("the worker speaks protocol %d; this WarpLens speaks %d",
                                   response.protocol, kProtocolVersion));
      else if (!same_catalog)
        kill_locked(worker, "the worker's kernel catalog is \"" + clip(response.catalog, 60) +
                                "\"; this WarpLens's is \"" + catalog_version() +
                                "\" (another build of WarpLens: update one of them)");
      worker.hello = response.protocol == kProtocolVersion && same_catalog;
      m_snapshot.worker_pid = response.pid;
      m_snapshot.driver = response.driver;
    } else if (response.type == ResponseType::progress) {
      note_progress_locked(response);
      if (response.id == m_snapshot.newest_request) {
        m_snapshot.phase = response.phase;
        m_snapshot.done = response.done;
        m_snapshot.total = response.total;
        if (response.result)
          m_snapshot.timed_part = response.result;
      }
    } else if (const auto it = m_pending.find(response.id); it == m_pending.end()) {
      refuse_line_locked(worker, unasked(response, refused));
    } else {
      ++worker.answered;
      if (response.fatal) {
        worker.fatal_message = response.message;
        worker.fatal_at = Clock::now();
      }
      answer_locked({.id = response.id,
                     .request_type = it->second.request.type,
                     .result = response.result,
                     .sweep = response.sweep,
                     .error = response.message,
                     .cancelled = response.cancelled,
                     .fatal = response.fatal,
                     .no_gpu = response.no_gpu,
                     .refused = refused});
    }
    update_status_locked();
  }
  notify();
}

// A line the protocol has, said when it may not be: a hello once, with id 0, before anything else;
// progress only of a request asked. "" when the line comes in its turn.
std::string WorkerClient::out_of_turn(const Worker& worker, const WorkerResponse& response,
                                      bool refused) const {
  const std::string id = std::to_string(response.id);
  if (response.type == ResponseType::hello && response.id != 0)
    return "a hello with id " + id + " (a hello's id is 0)";
  if (response.type == ResponseType::hello && worker.hello)
    return "a second hello (it said hello when it started)";
  if (response.type != ResponseType::hello && !worker.hello && refused)
    return "a line the protocol does not have (" +
           without_origin(response.message, "the worker's answer was refused") + ")";
  if (response.type != ResponseType::hello && !worker.hello)
    return std::string("a line of type '") + response_type_name(response.type) + "' for request " +
           id;
  if (response.type == ResponseType::progress && (response.id <= 0 || response.id >= m_next_id))
    return "progress for request " + id + ", which was never asked";
  return "";
}

// What a line that answers no request waiting for one is, for the reason the worker is killed:
// an answer to a request never asked or already answered, or a line the protocol refuses.
std::string WorkerClient::unasked(const WorkerResponse& response, bool refused) const {
  const std::string detail =
      refused ? " (" + without_origin(response.message, "the worker's answer was refused") + ")"
      : response.type == ResponseType::error ? " ('" + clip(response.message, 80) + "')"
                                             : "";
  if (refused && response.id <= 0) // no id, or the hello's
    return "a line the protocol does not have" + detail;
  const std::string answer = "an answer to request " + std::to_string(response.id);
  if (response.id <= 0 || response.id >= m_next_id)
    return answer + ", which was never asked" + detail;
  return answer + ", which has no answer pending (answered before)" + detail;
}

// A request's progress changes as it advances; a heartbeat repeats it unchanged.
void WorkerClient::note_progress_locked(const WorkerResponse& progress) {
  const auto it = m_pending.find(progress.id);
  if (it == m_pending.end())
    return;
  const std::string said =
      progress.phase +
      (progress.total > 0 ? format(" %d/%d", progress.done, progress.total) : std::string());
  if (said != it->second.progress) {
    it->second.progress = said;
    it->second.progress_since = Clock::now();
  }
}

void WorkerClient::on_exit(Worker& worker, const std::string& how) {
  {
    const std::lock_guard lock(m_mutex);
    worker.ended = true;
    const std::string reason = worker.ending(how);
    // Restart at once when a request was running (it may have caused the death) or the worker
    // had been useful; a worker that dies idle and fresh waits for the next request.
    const bool restart = worker.hello && (any_sent_locked() || worker.answered > 0) && !m_stopping;
    for (auto it = m_pending.begin(); it != m_pending.end();) {
      const auto next = std::next(it);
      if (it->second.sent || !restart)
        answer_locked({.id = it->first,
                       .request_type = it->second.request.type,
                       .error = "the worker ended before answering: " + reason,
                       .worker_died = true,
                       .ran_past_budget = it->first == worker.overran});
      it = next;
    }
    m_snapshot.last_failure = reason;
    if (worker.log)
      worker.log << "warplens: " << reason << std::endl;
    m_snapshot.status = restart ? WorkerStatus::restarting : WorkerStatus::failed;
    m_restart_wanted = restart;
    if (m_worker.get() == &worker)
      m_ended.push_back(std::move(m_worker));
  }
  m_changed.notify_all();
  notify();
}

void WorkerClient::answer_locked(WorkerAnswer answer) {
  // The worker turns to its next request when it answers the one it works on; an answer to a
  // request still waiting behind it (superseded) leaves that one's budget running.
  const auto head =
      std::find_if(m_pending.begin(), m_pending.end(), [](const auto& p) { return p.second.sent; });
  if (head == m_pending.end() || head->first == answer.id)
    m_head_since = Clock::now();
  m_pending.erase(answer.id);
  if (answer.id == m_snapshot.newest_request)
    m_snapshot.phase.clear();
  auto shared = std::make_shared<const WorkerAnswer>(std::move(answer));
  if (shared->ok() && (!m_snapshot.latest_result || shared->id > m_snapshot.latest_result->id))
    m_snapshot.latest_result = shared;
  if (!shared->ok() && !shared->cancelled &&
      (!m_snapshot.latest_error || shared->id > m_snapshot.latest_error->id))
    m_snapshot.latest_error = shared;
  m_recent.push_back(std::move(shared));
  if (m_recent.size() > kRecentAnswers)
    m_recent.pop_front();
  m_changed.notify_all();
}

bool WorkerClient::any_sent_locked() const {
  return std::any_of(m_pending.begin(), m_pending.end(),
                     [](const auto& p) { return p.second.sent; });
}

void WorkerClient::update_status_locked() {
  if (!m_worker || m_worker->ended)
    return; // on_exit and start_locked set it
  if (!m_worker->hello) {
    m_snapshot.status = m_snapshot.restarts > 0 ? WorkerStatus::restarting : WorkerStatus::starting;
    return;
  }
  m_snapshot.status = any_sent_locked() ? WorkerStatus::busy : WorkerStatus::ready;
}

void WorkerClient::watch() {
  std::unique_lock lock(m_mutex);
  while (!(m_stopping && !m_worker && m_ended.empty())) {
    if (!m_ended.empty()) {
      auto ended = std::move(m_ended);
      m_ended.clear();
      lock.unlock();
      for (auto& worker : ended)
        worker->thread.join();
      ended.clear();
      lock.lock();
      continue;
    }
    if (m_restart_wanted && !m_worker && !m_stopping) {
      m_restart_wanted = false;
      start_locked();
      lock.unlock();
      notify();
      lock.lock();
    }
    check_deadlines_locked(Clock::now());
    // Deadlines run only while a worker starts, works or stops; an idle client sleeps until told.
    if (m_worker && !m_worker->ended &&
        (!m_worker->hello || any_sent_locked() || !m_worker->fatal_message.empty()))
      m_changed.wait_for(lock, std::chrono::milliseconds(50));
    else
      m_changed.wait(lock);
  }
}

namespace {

// "; its progress stayed at 'sweep 3/24' for the last 58 s (repeated by its heartbeat, never
// advanced)": why a worker that kept talking is judged hung.
template <class Pending, class Since>
std::string stalled(const Pending& pending, const Since& seconds_since) {
  if (pending.progress.empty())
    return "; it sent no progress";
  return format("; its progress stayed at '%s' for the last %.0f s (repeated, never advanced)",
                pending.progress.c_str(), seconds_since(pending.progress_since));
}

} // namespace

void WorkerClient::check_deadlines_locked(Clock::time_point now) {
  if (!m_worker || m_worker->ended)
    return;
  const auto seconds_since = [&](Clock::time_point t) {
    return std::chrono::duration<double>(now - t).count();
  };
  if (!m_worker->hello && seconds_since(m_worker->started) > m_options.start_timeout_seconds) {
    kill_locked(
        *m_worker,
        format("the worker sent no hello within %g s, so the watchdog killed it (is the command "
               "right?)",
               m_options.start_timeout_seconds));
    return;
  }
  if (!m_worker->fatal_message.empty() && seconds_since(m_worker->fatal_at) > kExitAfterFatal) {
    kill_locked(*m_worker, format("the worker said it stops (%s) but was still running %g s later, "
                                  "so the watchdog killed it",
                                  clip(m_worker->fatal_message, 120).c_str(), kExitAfterFatal));
    return;
  }
  const auto head =
      std::find_if(m_pending.begin(), m_pending.end(), [](const auto& p) { return p.second.sent; });
  if (head == m_pending.end())
    return;
  const double silent = seconds_since(std::max(m_worker->last_line, m_head_since));
  if (m_worker->hello && silent > m_options.silence_timeout_seconds)
    kill_locked(*m_worker,
                format("the worker wrote nothing for %g s while working on %s (stopped or hung), "
                       "so the watchdog killed it",
                       m_options.silence_timeout_seconds,
                       request_words(head->second.request).c_str()));
  else if (seconds_since(m_head_since) > head->second.budget_seconds) {
    if (m_worker->kill_reason.empty()) // killed for this, not already for another reason
      m_worker->overran = head->first;
    kill_locked(*m_worker,
                format("%s ran past its %g s budget%s, so the watchdog killed the worker",
                       request_words(head->second.request).c_str(), head->second.budget_seconds,
                       stalled(head->second, seconds_since).c_str()));
  }
}

void WorkerClient::kill_locked(Worker& worker, const std::string& reason) {
  if (worker.kill_reason.empty())
    worker.kill_reason = reason;
  worker.process->kill();
}

void WorkerClient::notify() {
  if (m_options.on_change)
    m_options.on_change();
}

} // namespace wl
