// A person's kernel file in the GUI: opened, watched, and followed save by save. A save is read
// and compiled on this thread before it replaces anything (NVRTC takes tens of milliseconds for a
// small file once warm), so a save that does not compile leaves the last good version on screen.

#include "app.h"
#include "base/error.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "kernel_file/file_kernel.h"
#include "registry.h"

#include <algorithm>
#include <chrono>
#include <regex>

namespace wl::viz {

namespace {

constexpr std::size_t kRecentFiles = 8;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string::npos ? end : end - start));
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  return lines;
}

// The line a problem names in the file ("/x/mine.cu:12: error: ..."): 0 when it names none.
int line_named(const std::string& problem, const std::filesystem::path& file) {
  const std::string prefix = file.string() + ":";
  if (!problem.starts_with(prefix))
    return 0;
  static const std::regex number(R"(^(\d+):)");
  std::smatch m;
  const std::string rest = problem.substr(prefix.size());
  return std::regex_search(rest, m, number) ? std::stoi(m[1].str()) : 0;
}

void remember(std::vector<std::string>& recent, const std::string& path) {
  std::erase(recent, path);
  recent.insert(recent.begin(), path);
  if (recent.size() > kRecentFiles)
    recent.resize(kRecentFiles);
}

// The kernel's parameters kept where the new version still has them, its new ones at defaults.
Params kept_params(const KernelDesc& kernel, const Params& before) {
  Params params;
  for (const ParamSpec& spec : kernel.params) {
    const auto found = before.find(spec.name);
    params[spec.name] = found != before.end() ? found->second : spec.default_value;
  }
  return params;
}

} // namespace

bool App::open_kernel_file(const std::string& text) {
  std::string id;
  try {
    id = add_kernel_file(text);
  } catch (const Error& e) {
    file.open_problem = e.what();
    messages.status = file.open_problem;
    return false;
  }
  file.open_problem.clear();
  const std::shared_ptr<const KernelFile> opened = kernel_file_of(id);
  file.path = opened->path;
  file.hash = opened->hash;
  file.lines = lines_of(opened->text);
  file.problem.clear();
  file.problem_line = 0;
  file.watch = std::make_shared<KernelFileWatch>(file.path, file.wake);
  remember(file.recent, file.path.string());
  select_kernel(id);
  // Compiled once here, on the thread that compiles each save: NVRTC's first compile on a thread
  // costs several times a warm one, which the first save would pay. A problem is the models' to
  // say.
  try {
    kernel()->usage(choices.params, arch().cc_major * 10 + arch().cc_minor);
  } catch (const Error&) {
  }
  messages.status = "Opened " + file.path.string() +
                    (file.watch->problem().empty() ? ": each save is compiled and shown"
                                                   : ": " + file.watch->problem());
  return true;
}

void App::follow_kernel_file() {
  if (!file.watch || !file.watch->take_change())
    return;
  const auto start = std::chrono::steady_clock::now();
  try {
    const KernelFile saved = read_kernel_file(file.path);
    file.lines = lines_of(saved.text);
    if (saved.hash == file.hash && file.problem.empty())
      return; // a header beside it, or the same text written again
    std::vector<KernelDesc> kernels = file_kernels(saved);
    // The kernel on screen compiled before anything is replaced: its error, if any, is the one
    // the person is looking for.
    const KernelDesc* shown = nullptr;
    for (const KernelDesc& k : kernels)
      if (k.id == choices.kernel_id)
        shown = &k;
    const KernelDesc& check = shown ? *shown : kernels.front();
    check.usage(kept_params(check, choices.params), arch().cc_major * 10 + arch().cc_minor);
    const std::string id = check.id;
    use_kernel_file(saved, std::move(kernels));
    file.hash = saved.hash;
    file.problem.clear();
    file.problem_line = 0;
    if (id != choices.kernel_id)
      select_kernel(id);
    else
      choices.params = kept_params(*kernel(), choices.params);
    file.last_reload_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    messages.status = file.path.filename().string() + " saved: compiled in " +
                      format_number(file.last_reload_ms, 0) + " ms";
  } catch (const Error& e) {
    file.problem = e.what();
    file.problem_line = line_named(file.problem, file.path);
    messages.status = file.problem;
  }
}

std::vector<std::string> App::kernel_file_completions() const {
  const std::string typed(file.path_typed.data());
  const std::size_t slash = typed.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : typed.substr(0, slash + 1);
  const std::string start = slash == std::string::npos ? typed : typed.substr(slash + 1);
  const std::string shown = slash == std::string::npos ? "" : folder;
  std::vector<std::string> found;
  std::error_code error;
  for (std::filesystem::directory_iterator it(folder.empty() ? "/" : folder, error), end;
       !error && it != end && found.size() < 8; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(start) || name.starts_with("."))
      continue;
    if (it->is_directory(error))
      found.push_back(shown + name + "/");
    else if (name.ends_with(".cu"))
      found.push_back(shown + name);
  }
  std::sort(found.begin(), found.end());
  return found;
}

bool App::kernel_file_broken() const {
  const KernelDesc* shown = kernel();
  if (file.problem.empty() || !shown || shown->kind != KernelKind::run_time)
    return false;
  const std::shared_ptr<const KernelFile> from = kernel_file_of(shown->id);
  return from && from->path == file.path;
}

const std::vector<std::string>* App::kernel_file_lines() const {
  const KernelDesc* shown = kernel();
  if (!shown || shown->kind != KernelKind::run_time)
    return nullptr;
  const std::shared_ptr<const KernelFile> from = kernel_file_of(shown->id);
  if (from && from->path == file.path)
    return &file.lines;
  // Another file's lines (one GUI thread), split once per version of it rather than every frame.
  static std::shared_ptr<const KernelFile> split;
  static std::vector<std::string> other;
  if (from != split) {
    other = from ? lines_of(from->text) : std::vector<std::string>{};
    split = from;
  }
  return &other;
}

} // namespace wl::viz
