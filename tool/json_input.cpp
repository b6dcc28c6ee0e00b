#include "json_input.h"

#include "error.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include <nlohmann/json.hpp>

namespace wl {

namespace {

using nlohmann::json;

// Thrown from the parser's callback to stop at the first container that is too deep.
struct TooDeep {};

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

std::string mib(std::uintmax_t bytes) {
  return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB";
}

// The file's bytes, read into a buffer of its size (plus one byte, so a file that grew past the
// cap since it was measured is still seen as too large).
std::string read_capped(const std::filesystem::path& file, std::uintmax_t size,
                        const std::string& origin, const std::string& what) {
  errno = 0;
  std::ifstream in(file, std::ios::binary);
  if (!in) // no read permission, most often: the system says which
    throw UsageError(origin + ": cannot read the " + what + ": " + std::strerror(errno));
  std::string text(static_cast<std::size_t>(std::min<std::uintmax_t>(size, kMaxJsonFileBytes)) + 1,
                   '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > size &&
      !in.eof()) // it grew: read the rest up to the cap, so the size check sees it
    for (char c; text.size() <= kMaxJsonFileBytes && in.get(c);)
      text.push_back(c);
  return text;
}

} // namespace

std::string clip(std::string_view text, std::size_t limit) {
  const bool cut = text.size() > limit;
  std::string out(text.substr(0, cut ? limit : text.size()));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      c = '?';
  return cut ? out + "..." : out;
}

json parse_json_text(std::string_view text, const std::string& origin, std::size_t max_bytes) {
  if (text.size() > max_bytes)
    throw UsageError(origin + ": " + std::to_string(text.size()) + " bytes; allowed at most " +
                     std::to_string(max_bytes) + " bytes");
  const json::parser_callback_t depth_guard = [](int depth, json::parse_event_t event, json&) {
    const bool opens =
        event == json::parse_event_t::object_start || event == json::parse_event_t::array_start;
    if (opens && depth >= kMaxJsonDepth)
      throw TooDeep{};
    return true;
  };
  try {
    return json::parse(text, depth_guard);
  } catch (const TooDeep&) {
    throw UsageError(origin + ": lists and objects nested too deep; allowed " +
                     std::to_string(kMaxJsonDepth) + " levels");
  } catch (const json::exception& e) {
    throw UsageError(origin + ": not valid JSON (" + parser_reason(e) + ")");
  } catch (const std::bad_alloc&) {
    throw UsageError(origin + ": too large to hold in memory");
  }
}

json read_json_document(const std::filesystem::path& file, const std::string& what) {
  const std::string origin = clip(file.string(), 160);
  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);
  if (!std::filesystem::exists(status))
    throw UsageError(origin + ": cannot read the " + what + ": no such file");
  if (std::filesystem::is_directory(status))
    throw UsageError(origin + ": a folder, not a " + what + "; give a JSON file");
  if (!std::filesystem::is_regular_file(status))
    throw UsageError(origin + ": not a regular file; the " + what + " must be a JSON file");
  const std::uintmax_t size = std::filesystem::file_size(file, ec);
  if (!ec && size > kMaxJsonFileBytes)
    throw UsageError(origin + ": " + mib(size) + "; a " + what + " may hold at most " +
                     mib(kMaxJsonFileBytes));
  return parse_json_text(read_capped(file, ec ? 0 : size, origin, what), origin, kMaxJsonFileBytes);
}

LineStatus read_bounded_line(std::istream& in, std::string& line, std::size_t max_bytes) {
  line.clear();
  bool any = false, too_long = false;
  for (std::istreambuf_iterator<char> it(in), end; it != end; ++it) {
    any = true;
    if (*it == '\n') {
      ++it;
      return too_long ? LineStatus::too_long : LineStatus::line;
    }
    if (line.size() < max_bytes)
      line.push_back(*it);
    else
      too_long = true;
  }
  in.setstate(std::ios::eofbit);
  if (too_long)
    return LineStatus::too_long;
  return any ? LineStatus::line : LineStatus::end;
}

} // namespace wl
