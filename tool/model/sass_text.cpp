#include "model/sass_text.h"

#include "io/file_output.h"
#include "model/kernel_source.h"

#include <array>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <mutex>
#include <regex>
#include <sstream>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

namespace wl {

SassListing parse_nvdisasm(const std::string& text) {
  static const std::regex function_label(R"(^\s*\.text\.([A-Za-z0-9_$.]+):)");
  static const std::regex line_comment(R"re(//## File "([^"]*)", line (\d+))re");
  static const std::regex instruction(R"(^\s*/\*([0-9a-f]{4,})\*/\s*(.*?)\s*;?\s*(/\*.*)?$)");
  SassListing listing;
  std::vector<SassLine>* current = nullptr;
  std::string file;
  int line = 0;
  std::istringstream in(text);
  for (std::string row; std::getline(in, row);) {
    std::smatch m;
    if (std::regex_search(row, m, function_label)) {
      current = &listing.functions[m[1]];
      file.clear();
      line = 0;
    } else if (std::regex_search(row, m, line_comment)) {
      file = std::filesystem::path(m[1].str()).filename().string();
      line = std::stoi(m[2]);
    } else if (current && std::regex_match(row, m, instruction)) {
      std::string code = m[2];
      while (!code.empty() && (code.back() == ';' || code.back() == ' '))
        code.pop_back();
      current->push_back(
          {static_cast<std::uint32_t>(std::stoul(m[1], nullptr, 16)), code, file, line});
    }
  }
  return listing;
}

namespace {

struct EmbeddedSass {
  const char* name; // "vec_add.sm_90.cubin"
  const char* text;
};

#include "kernel_sass.inc"

// nvdisasm where the CUDA toolkit puts it, or on PATH.
std::string find_nvdisasm() {
  std::vector<std::filesystem::path> candidates;
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* home = std::getenv(variable))
      candidates.push_back(std::filesystem::path(home) / "bin" / "nvdisasm");
  candidates.emplace_back("/usr/local/cuda/bin/nvdisasm");
  if (const char* path = std::getenv("PATH")) {
    std::istringstream folders(path);
    for (std::string folder; std::getline(folders, folder, ':');)
      if (!folder.empty())
        candidates.push_back(std::filesystem::path(folder) / "nvdisasm");
  }
  for (const auto& c : candidates)
    if (::access(c.c_str(), X_OK) == 0)
      return c.string();
  return "";
}

// What a program prints on stdout (its stderr dropped). Started with posix_spawn, not popen: a
// fork would run the CUDA driver's fork handlers in a process that is profiling.
std::string output_of(const std::vector<std::string>& command) {
  int pipe_ends[2];
  if (::pipe(pipe_ends) != 0)
    return "";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addclose(&actions, pipe_ends[0]);
  std::vector<char*> argv;
  for (const std::string& arg : command)
    argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_t child = 0;
  const int spawned = ::posix_spawn(&child, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_ends[1]);
  std::string text;
  if (spawned == 0) {
    std::array<char, 65536> buffer{};
    for (ssize_t n; (n = ::read(pipe_ends[0], buffer.data(), buffer.size())) > 0;)
      text.append(buffer.data(), static_cast<std::size_t>(n));
    int status = 0;
    ::waitpid(child, &status, 0);
  }
  ::close(pipe_ends[0]);
  return text;
}

} // namespace

SystemCheck check_disassembler() {
  const std::string found = find_nvdisasm();
  if (!found.empty())
    return {"nvdisasm", found, ""};
#ifndef WARPLENS_HAS_NVRTC
  // Built without the toolkit: no cubin of its own and no kernel file to disassemble.
  return {"nvdisasm", "not used by this build (built without the CUDA toolkit: no cubins)", ""};
#endif
  return {"nvdisasm", "not found (CUDA_HOME/bin, /usr/local/cuda/bin, PATH)",
          "a kernel file's per-line figures show no SASS text without it: install the CUDA "
          "toolkit's nvdisasm (cuda-nvdisasm) or put its folder on PATH"};
}

// Runs nvdisasm over the cubin written to a temporary file.
SassListing disassemble_cubin(const unsigned char* bytes, std::size_t size,
                              const std::string& name) {
  SassListing listing;
  const std::string nvdisasm = find_nvdisasm();
  if (nvdisasm.empty()) {
    listing.reason = "no SASS text: this build's toolkit had no nvdisasm, and none is installed "
                     "here (it comes with the CUDA toolkit, package cuda-nvdisasm-13-0)";
    return listing;
  }
  static std::atomic<int> made{0}; // two listings at once never share a file
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("warplens-" + std::to_string(::getpid()) + "-" +
                                                std::to_string(made++) + "-" + name + ".cubin");
  const std::string problem = write_file_safely(
      file, std::string_view(reinterpret_cast<const char*>(bytes), size),
      {.replace_existing = false, .write_through_links = false, .keep_on_failure = false});
  if (!problem.empty()) {
    listing.reason = "no SASS text: the cubin for nvdisasm: " + problem;
    return listing;
  }
  const std::string text = output_of({nvdisasm, "-c", "-g", file.string()});
  std::error_code ignored;
  std::filesystem::remove(file, ignored);
  listing = parse_nvdisasm(text);
  listing.origin = nvdisasm + " (run now)";
  if (listing.functions.empty())
    listing.reason = "no SASS text: " + nvdisasm + " printed no instructions for " + name;
  return listing;
}

namespace {

SassListing make_listing(const std::string& family, int sm) {
  const std::string name = family + ".sm_" + std::to_string(sm) + ".cubin";
  for (const EmbeddedSass& e : kEmbeddedSass)
    if (e.name && name == e.name) {
      SassListing listing = parse_nvdisasm(e.text);
      listing.origin = "nvdisasm at build time";
      return listing;
    }
  for (const EmbeddedCubinView& c : embedded_cubins())
    if (c.family == family && c.sm == sm)
      return disassemble_cubin(c.bytes, c.size, c.family);
  SassListing none;
  none.reason =
      "no SASS text: this binary holds no sm_" + std::to_string(sm) + " cubin of " + family;
  return none;
}

std::shared_future<SassListing> listing_future(const std::string& family, int sm) {
  static std::map<std::pair<std::string, int>, std::shared_future<SassListing>> listings;
  static std::mutex guard;
  const std::lock_guard lock(guard);
  auto& future = listings[{family, sm}];
  if (!future.valid())
    future = std::async(std::launch::async, make_listing, family, sm).share();
  return future;
}

} // namespace

void prefetch_sass_listing(const std::string& family, int sm) { listing_future(family, sm); }

const SassListing& sass_listing(const std::string& family, int sm) {
  // The map keeps every future, so the listing outlives the copy this function holds.
  return listing_future(family, sm).get();
}

} // namespace wl
