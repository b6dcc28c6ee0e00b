#include "kernel_file/compile_server.h"

#include "base/base64.h"
#include "base/child_process.h"
#include "base/error.h"
#include "base/json_fields.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "kernel_file/compile_cache.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <new>

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

namespace wl {

namespace {

using nlohmann::json;

// A request holds a kernel file and its headers (128 KiB each at most), escaped for JSON.
constexpr std::size_t kLargestRequestLine = std::size_t{2} << 20;

// A file's bytes as they are (JSON text must be UTF-8, a file's comment may not be): in base64.
std::string bytes_text(const std::string& text) {
  return base64_encoded(std::vector<char>(text.begin(), text.end()));
}

std::string text_bytes(const Fields& f, const char* key) {
  const std::optional<std::vector<char>> bytes = base64_decoded(f.text(key));
  if (!bytes)
    f.fail(key, "not base64", "allowed the text's bytes in base64");
  return std::string(bytes->begin(), bytes->end());
}

// One line of JSON; a name that is not UTF-8 has its stray bytes replaced.
std::string line_of(const json& value) { return json_text(value) + "\n"; }

json request_json(const KernelFileCompile& r) {
  json headers = json::object();
  for (const auto& [name, text] : r.headers)
    headers[name] = bytes_text(text);
  return {{"text", bytes_text(r.text)}, {"file", r.file},         {"headers", headers},
          {"kernels", r.kernels},       {"tunables", r.tunables}, {"sm", r.sm}};
}

KernelFileCompile request_from(const json& line) {
  const Fields f(line, "compile request");
  f.only({"text", "file", "headers", "kernels", "tunables", "sm"}, "a compile request");
  KernelFileCompile r{.text = text_bytes(f, "text"),
                      .file = f.text("file", false),
                      .headers = {},
                      .kernels = f.texts("kernels"),
                      .tunables = f.integer_map("tunables", kMinInt64, kMaxInt64),
                      .sm = static_cast<int>(f.integer("sm", 10, 1000))};
  const Fields headers(f.at("headers", "allowed an object of header names and texts"), f.where(),
                       "headers.");
  for (const auto& [name, text] : headers.raw().items())
    r.headers[name] = text_bytes(headers, name.c_str());
  return r;
}

std::string gib(std::size_t bytes) {
  return format_number(static_cast<double>(bytes) / (1 << 30), 0) + " GiB";
}

// The one server of this process: started at the first compile, started again after one that
// failed or ran out of time.
struct Server {
  std::mutex mutex;
  std::string program;
  CompileLimits limits;
  std::unique_ptr<ChildProcess> child;
};

Server& server() {
  static Server s;
  return s;
}

// Why the server gave no answer, having been killed or having ended: said with the file.
[[noreturn]] void no_answer(Server& s, const KernelFileCompile& request, bool ran_out_of_time) {
  s.child->kill();
  const std::string how = s.child->wait();
  const std::string said = clip(s.child->error_tail(), 300);
  s.child.reset();
  if (ran_out_of_time)
    throw UsageError(request.file + ": the compile ran past " + format_number(s.limits.seconds, 0) +
                     " s, the limit of one compile, and was stopped (a macro or template that "
                     "expands without end, or a very large initialised array?)");
  throw UsageError(request.file + ": the compiler (NVRTC, in a process of its own under a " +
                   gib(s.limits.memory_bytes) + " memory cap) " + how +
                   (said.empty() ? "" : ": " + said));
}

} // namespace

void use_compile_server(const std::string& program, const CompileLimits& limits) {
  Server& s = server();
  const std::lock_guard lock(s.mutex);
  s.program = program;
  s.limits = limits;
  s.child.reset();
}

namespace {

// The compile by the server, or in this process where there is none.
CompiledKernelFile compiled_now(const KernelFileCompile& request) {
  Server& s = server();
  std::unique_lock lock(s.mutex);
  if (s.program.empty()) {
    lock.unlock();
    return compile_kernel_file(request);
  }
  if (!s.child)
    s.child = std::make_unique<ChildProcess>(std::vector<std::string>{
        s.program, "compile-server", "--memory-bytes", std::to_string(s.limits.memory_bytes)});
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(s.limits.seconds));
  if (!s.child->send_all(line_of(request_json(request)), deadline))
    no_answer(s, request, std::chrono::steady_clock::now() >= deadline);
  const std::optional<ChildProcess::Line> line = s.child->read_line(deadline);
  if (!line || line->too_long) {
    if (line) // an answer over the cap: the cubin of a huge initialised array, most likely
      throw UsageError(request.file + ": its compiled code is over " +
                       format_bytes(static_cast<double>(kMaxAnswerLineBytes)) +
                       " (a very large initialised array?); allowed less");
    no_answer(s, request, std::chrono::steady_clock::now() >= deadline);
  }
  try {
    return compiled_from_json(
        parse_json_text(line->text, "the compile server's answer", kMaxAnswerLineBytes),
        "the compile server's answer");
  } catch (const UsageError& e) {
    const std::string said = e.what();
    if (said.find("out of memory") == std::string::npos)
      throw;
    throw UsageError(said + " (a compile may use at most " + gib(s.limits.memory_bytes) + ")");
  }
}

} // namespace

#ifdef WARPLENS_HAS_NVRTC
void warm_up_compiler() {
  // The server started and NVRTC loaded (about 300 ms), past the kept compiles: the window pays
  // it while it opens rather than a person's first save.
  try {
    compiled_now({.text = "__global__ void warm_up() {}\n",
                  .file = "warm_up.cu",
                  .headers = {},
                  .kernels = {"warm_up"},
                  .tunables = {},
                  .sm = 90});
  } catch (const std::exception&) {
    // Only time was at stake: a real compile says what is wrong.
  }
}
#endif

namespace {

// The compiles this process was refused, by key: the same text asked again (each point of a
// sweep, each step of a lesson on one file) is refused at once with the same words, not after
// another run up to the compile's time limit. Kept in memory only: a new process tries again.
class Refusals {
public:
  std::optional<std::string> find(const std::string& key) {
    const std::lock_guard lock(m_mutex);
    const auto it = m_said.find(key);
    return it == m_said.end() ? std::nullopt : std::optional(it->second);
  }
  void add(const std::string& key, const std::string& said) {
    const std::lock_guard lock(m_mutex);
    if (m_said.size() >= kMost)
      m_said.clear();
    m_said.emplace(key, said);
  }

private:
  static constexpr std::size_t kMost = 64;
  std::mutex m_mutex;
  std::map<std::string, std::string> m_said;
};

Refusals& refusals() {
  static Refusals kept;
  return kept;
}

} // namespace

CompiledKernelFile compile_apart(const KernelFileCompile& request) {
  const std::string key = compile_key(request);
  if (std::optional<CompiledKernelFile> kept = cached_compile(key))
    return std::move(*kept);
  if (const std::optional<std::string> said = refusals().find(key))
    throw UsageError(*said);
  try {
    CompiledKernelFile compiled = compiled_now(request);
    keep_compile(key, compiled);
    return compiled;
  } catch (const UsageError& e) {
    refusals().add(key, e.what());
    throw;
  }
}

namespace {

// This process's address space now, from /proc/self/statm (its first figure, in pages).
std::size_t mapped_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0;
  statm >> pages;
  return pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

} // namespace

int serve_compiles(std::size_t memory_bytes) {
  // The answers go to a copy of stdout; fd 1 then points at stderr, so NVRTC's own output (or a
  // library's) cannot corrupt them.
  std::fflush(stdout);
  const int answers = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  dup2(STDERR_FILENO, STDOUT_FILENO);
  // The cap is on what the compiles add to the address space this process holds already: a
  // sanitized build has reserved terabytes for its shadow memory by now, and a cap below that
  // would fail every allocation, not only a compile's runaway ones.
  const rlim_t cap = mapped_bytes() + memory_bytes;
  const rlimit memory{cap, cap};
  setrlimit(RLIMIT_AS, &memory);
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  LineReader requests(
      [](char* into, std::size_t size) {
        const ssize_t n = ::read(STDIN_FILENO, into, size);
        return n > 0 ? static_cast<std::size_t>(n) : 0;
      },
      kLargestRequestLine);
  for (std::string line;;) {
    const LineStatus status = requests.next(line);
    if (status == LineStatus::end)
      return 0;
    json answer;
    try {
      if (status == LineStatus::too_long)
        throw UsageError("a compile request over " + format_bytes(kLargestRequestLine));
      const KernelFileCompile request =
          request_from(parse_json_text(line, "compile request", kLargestRequestLine));
      try {
        answer = compiled_json(compile_kernel_file(request));
      } catch (const std::bad_alloc&) {
        throw UsageError(request.file + ": the compile needed more than the " + gib(memory_bytes) +
                         " of memory it may use, and was stopped");
      }
    } catch (const Error& e) {
      answer = {{"error", e.what()}};
    }
    const std::string text = line_of(answer);
    for (std::size_t written = 0; written < text.size();) {
      const ssize_t n = ::write(answers, text.data() + written, text.size() - written);
      if (n <= 0)
        return 1;
      written += static_cast<std::size_t>(n);
    }
  }
}

} // namespace wl
