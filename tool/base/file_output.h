#pragma once
// The one way WarpLens writes a file a person asked for or relies on: sweep results (--csv,
// --json), the GUI's exports, screenshots and their sidecars, settings.json. A file is checked
// before the work whose results it will hold, then written whole into a new temporary beside it
// and renamed over it, so a crash, a full disk or a file-size limit never leaves half a file or
// destroys the old one; when the write still fails, the text is kept elsewhere and the message
// says where and why (the system's reason).

#include <filesystem>
#include <string>
#include <string_view>

namespace wl {

struct OutputRules {
  // A regular file already there: refused (the text goes nowhere) or replaced.
  bool replace_existing = false;
  // A symbolic link at the path: refused, or written through (its final target is replaced and
  // the link stays a link, as settings.json linked from a dotfiles folder needs).
  bool write_through_links = false;
  // When the write fails, keep the text: the complete temporary where it is, else a new file in
  // $TMPDIR. Off for what is written again on the next change (settings).
  bool keep_on_failure = true;
};

// Why `file` cannot be written under `rules`, or "" when it can: a name that is empty, names a
// folder or is too long for the file system; a folder that does not exist or takes no new file
// (read-only, no permission: a file is made and removed there to see); something there that is
// not a regular file (a folder, a device such as /dev/full, a pipe); a link or an existing file
// the rules refuse (`when_exists` then says what to do, e.g. "add --force to replace it").
// Called before long work, so its results are never made only to be lost.
std::string output_problem(const std::filesystem::path& file, const OutputRules& rules,
                           std::string_view when_exists = "give another name");

// Where WarpLens keeps what it can make again (compiles, a tune's measured points):
// $XDG_CACHE_HOME/warplens, else $HOME/.cache/warplens; "" where neither names an absolute folder.
std::filesystem::path user_cache_folder();

// A cache, not an archive: past `most` files ending in `extension` in `folder`, the oldest written
// go. Quietly does nothing where the folder cannot be read.
void keep_newest(const std::filesystem::path& folder, const std::string& extension,
                 std::size_t most);

// Writes all of `text` to the descriptor, again after an interrupted or short write: 0, or the
// errno of the write that failed.
int write_all(int fd, std::string_view text);

// Whether two paths name one file: the same device and inode where both exist (hard links,
// links), else the same path once the links of its folders are resolved.
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

// Writes `text` to `file` under `rules` through a new temporary in the target's folder (created
// with O_CREAT|O_EXCL|O_NOFOLLOW, mode 0644, or the replaced file's mode), renamed over the
// target; with !replace_existing the rename refuses a file that appeared meanwhile. Returns "" or
// one line: what could not be written, the system's reason, and where the text was kept.
std::string write_file_safely(const std::filesystem::path& file, std::string_view text,
                              const OutputRules& rules);

// A copy kept aside: where it is, and what to tell the person ("kept in 'PATH' instead", or why no
// copy could be kept: `path` empty).
struct KeptCopy {
  std::filesystem::path path;
  std::string message;
};
// The text in a new file of $TMPDIR named after `file` (what it is a copy of), when it cannot go
// where it was asked; the copy is held to the hard file-size limit, not the soft one.
KeptCopy keep_aside(const std::filesystem::path& file, std::string_view text);
// Makes `folder` and its missing parents, except a missing $HOME: a HOME that does not exist is
// a mistake (a typo, a service account) that a folder made there would hide. Returns "" or one
// line saying why the folder cannot be made.
std::string make_folders(const std::filesystem::path& folder);
// make_folders' refusal alone, made nothing: "" unless `folder` lies in a HOME that is missing or
// not a folder.
std::string missing_home(const std::filesystem::path& folder);
// Why $HOME names no folder to keep things in ("HOME is empty; set HOME to your home folder",
// "HOME '/x' is not a folder; ...", "... does not exist, and WarpLens does not make it; ..."), or
// "" when it names one. An empty or unset HOME is no folder: never the current one.
std::string home_problem();

// A file-size limit (ulimit -f) sends SIGXFSZ, which ends the process; ignored, the write fails
// with EFBIG instead and is reported like any other failed write. Called at the start of main.
void report_file_size_limit_as_error();

} // namespace wl
