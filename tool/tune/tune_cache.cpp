#include "tune/tune_cache.h"

#include "base/error.h"
#include "base/file_output.h"
#include "base/json_fields.h"
#include "base/json_input.h"
#include "base/text_file.h"
#include "base/text_format.h"
#include "protocol/run_result_json.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace wl {

namespace {

namespace fs = std::filesystem;

// What to do with a cache that is WarpLens's but not of this tune.
constexpr const char* kGiveAnotherCache = "give another --cache or delete it";

// Closes the descriptor however the function ends.
struct TuneCacheFd {
  int fd;
  ~TuneCacheFd() {
    if (fd >= 0)
      ::close(fd);
  }
};

// A text as JSON writes it, quoted and escaped, so that a key holding a line break stays on one
// line of the file.
std::string json_quoted(const std::string& text) { return json_text(nlohmann::json(text)); }

// The identity's line, its version first so that `head -1` shows what the file is.
std::string cache_header_line(const TuneCacheIdentity& id) {
  return "{\"warplens_tune_cache\": " + std::to_string(kTuneCacheVersion) +
         ", \"kernel\": " + json_quoted(id.kernel) +
         ", \"source_hash\": " + json_quoted(id.source_hash) +
         ", \"device\": " + json_quoted(id.device) + ", \"driver\": " + json_quoted(id.driver) +
         ", \"measure\": " + json_quoted(id.measure) + "}\n";
}

std::string cache_point_line(const CachedPoint& point) {
  const std::string what = point.result
                               ? ", \"result\": " + json_text(run_result_to_json(*point.result))
                               : ", \"refused\": " + json_quoted(point.refused);
  return "{\"key\": " + json_quoted(point.key) + what + "}\n";
}

// Makes the file with its identity line; false when a file is there already (made by another
// tune since it was looked for: it is read as any other). A file left half made is removed.
bool made_cache(const fs::path& file, const std::string& name, const TuneCacheIdentity& identity) {
  const TuneCacheFd out{
      ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)};
  if (out.fd < 0 && errno == EEXIST)
    return false;
  if (out.fd < 0 && errno == ENOENT)
    throw UsageError(name + ": the folder '" + clip(file.parent_path().string(), 160) +
                     "' does not exist; make it or give another --cache");
  if (out.fd < 0)
    throw UsageError(name + ": cannot make the tune cache: " + std::strerror(errno) +
                     "; give another --cache");
  int error = write_all(out.fd, cache_header_line(identity));
  if (error == 0 && ::fsync(out.fd) != 0)
    error = errno;
  if (error != 0) {
    ::unlink(file.c_str());
    throw UsageError(name + ": cannot write the tune cache: " + std::strerror(error) +
                     "; give another --cache");
  }
  return true;
}

[[noreturn]] void refuse_too_large_cache(const std::string& name, std::uintmax_t size) {
  throw UsageError(name + ": " + format_bytes(static_cast<double>(size)) + ", over the " +
                   format_bytes(static_cast<double>(kMaxTuneCacheBytes)) +
                   " a tune cache may be; " + kGiveAnotherCache);
}

// The file's bytes, read through one descriptor that follows no link: a file whose size says it
// is too large is refused before a byte is read.
std::string read_cache_text(const fs::path& file, const std::string& name) {
  std::error_code ignored;
  const fs::file_status status = fs::symlink_status(file, ignored);
  const std::string not_link = name + ": is a symbolic link; a tune cache is a regular file: give "
                                      "the file itself or another --cache";
  if (fs::is_symlink(status))
    throw UsageError(not_link);
  if (fs::is_directory(status))
    throw UsageError(name + ": is a folder; a tune cache is a file: give a file's path as --cache");
  if (fs::exists(status) && !fs::is_regular_file(status))
    throw UsageError(name + ": " + file_kind_name(file) +
                     ", not a regular file; a tune cache is a file: give another --cache");
  const TuneCacheFd in{
      ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)};
  if (in.fd < 0 && errno == ELOOP)
    throw UsageError(not_link);
  struct stat info {};
  if (in.fd < 0 || ::fstat(in.fd, &info) != 0)
    throw UsageError(name + ": cannot read the tune cache: " + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) // swapped in since it was looked at
    throw UsageError(name + ": not a regular file; a tune cache is a file: give another --cache");
  const auto size = static_cast<std::uintmax_t>(info.st_size);
  if (size > kMaxTuneCacheBytes)
    refuse_too_large_cache(name, size);
  // Read to its end, not to the size seen: a file that grew since is held to the cap too.
  std::string text(static_cast<std::size_t>(size), '\0');
  std::size_t got = 0;
  for (;;) {
    if (got == text.size()) {
      if (got > kMaxTuneCacheBytes)
        refuse_too_large_cache(name, got);
      text.resize(static_cast<std::size_t>(
          std::min<std::uintmax_t>(got * 2 + 4096, kMaxTuneCacheBytes + 1)));
    }
    const ssize_t read = ::read(in.fd, text.data() + got, text.size() - got);
    if (read < 0 && errno == EINTR)
      continue;
    if (read < 0)
      throw UsageError(name + ": cannot read the tune cache: " + std::strerror(errno));
    if (read == 0)
      break;
    got += static_cast<std::size_t>(read);
  }
  text.resize(got);
  return text;
}

// A value of the identity as messages show it.
std::string identity_shown(const std::string& value) {
  return value.empty() ? "(none)" : clip(value, 60);
}

// Line 1: a cache of this WarpLens's version, of the identity asked for.
void check_cache_header(const nlohmann::json& json, const std::string& where,
                        const std::string& name, const TuneCacheIdentity& now) {
  const Fields header(json, where);
  if (!header.has("warplens_tune_cache"))
    throw UsageError(where + ": not a tune cache's header (no warplens_tune_cache key); this file "
                             "is no tune cache WarpLens made: give another --cache");
  const std::int64_t version = header.integer("warplens_tune_cache", kMinInt64, kMaxInt64);
  if (version > kTuneCacheVersion)
    throw UsageError(name + ": made by a newer WarpLens (cache version " + std::to_string(version) +
                     "; this one reads " + std::to_string(kTuneCacheVersion) +
                     "); use that WarpLens or give another --cache");
  if (version < 1)
    header.fail("warplens_tune_cache", "version " + std::to_string(version),
                "allowed 1 to " + std::to_string(kTuneCacheVersion));
  header.only({"warplens_tune_cache", "kernel", "source_hash", "device", "driver", "measure"},
              "a tune cache's header");
  TuneCacheIdentity was;
  was.kernel = header.text("kernel");
  was.source_hash = header.text("source_hash");
  was.device = header.text("device");
  was.driver = header.text("driver");
  was.measure = header.text("measure");
  const auto refuse = [&](const std::string& what) {
    throw UsageError(name + ": a tune cache " + what + "; " + kGiveAnotherCache);
  };
  if (was.kernel != now.kernel)
    refuse("of kernel " + identity_shown(was.kernel) + ", not " + identity_shown(now.kernel));
  if (was.source_hash != now.source_hash)
    refuse("of another version of the kernel's source (hash " + identity_shown(was.source_hash) +
           ", now " + identity_shown(now.source_hash) + ")");
  if (was.device != now.device)
    refuse("of GPU " + identity_shown(was.device) + ", not " + identity_shown(now.device));
  if (was.driver != now.driver)
    refuse("measured under driver " + identity_shown(was.driver) + ", not " +
           identity_shown(now.driver));
  if (was.measure != now.measure)
    refuse("whose points hold " + identity_shown(was.measure) + ", not " +
           identity_shown(now.measure));
}

// A line after the first: a key and either the point's measurement or why it was refused.
CachedPoint read_cached_point(const nlohmann::json& json, const std::string& where) {
  const Fields fields(json, where);
  fields.only({"key", "result", "refused"}, "a tune cache's point");
  CachedPoint point;
  point.key = fields.text("key", false);
  const bool measured = fields.has("result");
  if (measured == fields.has("refused"))
    fields.fail(measured ? "refused" : "result", measured ? "given beside result" : "missing",
                "allowed either result (the point's measurement) or refused (why the kernel "
                "refused it)");
  if (measured)
    point.result = run_result_from_json(fields.at("result", "an object"), where + ": result");
  else
    point.refused = fields.text("refused", false);
  return point;
}

std::vector<CachedPoint> read_cache_lines(const fs::path& file, const std::string& name,
                                          const TuneCacheIdentity& identity) {
  const std::string text = read_cache_text(file, name);
  if (text.empty())
    throw UsageError(name + ": is empty, without the header a tune cache starts with; " +
                     kGiveAnotherCache);
  // Whether it is a cache at all comes first: a file of the person's own (notes, a JSON file)
  // is named as no cache, not as a cache cut short whose lines they should delete.
  const std::string_view first_line = std::string_view(text).substr(0, text.find('\n'));
  nlohmann::json first;
  try {
    first =
        parse_json_text(first_line, name + " line 1", static_cast<std::size_t>(kMaxTuneCacheBytes));
  } catch (const UsageError&) {
    first = nullptr;
  }
  if (!first.is_object() || !first.contains("warplens_tune_cache"))
    throw UsageError(name + ": not a tune cache (its first line is not the header a tune cache "
                            "starts with); give another --cache, or delete it if it is one "
                            "WarpLens made");
  if (text.back() != '\n')
    throw UsageError(name + " line " + std::to_string(std::ranges::count(text, '\n') + 1) +
                     ": truncated (no newline at its end: a write that did not finish); delete "
                     "that line or the file, or give another --cache");
  std::vector<CachedPoint> points;
  std::unordered_map<std::string, std::size_t> key_lines;
  std::size_t number = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = text.find('\n', at);
    const std::string_view line(text.data() + at, end - at);
    at = end + 1;
    const std::string where = name + " line " + std::to_string(++number);
    const nlohmann::json json =
        parse_json_text(line, where, static_cast<std::size_t>(kMaxTuneCacheBytes));
    if (number == 1) {
      check_cache_header(json, where, name, identity);
      continue;
    }
    CachedPoint point = read_cached_point(json, where);
    if (const auto [first, added] = key_lines.emplace(point.key, number); !added)
      throw UsageError(where + ": the key '" + clip(point.key, 60) +
                       "' is duplicated (first on line " + std::to_string(first->second) +
                       "); allowed each point once: delete one of the two lines");
    points.push_back(std::move(point));
  }
  return points;
}

// An exclusive lock on the cache for this tune's life, taken before its lines are read; nullptr
// where the path does not open (a link, no permission): reading it then says why.
std::shared_ptr<const int> lock_cache(const fs::path& file, const std::string& name) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return nullptr;
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    ::close(fd);
    if (error == EWOULDBLOCK)
      throw UsageError(name + ": in use by another tune (it holds the file's lock); wait for it "
                              "to end, or give another --cache");
    throw UsageError(name + ": cannot lock the tune cache: " + std::strerror(error) +
                     "; give another --cache or --no-cache");
  }
  return std::shared_ptr<const int>(new int(fd), [](const int* held) {
    ::close(*held);
    delete held;
  });
}

} // namespace

TuneCache TuneCache::open(const fs::path& file, const TuneCacheIdentity& identity) {
  TuneCache cache;
  cache.m_file = file;
  cache.m_identity = identity;
  const std::string name = clip(file.string(), 160);
  std::error_code ignored;
  const bool made = fs::symlink_status(file, ignored).type() == fs::file_type::not_found &&
                    made_cache(file, name, identity);
  cache.m_lock = lock_cache(file, name);
  if (!made)
    cache.m_points = read_cache_lines(file, name, identity);
  return cache;
}

const CachedPoint* TuneCache::find(const std::string& key) const {
  for (const CachedPoint& point : m_points)
    if (point.key == key)
      return &point;
  return nullptr;
}

void TuneCache::append(const CachedPoint& point) {
  if (point.key.empty() || point.result.has_value() == !point.refused.empty())
    throw std::logic_error("TuneCache::append: a point needs a key and either a result or why "
                           "it was refused");
  if (find(point.key))
    throw std::logic_error("TuneCache::append: '" + clip(point.key, 60) + "' is cached already");
  const std::string line = cache_point_line(point);
  const std::string name = clip(m_file.string(), 160);
  const auto refuse = [&](int error, const std::string& left = "") {
    throw UsageError(name + ": cannot add a point to the tune cache: " + std::strerror(error) +
                     left + "; make it writable or give another --cache");
  };
  const TuneCacheFd out{::open(m_file.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)};
  if (out.fd < 0)
    refuse(errno);
  struct stat info {};
  const off_t before = ::fstat(out.fd, &info) == 0 ? info.st_size : -1;
  if (const int error = write_all(out.fd, line); error != 0) {
    // A part of the line written (a full disk) is cut off again, so that the next open reads.
    if (before < 0 || ::ftruncate(out.fd, before) != 0)
      refuse(error, " (its last line is left cut short: delete it)");
    refuse(error);
  }
  if (::fsync(out.fd) != 0)
    refuse(errno);
  m_points.push_back(point);
}

} // namespace wl
