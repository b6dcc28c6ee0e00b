#include "kernel_file/include_check.h"

#include "base/json_input.h"
#include "base/text_format.h"

#include <cctype>
#include <filesystem>
#include <string_view>
#include <vector>

namespace wl {

namespace {

// One logical line of the text, as the preprocessor sees it, and the line it starts on.
struct LogicalLine {
  int number = 0;
  std::string text;
};

// The text's logical lines: a backslash before a line's end joins it to the next, comments are a
// space (a block comment may span lines; the line it ends on goes on), string and character
// literals are kept whole so a "/*" inside one starts no comment.
std::vector<LogicalLine> logical_lines(const std::string& text) {
  std::vector<LogicalLine> lines{{1, ""}};
  int number = 1;
  const auto new_line = [&] {
    ++number;
    lines.push_back({number, ""});
  };
  char quote = 0; // inside a literal opened by this character
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size() &&
        (text[i + 1] == '\n' ||
         (text[i + 1] == '\r' && i + 2 < text.size() && text[i + 2] == '\n'))) {
      i += text[i + 1] == '\r' ? 2 : 1;
      ++number; // the next physical line continues this logical one
      continue;
    }
    if (c == '\n') {
      quote = 0;
      new_line();
      continue;
    }
    if (quote) {
      lines.back().text += c;
      if (c == '\\' && i + 1 < text.size())
        lines.back().text += text[++i];
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      lines.back().text += c;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n')
        ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      const std::size_t end = text.find("*/", i + 2);
      const std::size_t stop = end == std::string::npos ? text.size() : end + 2;
      for (std::size_t j = i; j < stop; ++j)
        if (text[j] == '\n')
          ++number; // the comment's lines pass; what follows it stays on this logical line
      lines.back().text += ' ';
      i = stop - 1;
    } else {
      lines.back().text += c;
    }
  }
  return lines;
}

// Whether a header's name may be opened: relative, and no `..` among its parts.
bool safe_header_name(std::string_view name) {
  const std::filesystem::path path{std::string(name)};
  if (name.empty() || path.is_absolute() || name.front() == '/' || name.front() == '\\')
    return false;
  for (const auto& part : path)
    if (part == "..")
      return false;
  return true;
}

constexpr const char* kBlanks = " \t\f\v\r";

// Where an include directive's header name starts on a logical line ("#include", "# include_next",
// "%:import"), just past the directive's word; npos for any other line.
std::size_t after_include_word(std::string_view line, std::size_t& word_at) {
  std::size_t at = line.find_first_not_of(kBlanks);
  if (at == std::string_view::npos)
    return std::string_view::npos;
  if (line.compare(at, 1, "#") == 0)
    at += 1;
  else if (line.compare(at, 2, "%:") == 0)
    at += 2;
  else
    return std::string_view::npos;
  at = line.find_first_not_of(kBlanks, at);
  if (at == std::string_view::npos)
    return std::string_view::npos;
  std::size_t end = at;
  while (end < line.size() &&
         (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_'))
    ++end;
  const std::string_view directive = line.substr(at, end - at);
  if (directive != "include" && directive != "include_next" && directive != "import")
    return std::string_view::npos;
  word_at = at;
  return end;
}

// The problem with one directive's line ("" for a line that includes nothing, or safely).
std::string directive_problem(std::string_view line, const std::set<std::string>& given) {
  std::size_t at = 0;
  const std::size_t end = after_include_word(line, at);
  if (end == std::string_view::npos)
    return "";
  const std::size_t name_at = line.find_first_not_of(kBlanks, end);
  const std::string written(line.substr(at, line.find_last_not_of(kBlanks) + 1 - at));
  std::string shown = "#"; // appended: "#" + clip(...) trips GCC 12's -Wrestrict
  shown.append(clip(written, 80));
  if (name_at == std::string_view::npos)
    return shown + " names no header";
  const char open = line[name_at];
  const char close = open == '"' ? '"' : open == '<' ? '>' : 0;
  if (!close)
    return shown + " is refused: an include through a macro names a path no reader of the " +
           "file can check (it may lie outside the file's folder); write the header's name in " +
           "quotes, the header beside the file";
  const std::size_t name_end = line.find(close, name_at + 1);
  if (name_end == std::string_view::npos)
    return "";
  const std::string_view name = line.substr(name_at + 1, name_end - name_at - 1);
  if (name.empty())
    return shown + " names no header (its quotes are empty)";
  if (open == '"' && given.contains(std::string(name)))
    return "";
  if (!safe_header_name(name))
    return shown + " names a path outside the file's folder (absolute, or through ..); its " +
           "headers are sent with it to the worker, so only those in its folder (or below) are " +
           "read: copy the header beside the file";
  return "";
}

} // namespace

std::vector<std::string> quoted_includes(const std::string& text) {
  std::vector<std::string> names;
  for (const LogicalLine& line : logical_lines(text)) {
    std::size_t at = 0;
    const std::size_t end = after_include_word(line.text, at);
    if (end == std::string_view::npos)
      continue;
    const std::size_t open = line.text.find_first_not_of(kBlanks, end);
    if (open == std::string::npos || line.text[open] != '"')
      continue;
    const std::size_t close = line.text.find('"', open + 1);
    if (close != std::string::npos && close > open + 1)
      names.push_back(line.text.substr(open + 1, close - open - 1));
  }
  return names;
}

std::string refused_include(const std::string& text, const std::set<std::string>& given) {
  for (const LogicalLine& line : logical_lines(text))
    if (const std::string problem = directive_problem(line.text, given); !problem.empty())
      return "line " + std::to_string(line.number) + ": " + problem;
  return "";
}

} // namespace wl
