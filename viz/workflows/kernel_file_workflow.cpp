// A person's kernel file in the GUI: opened, watched, and followed save by save. A save is read
// and compiled on the compile thread (kernel_file_compile.h) before it replaces anything, so a
// save that does not compile leaves the last good version on screen, and the window draws on
// while NVRTC works.

#include "base/error.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "base/text_scan.h"
#include "kernel_file/file_kernel.h"
#include "model/kernel_request.h"
#include "registry.h"
#include "workflows/app.h"

#include <algorithm>
#include <chrono>

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
  // `#line` can set any number: one past an int's range names no line of the file.
  TextScan rest(std::string_view(problem).substr(prefix.size()));
  const std::optional<std::int64_t> line = rest.whole_number();
  return line && rest.take(":") ? static_cast<int>(*line) : 0;
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
  // Compiled by the models' thread as it models the launch: a problem is theirs to say.
  select_kernel(id);
  messages.status = "Opened " + file.path.string() +
                    (file.watch->problem().empty() ? ": each save is compiled and shown"
                                                   : ": " + file.watch->problem());
  return true;
}

namespace {

// A save read, described and compiled (on the compile thread): the kernel on screen compiled
// before anything is replaced, so its error, if any, is the one the person is looking for.
SavedKernelFile compile_save(const std::filesystem::path& path, const std::string& hash_shown,
                             bool shown_broken, const std::string& shown_id, const Params& params,
                             int sm) {
  const auto start = std::chrono::steady_clock::now();
  SavedKernelFile out;
  try {
    out.file = read_kernel_file(path);
    if (out.file->hash == hash_shown && !shown_broken) {
      out.unchanged = true; // a header beside it, or the same text written again
      return out;
    }
    out.kernels = file_kernels(*out.file);
    const auto shown = std::find_if(out.kernels.begin(), out.kernels.end(),
                                    [&](const KernelDesc& k) { return k.id == shown_id; });
    const KernelDesc& check = shown != out.kernels.end() ? *shown : out.kernels.front();
    check.usage(kept_params(check, params), sm);
    out.shown_id = check.id;
  } catch (const Error& e) {
    out.kernels.clear();
    out.problem = e.what();
  }
  out.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

} // namespace

void App::follow_kernel_file() {
  if (file.compile)
    if (std::optional<SavedKernelFile> saved = file.compile->take())
      take_saved_kernel_file(std::move(*saved));
  if (!file.watch || !file.watch->take_change())
    return;
  if (!file.compile)
    file.compile = std::make_shared<KernelFileCompile>(file.wake);
  file.compile->start([path = file.path, hash = file.hash, broken = !file.problem.empty(),
                       id = choices.kernel_id, params = choices.params,
                       sm = arch().cc_major * 10 + arch().cc_minor] {
    return compile_save(path, hash, broken, id, params, sm);
  });
}

void App::take_saved_kernel_file(SavedKernelFile saved) {
  if (saved.file)
    file.lines = lines_of(saved.file->text);
  if (saved.unchanged)
    return;
  if (!saved.problem.empty()) {
    file.problem = saved.problem;
    file.problem_line = line_named(file.problem, file.path);
    messages.status = file.problem;
    return;
  }
  use_kernel_file(*saved.file, std::move(saved.kernels));
  file.hash = saved.file->hash;
  file.problem.clear();
  file.problem_line = 0;
  if (saved.shown_id != choices.kernel_id)
    select_kernel(saved.shown_id);
  else
    choices.params = kept_params(*kernel(), choices.params);
  file.last_reload_ms = saved.milliseconds;
  messages.status = file.path.filename().string() + " saved: compiled in " +
                    format_number(file.last_reload_ms, 0) + " ms";
  // The block on screen is the person's and stays; a block line the kernel cannot use is said,
  // as `warplens model FILE` refuses it.
  try {
    check_kernel_block(KernelRequest{kernel(), choices.params, kernel()->default_block});
  } catch (const UsageError& e) {
    messages.status += "; its block line: " + std::string(e.what());
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
