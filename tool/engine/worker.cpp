#include "engine/worker.h"

#include "base/error.h"
#include "base/json_fields.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "engine/device.h"
#include "engine/engine.h"
#include "engine/launch_watchdog.h"
#include "engine/sweep_run.h"
#include "io/assets.h"
#include "model/model_kernel.h"
#include "protocol/protocol.h"
#include "registry.h"

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <deque>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include <cuda_runtime.h>
#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace wl {

namespace {

constexpr int kExitStickyError = 3;
constexpr auto kHeartbeat = std::chrono::seconds(1); // well inside the client's silence limit
// How often a request's silence is checked while one is served. In milliseconds: a quarter of
// std::chrono::seconds(1) is seconds(0), and a heartbeat loop sleeping that long spins a core.
constexpr auto kHeartbeatCheck = std::chrono::milliseconds(kHeartbeat) / 4;
static_assert(kHeartbeatCheck.count() > 0);

// Errors after which the CUDA context is unusable: every later call returns the same error.
constexpr cudaError_t kStickyErrors[] = {
    cudaErrorIllegalAddress,     cudaErrorLaunchFailure,     cudaErrorHardwareStackError,
    cudaErrorIllegalInstruction, cudaErrorMisalignedAddress, cudaErrorInvalidAddressSpace,
    cudaErrorInvalidPc,          cudaErrorLaunchTimeout,     cudaErrorAssert,
    cudaErrorECCUncorrectable};

// After a failed run: whether this machine has a GPU at all (the GUI turns to model mode if not).
bool cuda_device_present() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

// The first device's context, made while the client is still starting (its window, its first
// request on the way): a run's session then finds it made rather than paying for it. A failure
// here is left for that run to meet and say.
void make_first_context() {
  if (cuda_device_present())
    cudaFree(nullptr);
}

// After a failed run: a synchronize returns the sticky error again if the context is broken.
// Its name ("cudaErrorIllegalAddress"), or "" while the context works.
std::string cuda_context_broken() {
  const cudaError_t status = cudaDeviceSynchronize();
  for (cudaError_t sticky : kStickyErrors)
    if (status == sticky)
      return cudaGetErrorName(status);
  return "";
}

// Owns the protocol's stream: a duplicate of the original stdout. fd 1 itself now points at
// stderr, so a library that prints cannot corrupt the protocol. A write that fails (the client
// gone, stdout closed or full) is kept as the reason, and nothing more is written: the worker
// then stops, saying why (run_worker).
class ProtocolWriter {
public:
  ProtocolWriter() : m_fd(fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)) {
    std::cout.flush();
    dup2(STDERR_FILENO, STDOUT_FILENO);
  }

  void send(const WorkerResponse& response) {
    const std::string line = protocol_line(response_to_json(response));
    const std::lock_guard lock(m_mutex);
    remember_locked(response);
    write_locked(line);
  }
  void error(std::int64_t id, const std::string& message, bool cancelled = false,
             bool fatal = false, bool no_gpu = false) {
    send(WorkerResponse{.id = id,
                        .type = ResponseType::error,
                        .message = message,
                        .fatal = fatal,
                        .cancelled = cancelled,
                        .no_gpu = no_gpu});
  }
  void progress(std::int64_t id, const char* phase, int done = 0, int total = 0) {
    send(WorkerResponse{
        .id = id, .type = ResponseType::progress, .phase = phase, .done = done, .total = total});
  }

  // The request being served: the one whose progress was sent last, until it is answered.
  std::int64_t working() {
    const std::lock_guard lock(m_mutex);
    return m_working;
  }

  // The system's reason a write failed ("No space left on device"); "" while none did.
  std::string failure() {
    const std::lock_guard lock(m_mutex);
    return m_failure;
  }

  // While a request is served and nothing was written for kHeartbeat, its last progress line
  // again: the client tells a worker busy in a long phase (a 4096^3 matmul with its counters)
  // from one that is stopped or hung, which writes nothing. Between requests the thread sleeps
  // until the next one starts: an idle worker costs no CPU.
  [[noreturn]] void send_heartbeats() {
    std::unique_lock lock(m_mutex);
    for (;;) {
      m_work_started.wait(lock, [&] { return m_working != 0; });
      m_work_started.wait_for(lock, kHeartbeatCheck);
      if (m_working && Clock::now() - m_last_write >= kHeartbeat)
        write_locked(m_working_line);
    }
  }

private:
  using Clock = std::chrono::steady_clock;

  void remember_locked(const WorkerResponse& response) {
    if (response.type == ResponseType::progress) {
      m_working = response.id;
      WorkerResponse beat = response; // a heartbeat says the phase, not the timed part again
      beat.result.reset();
      m_working_line = protocol_line(response_to_json(beat));
      m_work_started.notify_one();
    } else if (response.id == m_working) {
      m_working = 0; // answered
    }
  }
  void write_locked(const std::string& line) {
    m_last_write = Clock::now();
    for (std::size_t done = 0; done < line.size() && m_failure.empty();) {
      const ssize_t n = write(m_fd, line.data() + done, line.size() - done);
      if (n > 0)
        done += static_cast<std::size_t>(n);
      else if (n == 0)
        m_failure = "the system took none of the line";
      else if (errno != EINTR)
        m_failure = std::strerror(errno);
    }
  }

  int m_fd;
  std::mutex m_mutex;
  std::condition_variable m_work_started; // a progress line was sent: heartbeats are due
  std::string m_failure;                  // why a write failed; "" while none did
  std::int64_t m_working = 0; // the request whose progress was sent last, until it is answered
  std::string m_working_line;
  Clock::time_point m_last_write = Clock::now();
};

// Requests read from stdin by their own thread, so a newer one is seen while an older one runs.
// The newest request wins: older ones still waiting are answered as cancelled, and the running
// one is asked to stop at its next phase boundary.
class Inbox {
public:
  explicit Inbox(ProtocolWriter& writer) : m_writer(writer) {}

  void add(WorkerRequest request) {
    const std::lock_guard lock(m_mutex);
    if (m_shut_down_by != 0) {
      m_writer.error(request.id, "request " + std::to_string(request.id) + ": it came after " +
                                     "shutdown (request " + std::to_string(m_shut_down_by) +
                                     "); the worker serves nothing more");
      return;
    }
    switch (request.type) {
    case RequestType::model:
    case RequestType::run:
    case RequestType::sweep:
      if (m_running)
        m_cancel_running = true;
      m_waiting.push_back(std::move(request));
      break;
    case RequestType::cancel:
      cancel_locked(request.target, "cancelled by request " + std::to_string(request.id));
      break;
    case RequestType::shutdown:
      // The reader refuses what was sent after it, then ends the input (end_of_input).
      cancel_locked(0, "the worker is shutting down");
      m_shut_down_by = request.id;
      break;
    }
    m_changed.notify_all();
  }

  bool shut_down() {
    const std::lock_guard lock(m_mutex);
    return m_shut_down_by != 0;
  }

  // The newest request still waiting is served before the worker exits, so a script can pipe
  // one request in and read its answer. `failure`: the system's reason when the input broke
  // rather than ended.
  void end_of_input(const std::string& failure = "") {
    const std::lock_guard lock(m_mutex);
    m_closed = true;
    m_input_failure = failure;
    m_changed.notify_all();
  }

  std::string input_failure() {
    const std::lock_guard lock(m_mutex);
    return m_input_failure;
  }

  // The newest waiting request (the older ones are answered as superseded); none once closed.
  std::optional<WorkerRequest> next() {
    std::unique_lock lock(m_mutex);
    m_running = 0;
    m_changed.wait(lock, [&] { return m_closed || !m_waiting.empty(); });
    if (m_waiting.empty())
      return std::nullopt;
    for (; m_waiting.size() > 1; m_waiting.pop_front())
      m_writer.error(m_waiting.front().id,
                     "superseded by request " + std::to_string(m_waiting.back().id), true);
    WorkerRequest request = std::move(m_waiting.front());
    m_waiting.pop_front();
    m_running = request.id;
    m_cancel_running = false;
    return request;
  }

  bool running_cancelled() {
    const std::lock_guard lock(m_mutex);
    return m_cancel_running;
  }

private:
  void cancel_locked(std::int64_t target, const std::string& why) {
    if (target == 0 || target == m_running)
      m_cancel_running = m_running != 0;
    for (auto it = m_waiting.begin(); it != m_waiting.end();) {
      if (target != 0 && it->id != target) {
        ++it;
        continue;
      }
      m_writer.error(it->id, why, true);
      it = m_waiting.erase(it);
    }
  }
  ProtocolWriter& m_writer;
  std::mutex m_mutex;
  std::condition_variable m_changed;
  std::deque<WorkerRequest> m_waiting;
  std::int64_t m_running = 0;
  bool m_cancel_running = false;
  bool m_closed = false;
  std::string m_input_failure;     // why reading the input failed; "" when it ended or reads on
  std::int64_t m_shut_down_by = 0; // the shutdown request, once one came
};

// The id of a line that was JSON but not a valid request, so its error answers that request.
std::int64_t id_of(const nlohmann::json& line) {
  const auto it = line.is_object() ? line.find("id") : line.end();
  const std::optional<std::int64_t> id = it != line.end() ? as_whole_number(*it) : std::nullopt;
  return id && *id > 0 ? *id : 0;
}

// Every line gets either a request into the inbox or an error line: a bad line never ends the
// reader (nor the worker) and never makes it hold more than one capped line. Ids increase from
// line to line (protocol.h), so no two answers carry the same id; `last_id` is the last line's.
void read_one(const std::string& text, Inbox& inbox, ProtocolWriter& writer,
              std::int64_t& last_id) {
  nlohmann::json line;
  try {
    line = parse_json_text(text, "request line", kMaxRequestLineBytes);
    if (const std::int64_t id = id_of(line); id != 0 && id <= last_id)
      input_error("request " + std::to_string(id), "id",
                  std::to_string(id) + " is not above the last request's " +
                      std::to_string(last_id),
                  "allowed ids that increase from request to request, each used once");
    else if (id != 0)
      last_id = id;
    inbox.add(request_from_json(line));
  } catch (const Error& e) {
    writer.error(id_of(line), e.what());
  } catch (const std::exception& e) {
    writer.error(id_of(line), std::string("request refused: ") + clip(e.what(), 200));
  }
}

// Standard input, a block at a time (a byte at a time through std::cin it read 4 MB/s). A read
// that fails (stdin a folder: EISDIR) ends the input as its end would, its reason in `failure`.
std::size_t read_stdin(char* into, std::size_t size, std::string& failure) {
  for (;;) {
    const ssize_t n = read(STDIN_FILENO, into, size);
    if (n >= 0)
      return static_cast<std::size_t>(n);
    if (errno != EINTR) {
      failure = std::strerror(errno);
      return 0;
    }
  }
}

void read_requests(Inbox& inbox, ProtocolWriter& writer) {
  std::string failure;
  LineReader lines([&](char* into, std::size_t size) { return read_stdin(into, size, failure); },
                   kMaxRequestLineBytes);
  std::int64_t last_id = 0;
  std::string text;
  // After a shutdown only the lines already read in are answered (each refused): the worker
  // exits without waiting for more. Once answers cannot be written, nothing more is read.
  for (LineStatus status; writer.failure().empty() &&
                          (status = lines.next(text, !inbox.shut_down())) != LineStatus::end;) {
    if (status == LineStatus::too_long)
      writer.error(0, "request line: longer than " + std::to_string(kMaxRequestLineBytes) +
                          " bytes; allowed one JSON object per line of at most that");
    else if (text.find_first_not_of(" \t\r") != std::string::npos)
      read_one(text, inbox, writer, last_id);
  }
  inbox.end_of_input(failure);
}

// What a run request asks of its session: per_site and stalls stay false here, for compute() asks
// the session for those passes itself.
EngineOptions session_options(const WorkerRequest& request) {
  EngineOptions options = request.engine;
  options.per_site = false;
  options.stalls = false;
  return options;
}

RunResult compute(const WorkerRequest& request, const KernelRequest& kernel, SessionCache& sessions,
                  ProtocolWriter& writer) {
  const ModelBudget budget = request.engine.model;
  if (request.type == RequestType::model) {
    writer.progress(request.id, "model");
    return model_kernel(kernel, resolve_arch(request.arch), budget);
  }
  writer.progress(request.id, "run");
  KernelSession& session = sessions.get(*kernel.kernel, kernel.params, session_options(request));
  if (request.engine.per_site)
    session.prepare_sites();
  // The timing goes to the client before the counting passes: a GUI shows it at once.
  RunResult result = session.measure(kernel.block, true, [&](const RunResult& part) {
    writer.send(WorkerResponse{.id = request.id,
                               .type = ResponseType::progress,
                               .phase = "counters",
                               .result = std::make_shared<const RunResult>(part)});
  });
  // Per request, not per session: a session reused from a live edit would skip the pass, and one
  // made for a per-site Run would repeat it on every live edit after it.
  if (request.engine.per_site) {
    writer.progress(request.id, "sites");
    result.site_counts = session.count_sites(result);
  }
  if (request.engine.stalls) {
    writer.progress(request.id, "stalls");
    result.stalls = session.sample_stalls(result);
  }
  return result;
}

// A sweep stopped between shapes by a newer request or a cancel request.
struct SweepCancelled {};

// The points of a sweep request, progress after each point. Its parameter sets go through the
// session cache: a sweep of the kernel and parameters already on the GPU starts at once.
std::vector<SweepPoint> sweep(const WorkerRequest& request, const KernelRequest& kernel,
                              SessionCache& sessions, Inbox& inbox, ProtocolWriter& writer) {
  const SweepGrid grid{request.shapes, request.param_axes};
  // The client held the grid to its user's --max-shapes; the worker holds it to the most that
  // option allows, refused before any session.
  param_sets(kernel.params, grid, kMaxSweepShapesLimit);
  return run_sweep(
             *kernel.kernel, kernel.params, grid, request.engine,
             [&](int done, int total, const SweepPoint&) {
               writer.progress(request.id, "sweep", done, total);
               if (inbox.running_cancelled())
                 throw SweepCancelled{};
             },
             &sessions)
      .points;
}

// Answers one request with a result or an error. Returns false after a sticky CUDA error.
bool serve(const WorkerRequest& request, Inbox& inbox, SessionCache& sessions,
           ProtocolWriter& writer) {
  try {
    writer.progress(request.id, "resolve");
    const KernelRequest kernel = request_kernel(request);
    if (inbox.running_cancelled()) {
      writer.error(request.id, "superseded by a newer request", true);
      return true;
    }
    if (request.type == RequestType::sweep) {
      auto points = std::make_shared<const std::vector<SweepPoint>>(
          sweep(request, kernel, sessions, inbox, writer));
      writer.send(WorkerResponse{
          .id = request.id, .type = ResponseType::sweep, .sweep = std::move(points)});
      return true;
    }
    auto result = std::make_shared<const RunResult>(compute(request, kernel, sessions, writer));
    writer.send(WorkerResponse{
        .id = request.id, .type = ResponseType::result, .result = std::move(result)});
    return true;
  } catch (const SweepCancelled&) {
    writer.error(request.id, "sweep cancelled before its last point", true);
    return true;
  } catch (const std::bad_alloc&) {
    sessions.drop();
    writer.error(request.id, "out of memory serving this request; the worker goes on");
    return true;
  } catch (const std::exception& e) {
    const bool run = request.type != RequestType::model;
    if (run)
      sessions.drop(); // whatever failed, the next run starts from a fresh session
    const std::string sticky = run ? cuda_context_broken() : "";
    const bool fatal = !sticky.empty();
    writer.error(request.id,
                 fatal ? std::string(e.what()) + "; the CUDA context is unusable (" + sticky +
                             "), so the worker exits"
                       : std::string(e.what()),
                 false, fatal, run && !cuda_device_present());
    return !fatal;
  } catch (...) {
    sessions.drop();
    writer.error(request.id, "unexpected failure serving this request; the worker goes on");
    return true;
  }
}

// A worker whose answers are lost, or whose input broke, stops and says why: its exit must not
// read as a normal end, nor its answers go on being lost.
void check_output(ProtocolWriter& writer) {
  if (const std::string failure = writer.failure(); !failure.empty())
    throw UsageError("worker: cannot write its answers to standard output: " + failure +
                     "; the worker stops");
}

void check_input(Inbox& inbox) {
  if (const std::string failure = inbox.input_failure(); !failure.empty())
    throw UsageError("worker: cannot read requests from standard input: " + failure);
}

} // namespace

int run_worker() {
  std::signal(SIGPIPE, SIG_IGN); // a vanished client shows up as a failed write, not a signal
  // Never freed: the detached reader may sit in a blocking read of stdin until the process exits.
  // Held by static pointers, so they stay reachable to the end (no leak for LeakSanitizer).
  static ProtocolWriter* const writer = new ProtocolWriter;
  static Inbox* const inbox = new Inbox(*writer);
  writer->send(WorkerResponse{.id = 0,
                              .type = ResponseType::hello,
                              .protocol = kProtocolVersion,
                              .pid = static_cast<int>(getpid()),
                              .catalog = catalog_version(),
                              .driver = driver_cuda_version_text()});
  check_output(*writer);
  // A kernel file's launch past its time limit: the request it served is answered with why, and
  // the process exits (launch_watchdog.h), which frees the GPU; the client starts another.
  set_overrun_handler([](const std::string& message) {
    writer->error(writer->working(), message + "; the next request starts a new worker", false,
                  true);
  });
  std::thread(read_requests, std::ref(*inbox), std::ref(*writer)).detach();
  std::thread([] { writer->send_heartbeats(); }).detach();
  // Joined before the worker returns: a process must not exit while a thread is inside CUDA.
  std::jthread first_context(make_first_context);
  SessionCache sessions;
  for (std::optional<WorkerRequest> request;
       writer->failure().empty() && (request = inbox->next());)
    if (!serve(*request, *inbox, sessions, *writer))
      return kExitStickyError;
  check_output(*writer);
  check_input(*inbox);
  return 0;
}

} // namespace wl
