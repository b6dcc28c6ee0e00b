#pragma once
// Helpers for the hostile-input tests: run the real binary with a time limit and check that it
// refused cleanly (one short line on stderr naming the value, the documented exit code, no
// signal, in time); check a library refusal the same way; make JSON inputs with one key broken.

#include "base/error.h"
#include "test_support.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <unistd.h>

namespace wl::test {

inline constexpr std::size_t kMaxMessage = 300;

// A folder of this test process's own, for the files a case writes.
inline std::filesystem::path scratch_path() {
  return std::filesystem::temp_directory_path() / ("wl_hostile_" + std::to_string(getpid()));
}
inline std::filesystem::path scratch() {
  const auto dir = scratch_path();
  std::filesystem::create_directories(dir);
  return dir;
}

// A path in a folder this process never makes (inside its scratch folder): a file that does not
// exist wherever the tests run, unlike "/nonexistent/...", which a machine may have.
inline std::string missing_path(const std::string& name) {
  return (scratch_path() / "never-made" / name).string();
}

// Removes the folder when the test program ends (ctest runs each case in a process of its own).
class ScratchCleanup : public testing::Environment {
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(scratch_path(), ec);
  }
};
inline testing::Environment* const kScratchCleanup =
    testing::AddGlobalTestEnvironment(new ScratchCleanup);

inline std::string write_file(const std::string& name, const std::string& text) {
  const auto file = scratch() / name;
  std::ofstream(file, std::ios::binary) << text;
  return file.string();
}

inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A prefix for run_limited's `env` that runs the command as an unprivileged user where the test
// runs as root (root reads any file, so a file without read permission needs another user; the
// scratch folder is root's and readable by all).
inline std::string as_unprivileged() {
  return geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
}

// TMPDIR pointed at a folder of the test's while it lives: the copies a failed write keeps go
// there, to be found and read.
class KeptCopies {
public:
  explicit KeptCopies(const std::filesystem::path& dir) : m_dir(dir) {
    std::filesystem::create_directories(dir);
    ::setenv("TMPDIR", dir.c_str(), 1);
  }
  ~KeptCopies() { ::unsetenv("TMPDIR"); }
  KeptCopies(const KeptCopies&) = delete;
  KeptCopies& operator=(const KeptCopies&) = delete;
  std::vector<std::filesystem::path> files() const {
    std::vector<std::filesystem::path> found;
    for (const auto& entry : std::filesystem::directory_iterator(m_dir))
      found.push_back(entry.path());
    return found;
  }

private:
  std::filesystem::path m_dir;
};

// A hang guard, not a speed test (speed is the GPU machine's benchmarks'): a refusal takes well
// under a second unsanitized, and a few under the sanitizers on a loaded CI machine. Past the
// guard the command is killed (run_limited), which its exit code shows.
inline constexpr double kHangGuardSeconds = 30;

struct Outcome {
  int exit_code = -1; // timeout(1) reports a signal as 128 + its number
  std::string out, err;
  double seconds = 0;
};

// `env` goes before the command (VAR=value ...); `input` is a file for stdin (default: none);
// `output` is where stdout goes as the shell writes it (">/dev/full", ">&-"; default: a file
// that `out` is read from).
inline Outcome run_limited(const std::string& args, const std::string& env = "",
                           const std::string& input = "/dev/null", const std::string& output = "") {
  const auto out = scratch() / "stdout", err = scratch() / "stderr";
  std::filesystem::remove(out);
  const std::string command = "cd " + scratch().string() + " && " + env + " timeout -s KILL " +
                              std::to_string(int(2 * kHangGuardSeconds)) + " " + WARPLENS_BINARY +
                              " " + args + " <" + input + " " +
                              (output.empty() ? ">" + out.string() : output) + " 2>" + err.string();
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system(command.c_str());
  Outcome o;
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  o.out = output.empty() ? read_text(out) : "";
  o.err = read_text(err);
  return o;
}

// A message a person reads: one line, short, naming what it is about.
inline void expect_good_message(const std::string& message,
                                const std::vector<std::string>& fragments) {
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_LT(message.size(), kMaxMessage) << message;
  EXPECT_EQ(message.find("json.exception"), std::string::npos) << message;
  for (const std::string& fragment : fragments)
    EXPECT_NE(message.find(fragment), std::string::npos)
        << "should mention '" << fragment << "': " << message;
}

// The binary refused: the exit code, exactly one line on stderr, without hanging.
inline void expect_refusal(const Outcome& o, int code, const std::vector<std::string>& fragments) {
  EXPECT_EQ(o.exit_code, code) << o.err;
  EXPECT_LT(o.seconds, kHangGuardSeconds);
  ASSERT_FALSE(o.err.empty());
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  expect_good_message(o.err.substr(0, o.err.size() - 1), fragments);
}

// A library call refused with a UsageError whose message is a good one.
inline void expect_usage_error(const std::function<void()>& call,
                               const std::vector<std::string>& fragments) {
  try {
    call();
    ADD_FAILURE() << "accepted; expected a refusal mentioning "
                  << (fragments.empty() ? "" : fragments[0]);
  } catch (const UsageError& e) {
    expect_good_message(e.what(), fragments);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a UsageError: " << e.what();
  }
}

// A JSON text made from `base` with one change: the value at a JSON pointer replaced by `value`,
// or by raw text (for what nlohmann cannot hold, such as 1e999), or removed.
struct Change {
  std::string pointer;
  nlohmann::json value;
  std::string raw = {}; // when not empty: written as is in place of the value
  bool remove = false;
};

inline std::string changed(nlohmann::json base, const Change& c) {
  const nlohmann::json::json_pointer at(c.pointer);
  if (c.remove) {
    base[at.parent_pointer()].erase(at.back());
    return base.dump();
  }
  base[at] = c.raw.empty() ? c.value : nlohmann::json("@RAW@");
  std::string text = base.dump();
  if (!c.raw.empty())
    text.replace(text.find("\"@RAW@\""), 7, c.raw);
  return text;
}

inline std::string nested(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

inline nlohmann::json source_json(const std::string& relative) {
  return nlohmann::json::parse(read_text(std::string(WARPLENS_SOURCE_ASSETS) + "/" + relative));
}

// One real H100 run as the recording holds it: a complete result to break one key of. Only the
// first run is parsed (a value read from a stream ends where the value does): parsing the whole
// 5 MB recording cost every test process that breaks a run 1.5 s, and 10 s under ASan.
inline const nlohmann::json& recorded_run() {
  static const nlohmann::json run = [] {
    const std::string text =
        read_text(std::string(WARPLENS_SOURCE_ASSETS) + "/recordings/h100.json");
    std::istringstream runs(text.substr(text.find('[', text.find("\"runs\"")) + 1));
    nlohmann::json first;
    runs >> first;
    return first;
  }();
  return run;
}

// One case of a table: a name for the test, the input (a command line, a file's bytes, a protocol
// line) and what the refusal must mention.
struct InputCase {
  std::string name;
  std::string input;
  std::vector<std::string> fragments;
  // An input made when its test runs, not when the table is: one built from a recorded run
  // would otherwise parse the 5 MB recording in every test process as it starts.
  std::function<std::string()> make_input = nullptr;
  std::string text() const { return make_input ? make_input() : input; }
  friend void PrintTo(const InputCase& c, std::ostream* os) { *os << c.name; } // names in test logs
};

// Test names from a table's `name` fields.
template <class Case> std::string case_name(const testing::TestParamInfo<Case>& info) {
  return info.param.name;
}

} // namespace wl::test
