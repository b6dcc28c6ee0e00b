#pragma once
// One child process with its stdin, stdout and stderr connected to this process: how the GUI runs
// `warplens worker`, and how a kernel file is compiled apart. Plain POSIX (posix_spawn, so it is
// safe from a threaded process). The child gets its own process group, so killing it also ends what
// a shell command started (ssh, ...).

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace wl {

// The path of the program running now (/proc/self/exe): how a client starts its own `worker`.
std::string running_executable();

class ChildProcess {
public:
  // Starts argv[0] (an absolute path) with argv. Throws UsageError when it cannot be started.
  explicit ChildProcess(const std::vector<std::string>& argv);
  ~ChildProcess(); // kills and reaps a child still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  int pid() const { return m_pid; }

  // Writes without blocking and without SIGPIPE; false when the child did not take it all (gone,
  // or not reading its input).
  bool send(const std::string& text);
  void close_input();

  // A line of the child's stdout. `too_long`: the line was longer than kMaxAnswerLineBytes, and
  // `line` is its first 200 bytes (the rest was dropped unread).
  using OnLine = std::function<void(const std::string& line, bool too_long)>;

  // Reads stdout and stderr line by line until stdout ends or kill() is called (then what stdout
  // already holds, its last line without a newline too). Run it on one thread; the callbacks run
  // there.
  void pump(const OnLine& on_output_line,
            const std::function<void(const std::string&)>& on_error_line);

  // A conversation of one question and one answer at a time, on the calling thread (instead of
  // pump() on a thread of its own). send_all writes all of `text`, waiting while the child's
  // input is full; false when it did not take it all by `deadline` or is gone.
  using Deadline = std::chrono::steady_clock::time_point;
  bool send_all(const std::string& text, Deadline deadline);
  // The next line of stdout (marked too long as pump() marks it); nullopt at the deadline or once
  // stdout has ended. stderr is read meanwhile, its last lines kept for error_tail().
  struct Line {
    std::string text;
    bool too_long = false;
  };
  std::optional<Line> read_line(Deadline deadline);
  // The last lines the child wrote on stderr (at most a few KiB), for saying why it ended.
  std::string error_tail() const;

  // SIGKILL to the child's process group, and wakes pump(). Safe from any thread.
  void kill();

  // Reaps the child (kills it first if it still runs after its stdout ended) and says how it
  // ended: "exited with code 3", "was killed by signal 9 (Killed)". Call once, after pump().
  std::string wait();

private:
  int m_pid = -1;
  int m_input = -1, m_output = -1, m_error = -1;
  int m_wake = -1;    // eventfd that ends pump()
  std::mutex m_mutex; // kill() never signals a process id that wait() has already released
  bool m_reaped = false;
  struct Reading; // read_line()'s lines split but not yet taken, and stderr's tail
  std::unique_ptr<Reading> m_reading;
};

} // namespace wl
