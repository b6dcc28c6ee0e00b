#include "model/sass_text.h"

#include "base/file_output.h"
#include "base/text_file.h"
#include "base/text_hash.h"
#include "base/text_scan.h"
#include "model/kernel_source.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <mutex>
#include <optional>
#include <sstream>
#include <tuple>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

namespace wl {

namespace {

// "  .text._Z6kernelPf:" -> "_Z6kernelPf".
std::optional<std::string_view> function_label(std::string_view row) {
  TextScan scan(row);
  scan.skip_spaces();
  if (!scan.take(".text."))
    return std::nullopt;
  const std::string_view name = scan.until(':');
  const bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
  });
  return plain && !scan.done() ? std::optional(name) : std::nullopt;
}

// `//## File "/x/saxpy.cu", line 12` -> the file's name and 12.
std::optional<std::pair<std::string, int>> line_comment(std::string_view row) {
  TextScan scan(row);
  if (!scan.skip_past("//## File \""))
    return std::nullopt;
  const std::string_view path = scan.until('"');
  if (!scan.take("\", line "))
    return std::nullopt;
  const std::optional<std::int64_t> line = scan.whole_number();
  if (!line)
    return std::nullopt;
  return std::pair{std::filesystem::path(path).filename().string(), static_cast<int>(*line)};
}

// "  /*0040*/  LDG.E R2, desc[UR4][R2.64] ;  /* 0x... */" -> 0x40 and "LDG.E R2, desc[UR4][R2.64]".
std::optional<std::pair<std::uint32_t, std::string>> instruction(std::string_view row) {
  TextScan scan(row);
  scan.skip_spaces();
  if (!scan.take("/*"))
    return std::nullopt;
  const std::size_t start = scan.at();
  const std::optional<std::int64_t> pc = scan.hex_number(UINT32_MAX);
  if (!pc || scan.at() - start < 4 || !scan.take("*/"))
    return std::nullopt;
  std::string_view code = scan.rest().substr(0, scan.rest().find("/*"));
  while (!code.empty() && (code.back() == ';' || code.back() == ' ' || code.back() == '\t'))
    code.remove_suffix(1);
  while (!code.empty() && (code.front() == ' ' || code.front() == '\t'))
    code.remove_prefix(1);
  return std::pair{static_cast<std::uint32_t>(*pc), std::string(code)};
}

} // namespace

SassListing parse_nvdisasm(const std::string& text) {
  SassListing listing;
  std::vector<SassLine>* current = nullptr;
  std::string file;
  int line = 0;
  for_each_line(text, [&](std::string_view row) {
    if (const auto label = function_label(row)) {
      current = &listing.functions[std::string(*label)];
      file.clear();
      line = 0;
    } else if (const auto comment = line_comment(row)) {
      std::tie(file, line) = *comment;
    } else if (const auto found = current ? instruction(row) : std::nullopt) {
      current->push_back({found->first, found->second, file, line});
    }
  });
  return listing;
}

namespace {

struct EmbeddedSass {
  const char* name; // "vec_add.sm_90.cubin"
  const char* text;
};

#include "kernel_sass.inc"

// The toolkit folders nvdisasm is looked for in before PATH, each once: CUDA_HOME's and
// CUDA_PATH's bin where they are set, then the usual install.
std::vector<std::string> toolkit_bin_folders() {
  std::vector<std::string> folders;
  const auto add = [&](const std::string& folder) {
    if (std::find(folders.begin(), folders.end(), folder) == folders.end())
      folders.push_back(folder);
  };
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* home = std::getenv(variable); home && *home)
      add((std::filesystem::path(home) / "bin").lexically_normal().string());
  add("/usr/local/cuda/bin");
  return folders;
}

// nvdisasm where the CUDA toolkit puts it, or on PATH.
std::string find_nvdisasm() {
  std::vector<std::filesystem::path> candidates;
  for (const std::string& folder : toolkit_bin_folders())
    candidates.push_back(std::filesystem::path(folder) / "nvdisasm");
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
  std::string places; // the places looked in, each once
  for (const std::string& folder : toolkit_bin_folders())
    places.append(folder).append(", ");
  return {"nvdisasm", "not found (" + places + "PATH)",
          "a kernel file's per-line figures show no SASS text without it: install the CUDA "
          "toolkit's nvdisasm (cuda-nvdisasm) or put its folder on PATH"};
}

namespace {

// Listings kept in the user's cache folder, each named by its cubin and its nvdisasm: a family's
// listing takes nvdisasm a second or more, paid once per binary and toolkit on this machine, not
// by every `run --stalls` and per-site pass.
constexpr std::size_t kMostKeptListings = 64;
// The last line of a kept listing: a file cut short (a full disk, a killed writer) lacks it and is
// made again rather than read as a shorter listing.
constexpr std::string_view kListingEnd = "// end of the listing\n";

std::filesystem::path kept_listing_file(const std::string& nvdisasm, const unsigned char* bytes,
                                        std::size_t size) {
  const std::filesystem::path folder = user_cache_folder();
  if (folder.empty())
    return {};
  std::error_code error;
  const auto changed = std::filesystem::last_write_time(nvdisasm, error);
  const std::string key = nvdisasm + '\0' +
                          (error ? "?" : std::to_string(changed.time_since_epoch().count())) +
                          '\0' + std::string(reinterpret_cast<const char*>(bytes), size);
  return folder / "listings" / (text_digest(key) + ".sass");
}

std::optional<std::string> kept_listing(const std::filesystem::path& file) {
  if (file.empty())
    return std::nullopt;
  RegularFileRead read = read_regular_file(file, std::size_t{1} << 30);
  if (read.problem != RegularFileRead::Problem::none || !read.text.ends_with(kListingEnd))
    return std::nullopt;
  read.text.resize(read.text.size() - kListingEnd.size());
  return std::move(read.text);
}

void keep_listing(const std::filesystem::path& file, const std::string& text) {
  if (file.empty() || !make_folders(file.parent_path()).empty())
    return;
  if (write_file_safely(
          file, text + std::string(kListingEnd),
          {.replace_existing = true, .write_through_links = false, .keep_on_failure = false})
          .empty())
    keep_newest(file.parent_path(), ".sass", kMostKeptListings);
}

} // namespace

// Runs nvdisasm over the cubin written to a temporary file, or reads the listing it made before.
SassListing disassemble_cubin(const unsigned char* bytes, std::size_t size,
                              const std::string& name) {
  SassListing listing;
  const std::string nvdisasm = find_nvdisasm();
  if (nvdisasm.empty()) {
    listing.reason = "no SASS text: this build's toolkit had no nvdisasm, and none is installed "
                     "here (it comes with the CUDA toolkit, package cuda-nvdisasm-13-0)";
    return listing;
  }
  const std::filesystem::path kept = kept_listing_file(nvdisasm, bytes, size);
  if (const std::optional<std::string> text = kept_listing(kept)) {
    listing = parse_nvdisasm(*text);
    listing.origin = nvdisasm + " (kept from an earlier run)";
    if (!listing.functions.empty())
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
  else
    keep_listing(kept, text);
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
