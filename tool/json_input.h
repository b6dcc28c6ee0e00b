#pragma once
// The one guarded way in for JSON that comes from outside the process: data files (presets, the
// metric catalog, recordings, sweeps) and protocol lines. Whatever the input holds, reading it
// either gives a parsed value or throws one UsageError of one short line; it never recurses on
// deep nesting, never allocates more than the size cap, and never echoes the input at length.

#include <cstddef>
#include <filesystem>
#include <istream>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace wl {

inline constexpr std::size_t kMaxJsonFileBytes = std::size_t{64} << 20; // a recording is ~2 MiB
inline constexpr std::size_t kMaxRequestLineBytes = std::size_t{1} << 20;
// A worker's answer carries a whole sweep's results on one line (several KiB per shape), so it
// may be as large as a sweep file.
inline constexpr std::size_t kMaxAnswerLineBytes = kMaxJsonFileBytes;
inline constexpr int kMaxJsonDepth = 64; // our own files nest 6 levels at most

// `text` cut to `limit` characters (with "..." when cut) and with control characters replaced, so
// that a message quoting user input stays one short line.
std::string clip(std::string_view text, std::size_t limit = 80);

// Parses `text`. Throws UsageError "ORIGIN: ..." when it is larger than `max_bytes`, nested
// deeper than kMaxJsonDepth (checked while parsing, before the value is built), not JSON, or holds
// a number no double can hold.
nlohmann::json parse_json_text(std::string_view text, const std::string& origin,
                               std::size_t max_bytes);

// Reads and parses a regular file of at most kMaxJsonFileBytes. `what` names the kind of file in
// messages ("preset file"); a folder, a device or a missing file is refused naming the path.
nlohmann::json read_json_document(const std::filesystem::path& file, const std::string& what);

enum class LineStatus { line, too_long, end };

// Reads one line of at most `max_bytes` into `line` (newline dropped). A longer line is skipped to
// its end without being stored and reported as too_long, so a hostile peer cannot make the
// reader hold more than `max_bytes`.
LineStatus read_bounded_line(std::istream& in, std::string& line, std::size_t max_bytes);

} // namespace wl
