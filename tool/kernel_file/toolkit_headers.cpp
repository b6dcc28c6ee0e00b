#include "kernel_file/toolkit_headers.h"

#include "base/json_input.h"
#include "base/text_file.h"
#include "base/text_scan.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>

namespace wl {

namespace {

// The toolkit this program was built with (its nvcc's folder), or "" in a build without it.
#ifdef WARPLENS_CUDA_BIN
constexpr const char* kBuiltWithBin = WARPLENS_CUDA_BIN;
#else
constexpr const char* kBuiltWithBin = "";
#endif

// nvcc's folder for this machine's processor under a toolkit's targets/.
constexpr const char* kTarget =
#if defined(__aarch64__)
    "targets/sbsa-linux";
#else
    "targets/x86_64-linux";
#endif

// "$(TOP)/$(_TARGET_DIR_)/include" with the profile's variables put in.
std::string expanded(std::string_view word, const std::string& bin, const std::string& target) {
  std::string text;
  TextScan scan(word);
  while (!scan.done()) {
    text += scan.until('$');
    if (scan.done())
      break;
    if (scan.take("$(TOP)"))
      text += bin + "/..";
    else if (scan.take("$(_HERE_)"))
      text += bin;
    else if (scan.take("$(_TARGET_DIR_)"))
      text += target;
    else if (scan.take("$(_SPACE_)"))
      text += ' ';
    else
      text += scan.take("$") ? "$" : "";
  }
  return text;
}

// The words of a profile's value: `"-I$(TOP)/include" $(_SPACE_)` -> -I$(TOP)/include.
std::vector<std::string_view> words_of(std::string_view value) {
  std::vector<std::string_view> words;
  std::size_t at = 0;
  while (at < value.size()) {
    if (value[at] == ' ' || value[at] == '\t') {
      ++at;
      continue;
    }
    const bool quoted = value[at] == '"';
    const std::size_t start = at + (quoted ? 1 : 0);
    const std::size_t end =
        std::min(value.find_first_of(quoted ? "\"" : " \t", start), value.size());
    words.push_back(value.substr(start, end - start));
    at = end + (quoted ? 1 : 0);
  }
  return words;
}

std::vector<std::string> existing(const std::vector<std::string>& folders) {
  std::vector<std::string> found;
  for (const std::string& folder : folders) {
    std::error_code error;
    const std::filesystem::path normal = std::filesystem::weakly_canonical(folder, error);
    if (std::filesystem::is_directory(normal, error))
      found.push_back(normal.string());
  }
  return found;
}

// The toolkit at `root`, where its profile names folders that exist.
std::optional<ToolkitHeaders> toolkit_at(const std::filesystem::path& root) {
  const std::filesystem::path profile = root / "bin" / "nvcc.profile";
  const RegularFileRead read = read_regular_file(profile, 64 * 1024);
  if (read.problem != RegularFileRead::Problem::none)
    return std::nullopt;
  const std::vector<std::string> folders =
      existing(profile_include_folders(read.text, (root / "bin").string(), kTarget));
  if (folders.empty())
    return std::nullopt;
  std::error_code error;
  return ToolkitHeaders{.root = std::filesystem::weakly_canonical(root, error).string(),
                        .folders = folders,
                        .source = profile.string(),
                        .passed_over = ""};
}

// The toolkits that the environment names ($CUDA_HOME, $CUDA_PATH), each with its variable.
std::vector<std::pair<std::string, std::filesystem::path>> named_roots() {
  std::vector<std::pair<std::string, std::filesystem::path>> roots;
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* home = std::getenv(variable); home && *home)
      roots.emplace_back(variable, home);
  return roots;
}

// Where else a toolkit may be: the one this program was built with, /usr/local/cuda, then the
// folder above each nvcc on PATH.
std::vector<std::filesystem::path> other_roots() {
  std::vector<std::filesystem::path> roots;
  if (*kBuiltWithBin)
    roots.push_back(std::filesystem::path(kBuiltWithBin).parent_path());
  roots.emplace_back("/usr/local/cuda");
  if (const char* path = std::getenv("PATH")) {
    TextScan folders(path);
    while (!folders.done()) {
      const std::string_view folder = folders.until(':');
      folders.take(":");
      std::error_code error;
      if (!folder.empty() && folder.front() == '/' &&
          std::filesystem::exists(std::filesystem::path(folder) / "nvcc", error))
        roots.push_back(std::filesystem::path(folder).parent_path());
    }
  }
  return roots;
}

} // namespace

std::vector<std::string> profile_include_folders(const std::string& profile, const std::string& bin,
                                                 const std::string& target) {
  std::vector<std::string> folders;
  for_each_line(profile, [&](std::string_view row) {
    TextScan scan(row);
    scan.skip_spaces();
    const std::string_view name = scan.identifier();
    if (name != "INCLUDES" && name != "SYSTEM_INCLUDES")
      return;
    scan.skip_spaces();
    if (!scan.take("+=") && !scan.take("=") && !scan.take("=+"))
      return;
    bool next_is_folder = false;
    for (const std::string_view word : words_of(scan.rest())) {
      const std::string text = expanded(word, bin, target);
      if (next_is_folder)
        folders.push_back(text);
      else if (text.starts_with("-I") && text.size() > 2)
        folders.push_back(text.substr(2));
      next_is_folder = text == "-isystem" || text == "-I";
    }
  });
  return folders;
}

const ToolkitHeaders& toolkit_headers() {
  static const ToolkitHeaders found = [] {
    std::string passed_over;
    for (const auto& [variable, root] : named_roots()) {
      if (std::optional<ToolkitHeaders> headers = toolkit_at(root))
        return *headers;
      std::error_code error;
      if (passed_over.empty())
        passed_over = variable + "=" + clip(root.string(), 200) +
                      (!std::filesystem::exists(root, error) ? " does not exist"
                       : !std::filesystem::is_directory(root, error)
                           ? " is not a folder"
                           : " holds no bin/nvcc.profile naming include folders that exist");
    }
    ToolkitHeaders headers{
        .root = "", .folders = {}, .source = "no CUDA toolkit found", .passed_over = ""};
    for (const std::filesystem::path& root : other_roots())
      if (std::optional<ToolkitHeaders> at = toolkit_at(root)) {
        headers = *at;
        break;
      }
    headers.passed_over = passed_over;
    return headers;
  }();
  return found;
}

} // namespace wl
