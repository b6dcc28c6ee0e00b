#include "base/json_input.h"

#include "base/error.h"
#include "base/text_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <system_error>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace wl {

namespace {

using nlohmann::json;

// Thrown by the builder to stop at the first container that is too deep, the first key an object
// gives twice, or the first list item over the bound.
struct TooDeep {};
struct KeyTwice {
  std::string key;
};
struct TooManyItems {};
// A number no double holds (1e999): nlohmann reports it as a parse error ("number overflow") and
// stops, though the text is JSON. `end` is the offset just past it.
struct NumberTooLarge {
  std::string number;
  std::size_t end;
};

// Builds the document from the parser's events, refusing as it goes (before the rest is read)
// nesting deeper than kMaxJsonDepth, a key given twice in one object (a DOM parser keeps the last
// value silently) and a list of more than `max_items` items. nlohmann's callback parser could do
// the checks, but it scans the enclosing list at the end of every object: a list of a million
// objects took minutes. Each value is added where it belongs once, so building is linear.
class GuardedBuilder : public json::json_sax_t {
public:
  GuardedBuilder(json& root, std::size_t max_items) : m_root(root), m_max_items(max_items) {}

  bool null() override { return add(nullptr); }
  bool boolean(bool value) override { return add(value); }
  bool number_integer(number_integer_t value) override { return add(value); }
  bool number_unsigned(number_unsigned_t value) override { return add(value); }
  bool number_float(number_float_t value, const string_t&) override { return add(value); }
  bool string(string_t& value) override { return add(std::move(value)); }
  bool binary(binary_t& value) override { return add(json::binary(std::move(value))); }
  bool start_object(std::size_t) override { return open(json::object()); }
  bool start_array(std::size_t) override { return open(json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

  bool key(string_t& name) override {
    Open& object = m_open.back();
    if (!object.keys.insert(name).second)
      throw KeyTwice{name};
    m_member = &(*object.value)[name];
    return true;
  }

  bool parse_error(std::size_t position, const std::string& token,
                   const nlohmann::detail::exception& e) override {
    constexpr int kNumberOverflow = 406; // nlohmann's out_of_range.406
    if (e.id == kNumberOverflow)
      throw NumberTooLarge{token, position};
    throw e; // caught as a json::exception with the parser's reason
  }

private:
  struct Open { // a list or an object not yet closed
    explicit Open(json* opened) : value(opened) {}
    json* value;
    std::size_t items = 0;                // a list's
    std::unordered_set<std::string> keys; // an object's
  };

  // The value in its place: the root, the next item of the open list, or the open object's
  // member whose key came last.
  json* place(json&& value) {
    if (m_open.empty())
      return &(m_root = std::move(value));
    Open& container = m_open.back();
    if (!container.value->is_array())
      return &(*m_member = std::move(value));
    if (++container.items > m_max_items)
      throw TooManyItems{};
    container.value->push_back(std::move(value));
    return &container.value->back();
  }
  bool add(json&& value) {
    place(std::move(value));
    return true;
  }
  bool open(json&& container) {
    if (m_open.size() >= static_cast<std::size_t>(kMaxJsonDepth))
      throw TooDeep{};
    m_open.emplace_back(place(std::move(container)));
    return true;
  }
  bool close() {
    m_open.pop_back();
    return true;
  }

  json& m_root;
  std::size_t m_max_items;
  std::vector<Open> m_open;
  json* m_member = nullptr; // where the open object's next value goes
};

// "[json.exception.parse_error.101] parse error at line 1, column 2: ..." without the
// library's tag, cut short: the reason is for a person, not a bug report.
std::string parser_reason(const json::exception& e) {
  std::string_view text = e.what();
  if (const std::size_t tag_end = text.find("] ");
      text.starts_with("[json.exception") && tag_end != text.npos)
    text.remove_prefix(tag_end + 2);
  if (text.starts_with("parse error at "))
    text.remove_prefix(15);
  return clip(text, 120);
}

// The line and column (from 1) of the byte at `offset`.
std::pair<std::size_t, std::size_t> line_and_column(std::string_view text, std::size_t offset) {
  const std::string_view before = text.substr(0, std::min(offset, text.size()));
  const std::size_t line_start = before.rfind('\n') + 1; // 0 when there is no newline before
  return {static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n')) + 1,
          offset - line_start + 1};
}

// Where the first NUL byte of `text` is ("column 50", or "line 3, column 7" in a text of several
// lines), or "" when it has none. The parser takes a NUL for the end of its input, so whatever
// follows one would be dropped unread: a second request on the line, the rest of a file.
std::string nul_byte_place(std::string_view text) {
  const std::size_t at = text.find('\0');
  if (at == std::string_view::npos)
    return "";
  const auto [line, column] = line_and_column(text, at);
  const std::string place = "column " + std::to_string(column);
  return line == 1 ? place : "line " + std::to_string(line) + ", " + place;
}

std::string mib(std::uintmax_t bytes) {
  return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB";
}

// nlohmann's reader takes a NUL byte for the end of the input (as in a C string) and reads no
// further, so a document followed by a NUL and anything at all would pass, and a binary file that
// starts with one reads as "unexpected end of input". JSON text never holds a NUL (inside a string
// it is written \u0000), so the first one is the problem: "" when there is none.
std::string nul_byte_problem(std::string_view text) {
  const std::string place = nul_byte_place(text);
  if (place.empty())
    return "";
  const std::string_view before = text.substr(0, text.find('\0'));
  if (json::accept(before))
    return "a NUL byte at " + place + ", after the document"; // where only white space may be
  const bool text_before =
      !before.empty() && std::none_of(before.begin(), before.end(), [](char c) {
        return static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r';
      });
  return std::string(text_before ? "" : "binary data: ") + "a NUL byte at " + place;
}

// Whether text[at] starts one of Unicode's bidirectional controls: LRM and RLM (U+200E, U+200F),
// the embeddings and overrides (U+202A to U+202E) and the isolates (U+2066 to U+2069), which UTF-8
// writes 0xE2 0x80 0x8E/0x8F, 0xE2 0x80 0xAA to 0xAE and 0xE2 0x81 0xA6 to 0xA9. A terminal
// reorders the rest of a line after one ("Trojan source"): a name holding one reads as other text.
bool bidi_control_at(std::string_view text, std::size_t at) {
  if (at + 2 >= text.size() || static_cast<unsigned char>(text[at]) != 0xE2)
    return false;
  const auto second = static_cast<unsigned char>(text[at + 1]);
  const auto third = static_cast<unsigned char>(text[at + 2]);
  return (second == 0x80 && (third == 0x8E || third == 0x8F || (third >= 0xAA && third <= 0xAE))) ||
         (second == 0x81 && third >= 0xA6 && third <= 0xA9);
}

// The bytes of the valid UTF-8 character of two to four bytes that starts at `at` (no overlong
// form, no surrogate, nothing past U+10FFFF), or 0 where none does.
std::size_t utf8_length_at(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
  const unsigned char c = byte(0);
  const std::size_t length = c >= 0xC2 && c <= 0xDF   ? 2
                             : c >= 0xE0 && c <= 0xEF ? 3
                             : c >= 0xF0 && c <= 0xF4 ? 4
                                                      : 0;
  if (length == 0 || at + length > text.size())
    return 0;
  for (std::size_t i = 1; i < length; ++i)
    if ((byte(i) & 0xC0) != 0x80)
      return 0;
  if ((c == 0xE0 && byte(1) < 0xA0) || (c == 0xED && byte(1) > 0x9F) ||
      (c == 0xF0 && byte(1) < 0x90) || (c == 0xF4 && byte(1) > 0x8F))
    return 0;
  return length;
}

// The bytes of the control character that starts at text[at] (C0, DEL, C1: U+0080 to U+009F,
// CSI among them, which UTF-8 writes 0xC2 0x80 to 0xC2 0x9F, or a bidirectional control), or 0
// when none starts there.
std::size_t control_character_bytes(std::string_view text, std::size_t at) {
  const auto c = static_cast<unsigned char>(text[at]);
  if (c < 0x20 || c == 0x7f)
    return 1;
  if (bidi_control_at(text, at))
    return 3;
  const bool c1 = c == 0xC2 && at + 1 < text.size() &&
                  (static_cast<unsigned char>(text[at + 1]) & 0xE0) == 0x80;
  return c1 ? 2 : 0;
}

} // namespace

std::string clip(std::string_view text, std::size_t limit) {
  std::size_t kept = std::min(text.size(), limit);
  while (kept < text.size() && kept > 0 && (static_cast<unsigned char>(text[kept]) & 0xC0) == 0x80)
    --kept; // never half a UTF-8 character
  const std::string_view shown = text.substr(0, kept);
  std::string out;
  out.reserve(kept + 3);
  for (std::size_t i = 0; i < kept; ++i) {
    const std::size_t control = control_character_bytes(shown, i);
    // A byte that starts no UTF-8 character is shown as '?' too: a lone 0x9B is CSI to a
    // terminal that reads 8-bit controls.
    const std::size_t character =
        static_cast<unsigned char>(shown[i]) < 0x80 ? 1 : utf8_length_at(shown, i);
    if (control || character == 0) {
      out.push_back('?');
      i += std::max<std::size_t>(control, 1) - 1;
    } else {
      out.append(shown.substr(i, character));
      i += character - 1;
    }
  }
  return kept < text.size() ? out + "..." : out;
}

std::string in_quotes(std::string_view text, std::size_t limit) {
  std::string quoted(1, '\'');
  quoted.append(clip(text, limit)).push_back('\'');
  return quoted;
}

bool has_control_characters(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i)
    if (control_character_bytes(text, i))
      return true;
  return false;
}

void clip_texts(json& value, std::size_t limit) {
  if (value.is_string())
    value = clip(value.get_ref<const std::string&>(), limit);
  else if (value.is_structured()) // at most kMaxJsonDepth deep: the parser refuses more
    for (json& item : value)
      clip_texts(item, limit);
}

json parse_json_text(std::string_view text, const std::string& origin, std::size_t max_bytes,
                     std::size_t max_list_items) {
  if (text.size() > max_bytes)
    throw UsageError(origin + ": " + std::to_string(text.size()) + " bytes; allowed at most " +
                     std::to_string(max_bytes) + " bytes");
  if (const std::string why = nul_byte_problem(text); !why.empty())
    throw UsageError(origin + ": not valid JSON (" + why + ")");
  try {
    json document;
    GuardedBuilder builder(document, max_list_items);
    json::sax_parse(text.begin(), text.end(), &builder);
    return document;
  } catch (const TooDeep&) {
    throw UsageError(origin + ": lists and objects nested too deep; allowed " +
                     std::to_string(kMaxJsonDepth) + " levels");
  } catch (const NumberTooLarge& large) {
    const std::size_t start =
        large.end >= large.number.size() ? large.end - large.number.size() : 0;
    const auto [line, column] = line_and_column(text, start);
    throw JsonNumberTooLarge(origin + ": the number " + clip(large.number, 40) + " at line " +
                                 std::to_string(line) + ", column " + std::to_string(column) +
                                 " is too large for any value; allowed numbers within +-1.8e308",
                             clip(large.number, 40), line, column);
  } catch (const TooManyItems&) {
    throw UsageError(origin + ": a list of more than " + std::to_string(max_list_items) +
                     " items; allowed at most " + std::to_string(max_list_items));
  } catch (const KeyTwice& twice) {
    throw UsageError(origin + ": the key '" + clip(twice.key, 40) +
                     "' is given twice in one object; allowed each key once (a JSON reader keeps "
                     "one of the two values and drops the other unseen)");
  } catch (const json::exception& e) {
    throw UsageError(origin + ": not valid JSON (" + parser_reason(e) + ")");
  } catch (const std::bad_alloc&) {
    throw UsageError(origin + ": too large to hold in memory");
  }
}

json read_json_document(const std::filesystem::path& file, const std::string& what,
                        std::size_t max_list_items) {
  const std::string origin = clip(file.string(), 160);
  RegularFileRead read = read_regular_file(file, kMaxJsonFileBytes);
  using Problem = RegularFileRead::Problem;
  switch (read.problem) {
  case Problem::none:
    if (read.text.find_first_not_of(" \t\r\n") == std::string::npos) // "unexpected end" says less
      throw UsageError(origin + ": the file is empty; a " + what + " is a JSON file");
    return parse_json_text(read.text, origin, kMaxJsonFileBytes, max_list_items);
  case Problem::missing:
    throw UsageError(origin + ": cannot read the " + what + ": no such file");
  case Problem::folder:
    throw UsageError(origin + ": a folder, not a " + what + "; give a JSON file");
  case Problem::not_regular:
    throw UsageError(origin + ": " + read.reason + ", not a regular file; the " + what +
                     " must be a JSON file");
  case Problem::too_large:
    throw UsageError(origin + ": " + mib(read.size) + "; a " + what + " may hold at most " +
                     mib(kMaxJsonFileBytes));
  case Problem::unreadable:
    break;
  }
  // A link loop, a name too long, no permission: the system's reason.
  throw UsageError(origin + ": cannot read the " + what + ": " + read.reason);
}

LineReader::LineReader(ReadSome read_some, std::size_t max_bytes)
    : m_read_some(std::move(read_some)), m_max_bytes(max_bytes) {}

bool LineReader::refill() {
  if (m_ended)
    return false;
  m_block.resize(kBlockBytes);
  m_block.resize(m_read_some(m_block.data(), m_block.size()));
  m_at = 0;
  m_ended = m_block.empty();
  return !m_ended;
}

LineStatus LineReader::next(std::string& line, bool wait) {
  line.clear();
  for (;;) { // the rest of a line reported too long, skipped
    if (!wait && m_block.find('\n', m_at) == std::string::npos)
      return LineStatus::end;
    if (!m_skipping)
      break;
    if (m_at >= m_block.size() && !refill())
      return LineStatus::end;
    const std::size_t newline = m_block.find('\n', m_at);
    m_skipped += (newline == std::string::npos ? m_block.size() : newline) - m_at;
    m_at = newline == std::string::npos ? m_block.size() : newline + 1;
    m_skipping = newline == std::string::npos;
    // A line that goes on past many times the most a line holds (a stream of zeros) is no
    // request: the input is read as ended, so a reader waiting on it finishes.
    if (m_skipping && m_skipped > kEndlessLineFactor * m_max_bytes) {
      m_ended = true;
      return LineStatus::end;
    }
  }
  bool any = false;
  while (m_at < m_block.size() || refill()) {
    any = true;
    const std::size_t newline = m_block.find('\n', m_at);
    const std::size_t end = newline == std::string::npos ? m_block.size() : newline;
    if (end - m_at > m_max_bytes - line.size()) {
      // Said at once rather than at the line's end, which may never come.
      line.clear();
      m_at = newline == std::string::npos ? end : newline + 1;
      m_skipping = newline == std::string::npos;
      m_skipped = 0;
      return LineStatus::too_long;
    }
    line.append(m_block, m_at, end - m_at);
    m_at = newline == std::string::npos ? end : newline + 1;
    if (newline != std::string::npos)
      break;
  }
  return any ? LineStatus::line : LineStatus::end;
}

std::string json_text(const json& value, int indent) {
  return value.dump(indent, ' ', false, json::error_handler_t::replace);
}

} // namespace wl
