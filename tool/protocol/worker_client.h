#pragma once
// The GUI's side of `warplens worker`: starts the worker, sends it requests, and turns its lines
// into immutable answers that the GUI reads once per frame. No CUDA here: a kernel fault, a hang
// or a CUPTI failure ends at most the worker, and this client says what happened and starts
// another.
//
// Threads: one per worker reads its stdout and stderr and publishes answers under a small mutex,
// then calls `on_change` (the GUI passes glfwPostEmptyEvent); one watchdog kills a worker that
// sends no hello, falls silent while it has a request, or overruns the budget of the request it
// works on (by PID, then waitpid), and
// restarts a worker that died. A worker that writes a line the protocol does not have (one over
// the size cap, one that is not JSON, an answer to a request never asked or already answered) is
// killed as it arrives, the reason naming the line. Requests that were in flight when a worker
// died are answered with an error that says why, never dropped.

#include "protocol/protocol.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <nlohmann/json_fwd.hpp>

namespace wl {

class ChildProcess;

enum class WorkerStatus { starting, ready, busy, restarting, failed };

struct WorkerClientOptions {
  std::string command;              // empty: this executable's `worker`; else run by /bin/sh -c
  double start_timeout_seconds = 5; // for the hello line (the worker sends it before any work)
  // A request's budget beside what its work may take (worker_client.cpp: request_seconds): the
  // worker's start on the GPU, its session's inputs and upload, the model.
  double setup_seconds = 10;
  // A worker that writes nothing this long while it has a request (its heartbeat is every
  // second) is stopped or hung: the watchdog kills it without waiting for the budget.
  double silence_timeout_seconds = 5;
  std::string log_path = {};            // the worker's stderr is appended here when not empty
  std::function<void()> on_change = {}; // after each change, from any thread (never under a lock)
};

// One answer to one request, built once and shared read-only.
struct WorkerAnswer {
  std::int64_t id = 0;
  RequestType request_type = RequestType::model;
  std::shared_ptr<const RunResult> result{}; // set when a model or run request succeeded
  std::shared_ptr<const std::vector<SweepPoint>> sweep{}; // set when a sweep request succeeded
  std::string error{};                                    // otherwise: why not, one line
  bool cancelled = false;                                 // superseded by a newer request
  bool fatal = false;       // the worker stopped after it (sticky CUDA error)
  bool worker_died = false; // the worker ended or was killed before answering
  // worker_died because the watchdog killed it for running past this request's budget: it kept
  // talking but never finished, and would likely do so again on the same request.
  bool ran_past_budget = false;
  bool no_gpu = false; // a run failed: no usable CUDA device where the worker runs
  // The worker answered, but not with what was asked or not with what a GPU can measure
  // (answer_check.h): `error` says why, and nothing of the answer is kept.
  bool refused = false;

  bool ok() const { return result != nullptr || sweep != nullptr; }
};

struct WorkerSnapshot {
  WorkerStatus status = WorkerStatus::starting;
  std::string command;      // what runs the worker, for display
  int pid = 0;              // of the process this client started (the shell for a command)
  int worker_pid = 0;       // the worker's own, from its hello (on its host; 0 before hello)
  std::string driver;       // the CUDA driver where the worker runs, from its hello ("13.0")
  int restarts = 0;         // workers started after the first
  std::string last_failure; // why the last worker ended or could not start; empty if none did
  std::int64_t newest_request = 0;
  std::string phase;       // progress of the newest request while it runs
  int done = 0, total = 0; // of a sweep: shapes measured of all
  // The newest request's timed part (its timing before its counters), checked as an answer is,
  // while the answer is still to come.
  std::shared_ptr<const RunResult> timed_part;
  std::shared_ptr<const WorkerAnswer> latest_result; // never replaced by an older request's
  std::shared_ptr<const WorkerAnswer> latest_error;  // the newest failure (not cancellations)
};

class WorkerClient {
public:
  explicit WorkerClient(WorkerClientOptions options = {}); // starts the worker at once
  ~WorkerClient();                                         // asks it to stop, kills it if slow
  WorkerClient(const WorkerClient&) = delete;
  WorkerClient& operator=(const WorkerClient&) = delete;

  // Sends a model or run request (its id is assigned here and returned); starts a worker first
  // when none runs. budget_seconds 0: the default budget from the options.
  std::int64_t submit(WorkerRequest request, double budget_seconds = 0);
  void cancel_all(); // the worker answers what it had as cancelled

  WorkerSnapshot latest() const;
  // The answer to one request once it arrives; nullptr when `timeout` passes first.
  std::shared_ptr<const WorkerAnswer> wait_for(std::int64_t id,
                                               std::chrono::milliseconds timeout) const;

private:
  using Clock = std::chrono::steady_clock;
  struct Worker;
  struct Pending {
    WorkerRequest request;
    double budget_seconds = 0;
    bool sent = false;
    std::string progress;               // its last progress, as "phase 3/24"
    Clock::time_point progress_since{}; // when that progress was first said
  };

  void start_locked();
  void send_locked(Pending& pending);
  void serve(Worker& worker);
  void on_line(Worker& worker, const std::string& line, bool too_long);
  void refuse_line(Worker& worker, const std::string& line, const std::string& what);
  void refuse_line_locked(Worker& worker, const std::string& what);
  static void remember_first_line(Worker& worker, const std::string& line); // under the lock
  std::string out_of_turn(const Worker& worker, const WorkerResponse& response, bool refused) const;
  WorkerResponse read_answer(const nlohmann::json& line) const;
  void on_response(Worker& worker, const WorkerResponse& response, bool refused = false);
  std::string unasked(const WorkerResponse& response, bool refused) const;
  void note_progress_locked(const WorkerResponse& progress);
  void on_exit(Worker& worker, const std::string& how);
  void answer_locked(WorkerAnswer answer);
  bool any_sent_locked() const; // a request is with the worker
  void update_status_locked();
  void watch();
  void check_deadlines_locked(Clock::time_point now);
  void kill_locked(Worker& worker, const std::string& reason);
  void notify();

  const WorkerClientOptions m_options;
  mutable std::mutex m_mutex;
  mutable std::condition_variable m_changed;
  std::unique_ptr<Worker> m_worker;             // the current one; none while failed or stopping
  std::vector<std::unique_ptr<Worker>> m_ended; // joined and freed by the watchdog
  std::map<std::int64_t, Pending> m_pending;    // requests without an answer, by id
  Clock::time_point m_head_since; // since when the oldest sent request is the worker's
  std::int64_t m_next_id = 1;
  WorkerSnapshot m_snapshot;
  std::deque<std::shared_ptr<const WorkerAnswer>> m_recent; // for wait_for
  bool m_restart_wanted = false;
  bool m_stopping = false;
  std::thread m_watchdog;
};

} // namespace wl
