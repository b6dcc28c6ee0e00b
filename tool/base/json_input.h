#pragma once
// The one guarded way in for JSON that comes from outside the process: data files (presets, the
// metric catalog, recordings, sweeps) and protocol lines. Whatever the input holds, reading it
// either gives a parsed value or throws one UsageError of one short line; it never recurses on
// deep nesting, never allocates more than the size cap, and never echoes the input at length.

#include "base/error.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
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

// `text` cut to `limit` bytes at a character's start (with "..." when cut) and with control
// characters (C0, DEL and C1: line breaks and escape codes too; and Unicode's bidirectional
// controls, which reorder a terminal's line) shown as '?', so that a message quoting outside input
// (a user's, a file's, a worker's) stays one short line that no terminal or screen takes for a
// command.
std::string clip(std::string_view text, std::size_t limit = 80);
// The clipped text in single quotes, as messages name a value: 'sectors_per_reqest'.
std::string in_quotes(std::string_view text, std::size_t limit = 80);
// Whether `text` holds a character clip() shows as '?': a name read from a file that holds one
// is refused, since a terminal would take an escape code in it for a command.
bool has_control_characters(std::string_view text);
// Every string inside `value` clipped so: for a document from outside (a worker's answer) whose
// texts (a device name, a message) are shown as they come.
void clip_texts(nlohmann::json& value, std::size_t limit);
// The JSON text of a value WarpLens writes (indented by `indent`, one line at -1): bytes that are
// not UTF-8 (a file name's, read from the disk) are written as U+FFFD, where a JSON library would
// refuse the whole output.
std::string json_text(const nlohmann::json& value, int indent = -1);

// A number in a JSON text that no double holds (1e999): the parser stops there, so the number, its
// line and its column are given for a reader to word its own message.
struct JsonNumberTooLarge : UsageError {
  JsonNumberTooLarge(const std::string& message, std::string number_text, std::size_t at_line,
                     std::size_t at_column)
      : UsageError(message), number(std::move(number_text)), line(at_line), column(at_column) {}
  std::string number;
  std::size_t line, column;
};

// Parses `text`. Throws UsageError "ORIGIN: ..." when it is larger than `max_bytes`, not JSON
// (anything but white space after the document; a NUL byte is named with its place, "binary
// data" where no text comes before it: the parser would end the input there, the rest unread),
// or, checked while parsing before the rest is read: is nested deeper than kMaxJsonDepth, gives a
// key twice in one object (a JSON reader keeps one of the two values and drops the other unseen:
// nlohmann's keeps the last), or holds a list of more than `max_list_items` items; and
// JsonNumberTooLarge ("ORIGIN: the number 1e999 at line 1, column 14 is too large for any value;
// ...") for a number no double can hold.
nlohmann::json parse_json_text(std::string_view text, const std::string& origin,
                               std::size_t max_bytes, std::size_t max_list_items = SIZE_MAX);

// Reads and parses a regular file of at most kMaxJsonFileBytes. `what` names the kind of file in
// messages ("preset file"); a folder, a device or a missing file is refused naming the path, one
// that cannot be reached (a link loop) or read with the system's reason.
nlohmann::json read_json_document(const std::filesystem::path& file, const std::string& what,
                                  std::size_t max_list_items = SIZE_MAX);

enum class LineStatus { line, too_long, end };

// Lines of at most `max_bytes` (newline dropped) from input read a block at a time (the worker's
// requests on its stdin). `read_some` fills up to `size` bytes of `into` and returns how many, 0 at
// the end of input. A longer line is reported as too_long as soon as it passes `max_bytes` (`line`
// left empty) and skipped to its end without being stored, so a hostile peer cannot make the
// reader hold more than `max_bytes` and one block, and an endless line still gets its answer. A
// line that goes on past 64 times `max_bytes` ends the input: it is no peer's request.
class LineReader {
public:
  using ReadSome = std::function<std::size_t(char* into, std::size_t size)>;
  static constexpr std::size_t kBlockBytes = std::size_t{64} << 10;

  LineReader(ReadSome read_some, std::size_t max_bytes);
  // The next line. `wait` false: only a line already read in whole; LineStatus::end when there is
  // none, without reading more.
  LineStatus next(std::string& line, bool wait = true);

private:
  bool refill(); // false at the end of input

  ReadSome m_read_some;
  std::size_t m_max_bytes;
  std::string m_block; // the last block read; m_block[m_at...] not yet handed out
  std::size_t m_at = 0;
  bool m_ended = false;
  bool m_skipping = false;   // inside a line already reported too long
  std::size_t m_skipped = 0; // of that line, bytes skipped so far
  static constexpr std::size_t kEndlessLineFactor = 64;
};

} // namespace wl
