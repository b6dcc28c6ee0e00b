// wl_fault_proxy CONTROL_DIR -- COMMAND [ARGS...]
// Stands between the GUI's worker client and a real worker (COMMAND), relaying lines both ways,
// and breaks the conversation when the worker-fault benchmark leaves a flag file in CONTROL_DIR:
//   exit-at-start  (read at start) exit 3 at once, as a worker that cannot start
//   garbage        a line of binary garbage before the worker's next line
//   truncate       half of the worker's next line, no newline, then both processes end
//   slow           every line of the worker held back 1.5 s while the flag exists
//   illegal        the next run or sweep request is for faults/illegal_address (wl_fault_worker)
//   kill-during    (holds a kernel id) the worker killed mid-request, at the first progress line
//                  of a request for that kernel, and the proxy with it, as by SIGKILL
//   rewrite        (holds lines "JSON_POINTER VALUE") the worker's next result or sweep line with
//                  each value put at its pointer, as a wrong worker would answer
//                  ("/result/occupancy/blocks_per_sm 9999")
// A one-shot flag is removed when it fires. The worker's stderr passes through. The benchmark
// kills or stops the real worker by the pid of its hello, which the proxy relays untouched.

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <signal.h>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

fs::path g_control;
std::string g_working_kernel; // of the last model, run or sweep request relayed

// Whether the one-shot flag `name` was set; it is removed as it fires.
bool fire(const char* name) {
  std::error_code error;
  return fs::remove(g_control / name, error);
}

bool flag(const char* name) {
  std::error_code error;
  return fs::exists(g_control / name, error);
}

// The first line of a one-shot flag file; "" when there is none.
std::string flag_text(const char* name) {
  std::ifstream in(g_control / name);
  std::string text;
  std::getline(in, text);
  return text;
}

void write_all(int fd, const std::string& text) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n > 0)
      done += static_cast<std::size_t>(n);
    else if (errno != EINTR)
      return;
  }
}

// A request line, with a run turned into the faulting kernel's when the flag says so.
std::string request_line(const std::string& line) {
  auto request = nlohmann::json::parse(line, nullptr, false);
  const std::string type = request.is_object() ? request.value("type", "") : "";
  if (type == "model" || type == "run" || type == "sweep")
    g_working_kernel = request.value("kernel", "");
  if ((type != "run" && type != "sweep") || !fire("illegal"))
    return line;
  request["kernel"] = "faults/illegal_address";
  request["params"] = nlohmann::json::object();
  request.erase("block"); // its default; a sweep keeps its shapes, all of them 1D
  return request.dump();
}

struct Child {
  pid_t pid = 0;
  int in = -1;  // its stdin, written here
  int out = -1; // its stdout, read here
};

Child start(char** argv) {
  int to_child[2], from_child[2];
  if (pipe(to_child) != 0 || pipe(from_child) != 0) {
    std::perror("wl_fault_proxy: pipe");
    std::exit(1);
  }
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(to_child[0], STDIN_FILENO);
    dup2(from_child[1], STDOUT_FILENO);
    for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1]})
      close(fd);
    execvp(argv[0], argv);
    std::perror("wl_fault_proxy: exec");
    _exit(127);
  }
  close(to_child[0]);
  close(from_child[1]);
  return {pid, to_child[1], from_child[0]};
}

// Splits what arrived on `fd` into lines and hands each to `on_line`; false at end of input.
template <typename OnLine> bool pump(int fd, std::string& pending, OnLine on_line) {
  char buffer[65536];
  const ssize_t n = read(fd, buffer, sizeof buffer);
  if (n < 0 && errno == EINTR)
    return true;
  if (n <= 0)
    return false;
  pending.append(buffer, static_cast<std::size_t>(n));
  for (std::size_t end; (end = pending.find('\n')) != std::string::npos;) {
    on_line(pending.substr(0, end));
    pending.erase(0, end + 1);
  }
  return true;
}

int exit_code(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// A result or sweep line with the values the `rewrite` flag names put in, once.
std::string rewritten(const std::string& line) {
  const bool answer = line.find("\"type\":\"result\"") != std::string::npos ||
                      line.find("\"type\":\"sweep\"") != std::string::npos;
  if (!answer || !flag("rewrite"))
    return line;
  std::ifstream changes(g_control / "rewrite");
  auto json = nlohmann::json::parse(line);
  for (std::string change; std::getline(changes, change);) {
    const std::size_t space = change.find(' ');
    if (space != std::string::npos)
      json[nlohmann::json::json_pointer(change.substr(0, space))] =
          nlohmann::json::parse(change.substr(space + 1));
  }
  fire("rewrite");
  return json.dump();
}

// Relays the worker's line to the client, breaking it as the flags say. False: the proxy ends.
bool answer_line(const Child& child, const std::string& line) {
  if (line.find("\"type\":\"progress\"") != std::string::npos && !g_working_kernel.empty() &&
      flag_text("kill-during") == g_working_kernel && fire("kill-during")) {
    kill(child.pid, SIGKILL);
    raise(SIGKILL); // the client sees its worker killed by signal 9
  }
  if (flag("slow"))
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  if (fire("garbage"))
    write_all(STDOUT_FILENO, std::string("\x01\xfe{\"id\":\x7f garbage ]]\n"));
  if (fire("truncate")) {
    write_all(STDOUT_FILENO, line.substr(0, line.size() / 2));
    kill(child.pid, SIGKILL);
    return false;
  }
  write_all(STDOUT_FILENO, rewritten(line) + "\n");
  return true;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 4 || std::string(argv[2]) != "--") {
    std::fprintf(stderr, "usage: wl_fault_proxy CONTROL_DIR -- COMMAND [ARGS...]\n");
    return 2;
  }
  g_control = argv[1];
  if (fire("exit-at-start"))
    return 3;
  signal(SIGPIPE, SIG_IGN);
  Child child = start(argv + 3);
  std::string from_client, from_worker;
  pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {child.out, POLLIN, 0}};
  for (;;) {
    if (poll(fds, 2, -1) < 0 && errno != EINTR)
      break;
    if (fds[0].revents && !pump(STDIN_FILENO, from_client, [&](const std::string& line) {
          write_all(child.in, request_line(line) + "\n");
        })) {
      close(child.in); // the client closed: the worker finishes and exits
      fds[0].fd = -1;
    }
    bool going = true;
    if (fds[1].revents && !pump(child.out, from_worker, [&](const std::string& line) {
          going = going && answer_line(child, line);
        }))
      break;
    if (!going)
      break;
  }
  return exit_code(child.pid);
}
