#include "tune/tune_apply.h"

#include "base/error.h"
#include "base/file_output.h"
#include "base/text_file.h"
#include "kernel_file/description.h"
#include "model/block_text.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string_view>

namespace wl {

namespace {

// Names here start with winner_ or Winner: a unity build puts this file's anonymous namespace
// beside description.cpp's, whose helpers this file would otherwise echo.
constexpr std::string_view kWinnerByteOrderMark = "\xEF\xBB\xBF";
constexpr std::string_view kWinnerMarker = "@warplens";

bool winner_space_at(std::string_view text, std::size_t at) {
  return at < text.size() && std::isspace(static_cast<unsigned char>(text[at])) != 0;
}

// One line as the description's reader numbers them (the text split at '\n'): its text without
// the ending, and the ending, "\n", "\r\n" or "" (a last line with none).
struct WinnerLine {
  std::string text;
  std::string ending;
};

std::vector<WinnerLine> winner_lines(std::string_view text) {
  std::vector<WinnerLine> lines;
  for (std::size_t start = 0;;) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      lines.push_back({std::string(text.substr(start)), ""});
      return lines;
    }
    const bool crlf = end > start && text[end - 1] == '\r';
    lines.push_back(
        {std::string(text.substr(start, end - start - (crlf ? 1 : 0))), crlf ? "\r\n" : "\n"});
    start = end + 1;
  }
}

// Where the parts of a "// @warplens WORD REST" line stand, found as description.cpp's reader
// finds them (its recogniser is private to it): spaces allowed around "//" and the marker, the
// marker a word of its own, WORD up to a space or tab, REST trimmed.
struct WinnerMarkedLine {
  std::size_t word = 0, word_end = 0;
  std::size_t rest = 0, rest_end = 0;
  std::string_view word_of(std::string_view line) const {
    return line.substr(word, word_end - word);
  }
};

std::optional<WinnerMarkedLine> winner_marked_line(std::string_view line) {
  std::size_t end = line.size();
  while (end > 0 && winner_space_at(line, end - 1))
    --end;
  std::size_t at = 0;
  const auto skip_spaces = [&] {
    while (at < end && winner_space_at(line, at))
      ++at;
  };
  skip_spaces();
  if (line.substr(at, 2) != "//")
    return std::nullopt;
  at += 2;
  skip_spaces();
  if (line.substr(at, kWinnerMarker.size()) != kWinnerMarker)
    return std::nullopt;
  at += kWinnerMarker.size();
  if (at < end && !winner_space_at(line, at))
    return std::nullopt; // "@warplensish": another tool's word
  skip_spaces();
  WinnerMarkedLine marked;
  marked.word = at;
  marked.word_end = std::min(line.find_first_of(" \t", at), end);
  at = marked.word_end;
  skip_spaces();
  marked.rest = at;
  marked.rest_end = end;
  return marked;
}

// The values of a tune line, from `from` to `to`: split at the commas outside parentheses as the
// reader splits them ("min(a, b), 4" is two), each trimmed; [begin, end) in the line.
struct WinnerValueSpan {
  std::size_t begin = 0, end = 0;
};

std::vector<WinnerValueSpan> winner_value_spans(std::string_view line, std::size_t from,
                                                std::size_t to) {
  std::vector<WinnerValueSpan> spans;
  const auto add = [&](std::size_t begin, std::size_t end) {
    while (begin < end && winner_space_at(line, begin))
      ++begin;
    while (end > begin && winner_space_at(line, end - 1))
      --end;
    spans.push_back({begin, end});
  };
  int depth = 0;
  std::size_t start = from;
  for (std::size_t at = from; at < to; ++at) {
    depth += line[at] == '(' ? 1 : line[at] == ')' ? -1 : 0;
    if (line[at] == ',' && depth == 0) {
      add(start, at);
      start = at + 1;
    }
  }
  add(start, to);
  return spans;
}

[[noreturn]] void winner_refused(const std::string& file, int line, const std::string& what) {
  throw UsageError(file + (line ? ":" + std::to_string(line) : "") + ": " + what);
}

// A line the description's reader took that this file cannot take apart alike: a fault here,
// said rather than a file written wrong.
[[noreturn]] void winner_misread(const std::string& file, int line, const std::string& what) {
  throw Error(file + ":" + std::to_string(line) + ": " + what +
              " cannot be rewritten as the description read it; nothing was written");
}

std::string winner_values_text(const std::vector<std::int64_t>& values) {
  std::string text;
  for (const std::int64_t value : values)
    text += (text.empty() ? "" : ", ") + std::to_string(value);
  return text;
}

// "block 16x16, TILE=32, PAD=1": the winner, for a message that leaves it to be applied by hand.
std::string winner_text(const TuneWinner& winner) {
  std::string text = "block " + format_block(winner.block);
  for (const auto& [name, value] : winner.tunables)
    text += ", " + name + "=" + std::to_string(value);
  return text;
}

// The tune line's values with the one at `winning` moved first, the others in their order; the
// text between values (", " or ",") stays where it was. Returns "OLD -> NEW".
std::string winner_moved_first(WinnerLine& line, const FileTunable& tunable, std::size_t winning,
                               const std::string& file) {
  const std::optional<WinnerMarkedLine> marked = winner_marked_line(line.text);
  const std::size_t equals =
      marked ? line.text.find('=', marked->rest) : std::string::npos; // NAME = v1, v2
  if (!marked || marked->word_of(line.text) != "tune" || equals >= marked->rest_end)
    winner_misread(file, tunable.line, "tune " + tunable.name);
  const std::vector<WinnerValueSpan> spans =
      winner_value_spans(line.text, equals + 1, marked->rest_end);
  if (spans.size() != tunable.values.size())
    winner_misread(file, tunable.line, "tune " + tunable.name);
  const auto value_at = [&](std::size_t i) {
    return line.text.substr(spans[i].begin, spans[i].end - spans[i].begin);
  };
  std::string values;
  for (std::size_t slot = 0; slot < spans.size(); ++slot) {
    values += value_at(slot == 0 ? winning : slot <= winning ? slot - 1 : slot);
    if (slot + 1 < spans.size())
      values += line.text.substr(spans[slot].end, spans[slot + 1].begin - spans[slot].end);
  }
  const std::size_t first = spans.front().begin, length = spans.back().end - first;
  const std::string before = line.text.substr(first, length);
  line.text.replace(first, length, values);
  return before + " -> " + values;
}

// The winning block in the file's block line, or in a line added after the description's last
// (its indentation and "//  @warplens " copied). Nothing where the file's default is the winner.
void winner_block(std::vector<WinnerLine>& lines, const KernelFileDescription& d,
                  const BlockShape& block, std::map<int, std::string>& changes) {
  if (block == d.default_block)
    return;
  std::size_t block_line = 0, last_line = 0; // 1-based; 0: none
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (const std::optional<WinnerMarkedLine> marked = winner_marked_line(lines[i].text)) {
      last_line = i + 1;
      if (marked->word_of(lines[i].text) == "block")
        block_line = i + 1;
    }
  const std::string to = format_block(block);
  if (block_line) {
    WinnerLine& line = lines[block_line - 1];
    const WinnerMarkedLine marked = *winner_marked_line(line.text);
    const std::string from = line.text.substr(marked.rest, marked.rest_end - marked.rest);
    line.text.replace(marked.rest, marked.rest_end - marked.rest, to);
    changes[static_cast<int>(block_line)] = "block " + from + " -> " + to;
    return;
  }
  if (last_line == 0) // a description has its kernel line at least
    winner_misread(d.file, 1, "the description");
  WinnerLine& last = lines[last_line - 1];
  WinnerLine added{last.text.substr(0, winner_marked_line(last.text)->word) + "block " + to,
                   last.ending};
  if (last.ending.empty()) { // the file's last line: the added one ends the file as it did
    const auto ended = std::find_if(lines.begin(), lines.end(),
                                    [](const WinnerLine& line) { return !line.ending.empty(); });
    last.ending = ended == lines.end() ? "\n" : ended->ending;
  }
  lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(last_line), std::move(added));
  changes[static_cast<int>(last_line + 1)] = "block " + to + " added (the default was " +
                                             format_block(d.default_block) +
                                             ", with no block line)";
}

// The tunable's tune line; refused naming the file's tune lines where it has none.
std::vector<FileTunable>::const_iterator winner_tune_line(const KernelFileDescription& d,
                                                          const std::string& name) {
  const auto tunable = std::find_if(d.tunables.begin(), d.tunables.end(),
                                    [&](const FileTunable& t) { return t.name == name; });
  if (tunable != d.tunables.end())
    return tunable;
  std::string lines;
  for (const FileTunable& t : d.tunables)
    lines +=
        (lines.empty() ? "its tune lines: " : ", ") + t.name + " on line " + std::to_string(t.line);
  winner_refused(d.file, 0,
                 "the winner's tunable '" + name + "' has no '// @warplens tune " + name +
                     " = ...' line (" + (lines.empty() ? "the file tunes nothing" : lines) + ")");
}

// The winner checked against the file's tune lines, then written in: the new text and its
// changes by line.
struct WinnerRewrite {
  std::string text;
  std::map<int, std::string> changes;
};

WinnerRewrite winner_rewrite(const std::string& text, const std::string& file,
                             const TuneWinner& winner) {
  // A byte order mark is dropped before the description is read (file_kernel.cpp), and kept here.
  const std::string_view mark =
      text.starts_with(kWinnerByteOrderMark) ? kWinnerByteOrderMark : std::string_view();
  const std::string body = text.substr(mark.size());
  const KernelFileDescription d = read_kernel_file_description(body, file);
  const BlockShape& block = winner.block;
  if (block.x < 1 || block.y < 1 || block.z < 1)
    winner_refused(file, 0,
                   "the winner's block " + format_sides(block) +
                       " has a side below 1; a block's sides are whole numbers from 1");
  std::vector<WinnerLine> lines = winner_lines(body);
  WinnerRewrite rewrite;
  std::set<std::string> named;
  for (const auto& [name, value] : winner.tunables) {
    const auto tunable = winner_tune_line(d, name);
    if (!named.insert(name).second)
      winner_refused(file, tunable->line,
                     "the winner names tunable " + name + " twice; give each tunable once");
    const auto at = std::find(tunable->values.begin(), tunable->values.end(), value);
    if (at == tunable->values.end())
      winner_refused(file, tunable->line,
                     "the winner's " + name + "=" + std::to_string(value) +
                         " is not among the values of tune " + name + " (" +
                         winner_values_text(tunable->values) + ")");
    if (at != tunable->values.begin())
      rewrite.changes[tunable->line] =
          "tune " + name + " = " +
          winner_moved_first(lines[static_cast<std::size_t>(tunable->line - 1)], *tunable,
                             static_cast<std::size_t>(at - tunable->values.begin()), file);
  }
  winner_block(lines, d, block, rewrite.changes);
  std::string written;
  for (const WinnerLine& line : lines)
    written += line.text + line.ending;
  // Read back as every run will read it: the winner must be what the file now says.
  const KernelFileDescription after = read_kernel_file_description(written, file);
  bool holds = after.default_block == block;
  for (const auto& [name, value] : winner.tunables)
    for (const FileTunable& t : after.tunables)
      holds = holds && (t.name != name || t.values.front() == value);
  if (!holds)
    throw Error(file + ": the winner (" + winner_text(winner) +
                ") does not read back as the file's defaults; nothing was written");
  rewrite.text = std::string(mark) + written;
  return rewrite;
}

} // namespace

std::string with_winner_as_default(const std::string& text, const std::string& file_name,
                                   const TuneWinner& winner) {
  return winner_rewrite(text, file_name, winner).text;
}

std::vector<std::string> apply_winner(const std::filesystem::path& file,
                                      const std::string& text_at_start, const TuneWinner& winner) {
  const std::string name = file.string();
  // The new text is made first, so that little time passes between the check and the rename: no
  // editor locks a file, and a save in that moment would still be replaced.
  const WinnerRewrite rewrite = winner_rewrite(text_at_start, name, winner);
  const std::string not_applied = ": not applied (the winner: " + winner_text(winner) + ")";
  // One byte past the text read is enough to see that the file grew.
  const RegularFileRead now = read_regular_file(file, text_at_start.size());
  using Problem = RegularFileRead::Problem;
  if (now.problem == Problem::missing)
    throw UsageError(name + " changed since the tune began (it is gone)" + not_applied);
  if (now.problem != Problem::none && now.problem != Problem::too_large)
    throw UsageError(name + " cannot be read again to see that it is unchanged (" +
                     (now.problem == Problem::folder ? std::string("a folder") : now.reason) + ")" +
                     not_applied);
  if (now.problem == Problem::too_large || now.text != text_at_start)
    throw UsageError(name + " changed since the tune began" + not_applied);
  if (rewrite.changes.empty())
    return {};
  if (const std::string problem = write_file_safely(
          file, rewrite.text,
          {.replace_existing = true, .write_through_links = true, .keep_on_failure = true});
      !problem.empty())
    throw UsageError(problem);
  std::vector<std::string> changes;
  for (const auto& [line, change] : rewrite.changes)
    changes.push_back("line " + std::to_string(line) + ": " + change);
  return changes;
}

} // namespace wl
