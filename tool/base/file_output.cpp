#include "base/file_output.h"

#include "base/json_input.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace wl {

namespace fs = std::filesystem;

namespace {

constexpr int kMaxLinkHops = 40; // the kernel's own limit for a path (ELOOP)

// Built by appending: "'" + string trips GCC 12's -Wrestrict.
std::string quoted(const fs::path& path) {
  std::string text(1, '\'');
  text += clip(path.string(), 120);
  text += '\'';
  return text;
}

// Where a copy was kept is said whole: a path cut short could not be found.
std::string kept_in(const fs::path& path) {
  return "kept in '" + clip(path.string(), 1000) + "' instead";
}

std::string reason(int error) { return std::strerror(error); }

fs::path folder_of(const fs::path& file) {
  return file.parent_path().empty() ? fs::path(".") : file.parent_path();
}

// The longest name the folder's file system takes (255 where it does not say).
std::size_t longest_name(const fs::path& folder) {
  const long limit = ::pathconf(folder.c_str(), _PC_NAME_MAX);
  return limit > 0 ? static_cast<std::size_t>(limit) : 255;
}

// Where a chain of links ends: the path itself when it is no link; error is ELOOP for a chain
// too long (or circular).
struct LinkEnd {
  fs::path path;
  int error = 0;
};

LinkEnd follow_links(fs::path file) {
  for (int hop = 0; hop < kMaxLinkHops; ++hop) {
    struct stat info {};
    if (::lstat(file.c_str(), &info) != 0 || !S_ISLNK(info.st_mode))
      return {file, 0};
    std::error_code error;
    const fs::path to = fs::read_symlink(file, error);
    if (error)
      return {file, error.value()};
    file = to.is_absolute() ? to : folder_of(file) / to;
  }
  return {file, ELOOP};
}

// A file made for us alone in `folder`: NAME.XXXXXX plus `suffix`, the name cut so that the
// whole fits the file system. O_EXCL creates it or fails, so nothing there is followed (a link
// planted under the name) or clobbered.
struct NewFile {
  int fd = -1;
  fs::path path;
  int error = 0;
};

NewFile create_new_file(const fs::path& folder, const std::string& name, std::string_view suffix,
                        mode_t mode) {
  static constexpr char kLetters[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937_64 random{std::random_device{}()};
  const std::size_t unique_part = 7 + suffix.size(); // ".XXXXXX" and the suffix
  const std::size_t limit = longest_name(folder);
  const std::string stem =
      name.substr(0, limit > unique_part + 1 ? std::min(name.size(), limit - unique_part) : 1);
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string unique = stem + ".";
    for (int i = 0; i < 6; ++i)
      unique += kLetters[random() % (sizeof kLetters - 1)];
    const fs::path path = folder / (unique + std::string(suffix));
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd >= 0)
      return {fd, path, 0};
    if (errno != EEXIST)
      return {-1, path, errno};
  }
  return {-1, {}, EEXIST};
}

// Writes the text and closes the file (a network file system reports some failures only then);
// returns the first errno, or 0.
int fill_and_close(NewFile& file, std::string_view text) {
  int error = write_all(file.fd, text);
  if (::close(file.fd) != 0 && error == 0)
    error = errno;
  file.fd = -1;
  return error;
}

// A soft file-size limit (ulimit -S -f) that stopped the write to the file asked for would stop
// the copy kept aside too, and the results would be lost: the copy is held to the hard limit
// alone, the soft one put back after it.
class SoftFileSizeLimitRaised {
public:
  SoftFileSizeLimitRaised() {
    if (::getrlimit(RLIMIT_FSIZE, &m_saved) != 0)
      return;
    rlimit raised = m_saved;
    raised.rlim_cur = m_saved.rlim_max;
    m_raised = ::setrlimit(RLIMIT_FSIZE, &raised) == 0;
  }
  ~SoftFileSizeLimitRaised() {
    if (m_raised)
      ::setrlimit(RLIMIT_FSIZE, &m_saved);
  }
  SoftFileSizeLimitRaised(const SoftFileSizeLimitRaised&) = delete;
  SoftFileSizeLimitRaised& operator=(const SoftFileSizeLimitRaised&) = delete;

private:
  rlimit m_saved{};
  bool m_raised = false;
};

} // namespace

std::filesystem::path user_cache_folder() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg && xdg[0] == '/')
    return std::filesystem::path(xdg) / "warplens";
  if (const char* home = std::getenv("HOME"); home && *home && home[0] == '/')
    return std::filesystem::path(home) / ".cache" / "warplens";
  return {};
}

void keep_newest(const std::filesystem::path& folder, const std::string& extension,
                 std::size_t most) {
  std::vector<std::pair<std::filesystem::file_time_type, std::filesystem::path>> entries;
  std::error_code error;
  for (std::filesystem::directory_iterator it(folder, error), end; !error && it != end;
       it.increment(error))
    if (it->path().extension() == extension)
      entries.emplace_back(it->last_write_time(error), it->path());
  if (entries.size() <= most)
    return;
  std::sort(entries.begin(), entries.end());
  for (std::size_t i = 0; i + most < entries.size(); ++i)
    std::filesystem::remove(entries[i].second, error);
}

int write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t written = ::write(fd, text.data(), text.size());
    if (written < 0 && errno == EINTR)
      continue;
    if (written < 0)
      return errno;
    text.remove_prefix(static_cast<std::size_t>(written));
  }
  return 0;
}

// The text in a new file of $TMPDIR, when it could not go where it was asked: where it is now.
KeptCopy keep_aside(const fs::path& file, std::string_view text) {
  const SoftFileSizeLimitRaised for_the_copy;
  std::error_code error;
  const fs::path folder = fs::temp_directory_path(error);
  if (error) { // named by the variable that chose it, which is what to mend
    const char* tmpdir = std::getenv("TMPDIR");
    return {{},
            "not kept aside: " +
                (tmpdir && *tmpdir ? "TMPDIR=" + quoted(tmpdir) : "no temporary folder") + " (" +
                error.message() + ")"};
  }
  // The name is cut short (it says what the copy is of; the message says whose it is).
  NewFile kept =
      create_new_file(folder, "warplens-" + file.filename().string().substr(0, 60), "", 0644);
  if (kept.fd < 0)
    return {{}, "not kept aside in " + quoted(folder) + " (" + reason(kept.error) + ")"};
  if (const int failed = fill_and_close(kept, text)) {
    ::unlink(kept.path.c_str());
    return {{}, "not kept aside in " + quoted(folder) + " (" + reason(failed) + ")"};
  }
  return {kept.path, kept_in(kept.path)};
}

namespace {

// The file as a message names it: with where it leads when it is a link, since the link's own
// folder is not where the write failed.
std::string named(const fs::path& file, const fs::path& target) {
  return target == file ? quoted(file)
                        : quoted(file) + " (a symbolic link to " + quoted(target) + ")";
}

// Why a file could not be made in `folder`: the system's reason, or that the folder is missing
// (ENOENT, which the system words as "No such file or directory", as if the file were missing).
std::string cannot_create(const fs::path& folder, int error) {
  struct stat info {};
  if (error == ENOENT && ::stat(folder.c_str(), &info) != 0)
    return "the folder " + quoted(folder) + " does not exist";
  return reason(error);
}

std::string write_failed(const fs::path& file, const fs::path& target, const std::string& why,
                         std::string_view text, const OutputRules& rules) {
  return "cannot write " + named(file, target) + ": " + why +
         (rules.keep_on_failure ? "; " + keep_aside(file, text).message : "");
}

// The temporary takes the target's name: renamed over it, or over a file that appeared
// meanwhile only when replacing is allowed (RENAME_NOREPLACE, or link() where the file system
// lacks it: both fail on a taken name).
int move_into_place(const fs::path& from, const fs::path& to, bool replace) {
  if (replace)
    return ::rename(from.c_str(), to.c_str()) == 0 ? 0 : errno;
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0)
    return 0;
  if (errno != EINVAL && errno != ENOSYS)
    return errno;
  if (::link(from.c_str(), to.c_str()) != 0)
    return errno;
  ::unlink(from.c_str());
  return 0;
}

// "is a folder", "is not a regular file ..." for what lstat found at a path, or "" for a file.
std::string not_a_file(const struct stat& info) {
  if (S_ISDIR(info.st_mode))
    return "is a folder; give a file to write";
  if (!S_ISREG(info.st_mode))
    return "is not a regular file (a device, a pipe or a socket); give a file's path";
  return "";
}

std::string link_refused(const fs::path& file) {
  std::error_code error;
  const fs::path to = fs::read_symlink(file, error);
  return quoted(file) + " is a symbolic link" + (error ? "" : " (to " + quoted(to) + ")") +
         "; give the path of the file itself, or remove the link";
}

} // namespace

std::string output_problem(const fs::path& file, const OutputRules& rules,
                           std::string_view when_exists) {
  if (file.empty())
    return "no file name given";
  const std::string name = file.filename().string();
  if (name.empty() || name == "." || name == "..")
    return quoted(file) + " names a folder; give a file to write";
  if (file.native().size() >= PATH_MAX)
    return quoted(file) + " is too long: " + std::to_string(file.native().size()) +
           " bytes; a path has at most " + std::to_string(PATH_MAX - 1);
  fs::path target = file;
  struct stat info {};
  if (::lstat(file.c_str(), &info) == 0 && S_ISLNK(info.st_mode)) {
    if (!rules.write_through_links)
      return link_refused(file);
    const LinkEnd end = follow_links(file);
    if (end.error)
      return quoted(file) + ": " + reason(end.error);
    target = end.path;
  }
  const fs::path folder = folder_of(target);
  if (::stat(folder.c_str(), &info) != 0)
    return quoted(file) + ": the folder " + quoted(folder) +
           (errno == ENOENT ? " does not exist" : ": " + reason(errno));
  if (!S_ISDIR(info.st_mode))
    return quoted(file) + ": " + quoted(folder) + " is not a folder";
  const std::size_t limit = longest_name(folder);
  if (target.filename().native().size() > limit)
    return quoted(file) + ": the name is " + std::to_string(target.filename().native().size()) +
           " bytes long; this file system takes at most " + std::to_string(limit);
  if (::lstat(target.c_str(), &info) == 0) {
    if (const std::string why = not_a_file(info); !why.empty())
      return quoted(file) + " " + why;
    if (!rules.replace_existing)
      return quoted(file) + " exists; " + std::string(when_exists);
  } else if (errno != ENOENT) {
    return quoted(file) + ": " + reason(errno);
  }
  // A file made and removed where the temporary will go: a read-only file system or a folder
  // this user may not write to is found now, not after the work.
  NewFile probe = create_new_file(folder, target.filename().string(), ".tmp", 0644);
  if (probe.fd < 0)
    return quoted(file) + ": cannot create a file in " + quoted(folder) + " (" +
           reason(probe.error) + ")";
  ::close(probe.fd);
  ::unlink(probe.path.c_str());
  return "";
}

bool same_file(const fs::path& a, const fs::path& b) {
  struct stat first {
  }, second{};
  if (::stat(a.c_str(), &first) == 0 && ::stat(b.c_str(), &second) == 0)
    return first.st_dev == second.st_dev && first.st_ino == second.st_ino;
  // Made absolute first: weakly_canonical leaves a relative name none of whose parts exists as it
  // is ("x.csv"), so "./x.csv" and "x.csv" would differ.
  std::error_code error_a, error_b;
  const fs::path canonical_a = fs::weakly_canonical(fs::absolute(a, error_a), error_a);
  const fs::path canonical_b = fs::weakly_canonical(fs::absolute(b, error_b), error_b);
  return error_a || error_b ? a.lexically_normal() == b.lexically_normal()
                            : canonical_a == canonical_b;
}

std::string write_file_safely(const fs::path& file, std::string_view text,
                              const OutputRules& rules) {
  fs::path target = file;
  struct stat info {};
  if (::lstat(file.c_str(), &info) == 0 && S_ISLNK(info.st_mode)) {
    if (!rules.write_through_links)
      return write_failed(file, target, "it is a symbolic link", text, rules);
    const LinkEnd end = follow_links(file);
    if (end.error)
      return write_failed(file, target, reason(end.error), text, rules);
    target = end.path;
  }
  const bool exists = ::lstat(target.c_str(), &info) == 0;
  if (exists && !not_a_file(info).empty())
    return write_failed(file, target, "it " + not_a_file(info), text, rules);
  if (exists && !rules.replace_existing)
    return write_failed(file, target, "a file of that name appeared meanwhile", text, rules);
  NewFile temporary = create_new_file(folder_of(target), target.filename().string(), ".tmp", 0644);
  if (temporary.fd < 0)
    return write_failed(file, target, cannot_create(folder_of(target), temporary.error), text,
                        rules);
  if (exists) // the replaced file's permissions carry over (a private settings file stays so)
    ::fchmod(temporary.fd, info.st_mode & 07777);
  if (const int failed = fill_and_close(temporary, text)) {
    ::unlink(temporary.path.c_str());
    return write_failed(file, target, reason(failed), text, rules);
  }
  if (const int failed = move_into_place(temporary.path, target, rules.replace_existing)) {
    if (rules.keep_on_failure)
      return "cannot write " + named(file, target) + ": " + reason(failed) + "; " +
             kept_in(temporary.path);
    ::unlink(temporary.path.c_str());
    return "cannot write " + named(file, target) + ": " + reason(failed);
  }
  return "";
}

std::string home_problem() {
  const char* home = std::getenv("HOME");
  const char* set_it = "; set HOME to your home folder";
  if (!home)
    return std::string("HOME is not set") + set_it;
  if (!*home) // not the current folder, which is what an empty path would make of it
    return std::string("HOME is empty") + set_it;
  std::error_code error;
  const fs::file_status status = fs::status(home, error);
  if (fs::is_directory(status))
    return "";
  if (fs::exists(status))
    return "HOME " + quoted(home) + " is not a folder" + set_it;
  return "HOME " + quoted(home) + " does not exist, and WarpLens does not make it" + set_it;
}

std::string missing_home(const fs::path& folder) {
  const char* home = std::getenv("HOME");
  if (!home || !*home)
    return ""; // no folder lies in it
  fs::path base = fs::path(home).lexically_normal();
  if (base.filename().empty() && base != base.root_path())
    base = base.parent_path(); // "/home/me/" as "/home/me"
  const fs::path inside = folder.lexically_normal().lexically_relative(base);
  if (inside.empty() || *inside.begin() == "..")
    return "";
  return home_problem();
}

std::string make_folders(const fs::path& folder) {
  if (std::string problem = missing_home(folder); !problem.empty())
    return problem;
  std::error_code error;
  fs::create_directories(folder, error);
  if (error)
    return "cannot make the folder " + quoted(folder) + ": " + error.message();
  return "";
}

void report_file_size_limit_as_error() { std::signal(SIGXFSZ, SIG_IGN); }

} // namespace wl
