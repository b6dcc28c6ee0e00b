#include "base/child_process.h"

#include "base/error.h"
#include "base/json_input.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <deque>
#include <filesystem>
#include <string_view>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace wl {

std::string running_executable() {
  std::error_code error;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? "/proc/self/exe" : path.string();
}

namespace {

void close_fd(int& fd) {
  if (fd >= 0)
    close(fd);
  fd = -1;
}

[[noreturn]] void fail(const std::string& program, const std::string& call) {
  throw UsageError("cannot start " + program + ": " + call + " failed: " + std::strerror(errno));
}

// Splits what arrived into lines; the rest waits in `pending` for its newline. A line longer than
// a protocol line may be is handed on once, as its first bytes marked too long, and the rest of it
// up to its newline is dropped unread: a child cannot make this process hold an unbounded line,
// nor have the rest of a long one taken for lines of their own.
class LineSplitter {
public:
  static constexpr std::size_t kShownBytes = 200; // of a line too long

  void feed(const char* data, std::size_t size, const ChildProcess::OnLine& on_line) {
    for (std::string_view rest(data, size); !rest.empty();) {
      const std::size_t newline = rest.find('\n');
      const std::string_view piece = rest.substr(0, newline);
      rest.remove_prefix(newline == std::string_view::npos ? rest.size() : newline + 1);
      if (!m_skipping)
        m_pending.append(piece);
      if (!m_skipping && m_pending.size() > kMaxAnswerLineBytes) {
        on_line(m_pending.substr(0, kShownBytes), true);
        m_pending.clear();
        m_skipping = true;
      }
      if (newline == std::string_view::npos)
        break;
      if (!m_skipping)
        on_line(m_pending, false);
      m_pending.clear();
      m_skipping = false;
    }
  }

  // At the end of the stream: a last line without its newline is still handed on.
  void finish(const ChildProcess::OnLine& on_line) {
    if (!m_pending.empty() && !m_skipping)
      on_line(m_pending, false);
    m_pending.clear();
  }

private:
  std::string m_pending; // the line being read, up to kMaxAnswerLineBytes
  bool m_skipping = false;
};

// Reads once from a ready descriptor; false at end of stream.
bool read_some(int fd, LineSplitter& lines, const ChildProcess::OnLine& on_line) {
  char buffer[65536];
  const ssize_t n = read(fd, buffer, sizeof buffer);
  if (n < 0 && (errno == EINTR || errno == EAGAIN))
    return true;
  if (n <= 0) {
    lines.finish(on_line);
    return false;
  }
  lines.feed(buffer, static_cast<std::size_t>(n), on_line);
  return true;
}

} // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv) {
  int input[2], output[2], error[2];
  // The input is a socket so that send() can refuse to block or raise SIGPIPE.
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, input) != 0)
    fail(argv.at(0), "socketpair");
  if (pipe2(output, O_CLOEXEC) != 0)
    fail(argv.at(0), "pipe2");
  if (pipe2(error, O_CLOEXEC) != 0)
    fail(argv.at(0), "pipe2");
  m_wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_adddup2(&files, input[1], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&files, output[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&files, error[1], STDERR_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t defaults, none;
  sigemptyset(&defaults);
  for (int signal : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD})
    sigaddset(&defaults, signal);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setsigmask(&attributes, &none);
  // A session of its own: a process group to kill as one, and no controlling terminal, so a
  // command that would ask the person something there (ssh's host key or password prompt) fails
  // at once with its reason on stderr instead of waiting on a terminal no one watches.
  posix_spawnattr_setflags(&attributes,
                           POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  std::vector<char*> args;
  for (const std::string& arg : argv)
    args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const int status = posix_spawn(&m_pid, args[0], &files, &attributes, args.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attributes);
  close(input[1]);
  close(output[1]);
  close(error[1]);
  m_input = input[0];
  m_output = output[0];
  m_error = error[0];
  if (status != 0) {
    for (int* fd : {&m_input, &m_output, &m_error, &m_wake})
      close_fd(*fd);
    errno = status;
    fail(argv[0], "posix_spawn");
  }
}

ChildProcess::~ChildProcess() {
  if (!m_reaped) {
    kill();
    wait();
  }
  close_fd(m_input);
  close_fd(m_output);
  close_fd(m_error);
  close_fd(m_wake);
}

bool ChildProcess::send(const std::string& text) {
  if (m_input < 0)
    return false;
  const ssize_t n = ::send(m_input, text.data(), text.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  return n == static_cast<ssize_t>(text.size());
}

void ChildProcess::close_input() { shutdown(m_input, SHUT_WR); }

void ChildProcess::pump(const OnLine& on_output_line,
                        const std::function<void(const std::string&)>& on_error_line) {
  // stderr is only read to be shown: a line too long there is shown cut like any other.
  const OnLine on_error = [&](const std::string& line, bool) { on_error_line(line); };
  LineSplitter output, error;
  pollfd fds[3] = {{m_wake, POLLIN, 0}, {m_output, POLLIN, 0}, {m_error, POLLIN, 0}};
  while (fds[1].fd >= 0) {
    if (poll(fds, 3, -1) < 0 && errno != EINTR)
      break;
    if (fds[0].revents)
      break;
    if (fds[2].revents && !read_some(m_error, error, on_error))
      fds[2].fd = -1;
    if (fds[1].revents && !read_some(m_output, output, on_output_line))
      fds[1].fd = -1;
  }
  // Killed: what it wrote before is read too, as far as it is there already, a last line without
  // its newline included. `echo hi; exit 3` may exit before a request finds its input closed, and
  // its line says what went wrong. Bounded: a process that escaped the kill may write on.
  for (int reads = 0; fds[1].fd >= 0 && reads < 16 && poll(&fds[1], 1, 0) > 0; ++reads)
    if (!read_some(m_output, output, on_output_line))
      break;
  output.finish(on_output_line);
  // What the child said on stderr just before it ended is usually the reason; take it too.
  while (fds[2].fd >= 0 && poll(&fds[2], 1, 200) > 0)
    if (!read_some(m_error, error, on_error))
      break;
}

struct ChildProcess::Reading {
  LineSplitter output, error;
  std::deque<Line> lines;
  std::string error_tail;
  bool output_ended = false;
};

bool ChildProcess::send_all(const std::string& text, Deadline deadline) {
  std::size_t sent = 0;
  while (m_input >= 0 && sent < text.size()) {
    const ssize_t n =
        ::send(m_input, text.data() + sent, text.size() - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
      return false;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd writable{m_input, POLLOUT, 0};
    if (left.count() <= 0 || poll(&writable, 1, static_cast<int>(left.count()) + 1) <= 0)
      return false;
  }
  return sent == text.size();
}

std::optional<ChildProcess::Line> ChildProcess::read_line(Deadline deadline) {
  if (!m_reading)
    m_reading = std::make_unique<Reading>();
  Reading& r = *m_reading;
  constexpr std::size_t kErrorTailBytes = 4096;
  const OnLine to_lines = [&r](const std::string& line, bool too_long) {
    r.lines.push_back({line, too_long});
  };
  const OnLine to_tail = [&r](const std::string& line, bool) {
    r.error_tail += line + "\n";
    if (r.error_tail.size() > kErrorTailBytes)
      r.error_tail.erase(0, r.error_tail.size() - kErrorTailBytes);
  };
  while (r.lines.empty() && !r.output_ended) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      return std::nullopt;
    pollfd fds[2] = {{m_output, POLLIN, 0}, {m_error, POLLIN, 0}};
    if (poll(fds, 2, static_cast<int>(left.count()) + 1) < 0 && errno != EINTR)
      return std::nullopt;
    if (fds[1].revents && !read_some(m_error, r.error, to_tail))
      close_fd(m_error);
    if (fds[0].revents && !read_some(m_output, r.output, to_lines))
      r.output_ended = true;
  }
  if (r.lines.empty())
    return std::nullopt;
  Line line = std::move(r.lines.front());
  r.lines.pop_front();
  return line;
}

std::string ChildProcess::error_tail() const { return m_reading ? m_reading->error_tail : ""; }

void ChildProcess::kill() {
  const std::lock_guard lock(m_mutex);
  if (m_reaped)
    return;
  ::kill(-m_pid, SIGKILL);
  ::kill(m_pid, SIGKILL);
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = write(m_wake, &one, sizeof one);
}

std::string ChildProcess::wait() {
  siginfo_t info{};
  // Give a child whose stdout ended a moment to exit on its own; then it is killed.
  for (int tries = 0; tries < 100; ++tries) {
    info.si_pid = 0;
    if (waitid(P_PID, m_pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid != 0)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (info.si_pid == 0) {
    kill();
    while (waitid(P_PID, m_pid, &info, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
    }
  }
  {
    const std::lock_guard lock(m_mutex);
    int status = 0;
    waitpid(m_pid, &status, 0);
    m_reaped = true;
  }
  const auto signal_text = [](int signal) {
    return "signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  };
  if (info.si_code != CLD_EXITED)
    return "was killed by " + signal_text(info.si_status);
  std::string text = "exited with code " + std::to_string(info.si_status);
  // A shell reports a command that a signal ended as 128 + the signal.
  if (info.si_status > 128 && info.si_status < 128 + NSIG)
    text += ", its command killed by " + signal_text(info.si_status - 128);
  return text;
}

} // namespace wl
