#pragma once
// The points `warplens tune` has measured, kept in a file as they are measured, so that a tune
// that is killed or run again measures no point twice. The file is JSON lines, appended to and
// never rewritten, so a tune killed at any moment leaves whole lines:
//   {"warplens_tune_cache": 1, "kernel": ..., "source_hash": ..., "device": ..., "driver": ...,
//    "measure": ...}                                  (line 1: what the points are of)
//   {"key": "block 16x16x1 TILE=32", "result": {...}} (a point measured: run_result_to_json's)
//   {"key": "block 8x8x1 TILE=64", "refused": "why"}  (a point the kernel refused)
// A cache of another kernel, GPU, driver or version of the kernel's source is refused by name:
// its points would be another launch's times.

#include "model/run_result.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace wl {

inline constexpr int kTuneCacheVersion = 1;
// The largest cache read; a larger file is refused unread.
inline constexpr std::uintmax_t kMaxTuneCacheBytes = std::uintmax_t{256} << 20;

// What a cache's points are of; a cache of anything else is refused, naming what differs.
struct TuneCacheIdentity {
  std::string kernel = {};      // "matmul/async_copy", or "examples/transpose.cu:transpose"
  std::string source_hash = {}; // "fnv1a64:0123456789abcdef" (the kernel file's, or the build's)
  std::string device = {};      // "NVIDIA H200 (GPU-1b2c3d4e)"
  std::string driver = {};      // "13.0": the CUDA version the driver supports
  std::string measure = {};     // what each point's measurement holds: "timing", "timing,energy"
};

// One point as the cache holds it: its key ("block 16x16x1 TILE=32 PAD=1") and the measurement,
// or why the kernel refused the point.
struct CachedPoint {
  std::string key = {};
  std::optional<RunResult> result = std::nullopt;
  std::string refused = {};
};

class TuneCache {
public:
  // The cache in `file`, made (O_CREAT|O_EXCL|O_NOFOLLOW, 0644, its identity line fsync'd) when
  // there is none; an existing file is only read. Throws UsageError, one line naming the file (and
  // the line, "cache.jsonl line 7: ..."), for: a folder that does not exist; a folder, a symbolic
  // link or anything but a regular file at the path; a file over kMaxTuneCacheBytes (refused by
  // its size, unread); an empty file; a last line cut short (no "\n" at the end); a line that is
  // not a JSON object; a first line that is no cache header, or of a version other than 1 to
  // kTuneCacheVersion; a header of another identity (naming the field and both values); a point
  // line with a key other than key, result and refused, without a key, with both or neither of
  // result and refused, with a result run_result_from_json refuses, or with a key seen before.
  // The file is locked (flock) while the TuneCache lives: a second tune on the same cache (two
  // terminals) is refused naming it, rather than both appending the same points.
  static TuneCache open(const std::filesystem::path& file, const TuneCacheIdentity& identity);
  const std::vector<CachedPoint>& points() const { return m_points; } // in the file's order
  // The point of `key`, or nullptr when not cached; valid until the next append.
  const CachedPoint* find(const std::string& key) const;
  // Appends one point as one write of its whole line (ending in "\n") to the file opened with
  // O_APPEND, fsync'd before it returns, so a tune killed at any moment leaves whole lines; adds
  // it to points(). A key already cached, or a point open() would refuse (an empty key, both or
  // neither of result and refused), is a programming error (throws std::logic_error).
  // A failed write throws UsageError naming the file and the system's reason (strerror).
  void append(const CachedPoint& point);
  const std::filesystem::path& file() const { return m_file; }

private:
  std::filesystem::path m_file;
  TuneCacheIdentity m_identity;
  std::vector<CachedPoint> m_points;
  std::shared_ptr<const int> m_lock; // the locked descriptor, closed with the last copy
};

} // namespace wl
