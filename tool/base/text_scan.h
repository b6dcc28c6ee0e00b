#pragma once
// Reading what programs and people write (a compiler's log, a file's includes, ptxas's report,
// nvdisasm's listing) with loops, never std::regex: its matcher recurses once a character, so a
// long run of one character in a person's file ended the process on its stack. A scan moves a
// cursor over the text; each step either takes what it names or leaves the cursor where it was.

#include <cctype>
#include <cstdint>
#include <optional>
#include <string_view>

namespace wl {

class TextScan {
public:
  explicit TextScan(std::string_view text) : m_text(text) {}

  bool done() const { return m_at >= m_text.size(); }
  std::size_t at() const { return m_at; }
  std::string_view rest() const { return m_text.substr(m_at); }

  // Spaces and tabs (and line breaks with `lines`).
  void skip_spaces(bool lines = false) {
    while (!done() && (m_text[m_at] == ' ' || m_text[m_at] == '\t' ||
                       (lines && (m_text[m_at] == '\n' || m_text[m_at] == '\r'))))
      ++m_at;
  }

  // `literal` if it comes next.
  bool take(std::string_view literal) {
    if (rest().substr(0, literal.size()) != literal)
      return false;
    m_at += literal.size();
    return true;
  }

  // Past the next `literal`; false (the cursor kept) where there is none.
  bool skip_past(std::string_view literal) {
    const std::size_t found = m_text.find(literal, m_at);
    if (found == std::string_view::npos)
      return false;
    m_at = found + literal.size();
    return true;
  }

  // What comes before the next `stop` (or the end), the cursor left on `stop`.
  std::string_view until(char stop) {
    const std::size_t found = m_text.find(stop, m_at);
    const std::size_t end = found == std::string_view::npos ? m_text.size() : found;
    const std::string_view taken = m_text.substr(m_at, end - m_at);
    m_at = end;
    return taken;
  }

  // A C identifier, or "" where none starts here.
  std::string_view identifier() {
    const std::size_t start = m_at;
    if (!done() && (std::isalpha(byte()) || m_text[m_at] == '_'))
      while (!done() && (std::isalnum(byte()) || m_text[m_at] == '_'))
        ++m_at;
    return m_text.substr(start, m_at - start);
  }

  // Decimal digits as a whole number no larger than `most`; nullopt where no digit comes next or
  // the digits exceed `most` (which are taken all the same, so a scan goes on past them).
  std::optional<std::int64_t> whole_number(std::int64_t most = INT32_MAX) {
    return number(10, most);
  }
  std::optional<std::int64_t> hex_number(std::int64_t most = INT64_MAX) { return number(16, most); }

private:
  unsigned char byte() const { return static_cast<unsigned char>(m_text[m_at]); }

  std::optional<std::int64_t> number(int base, std::int64_t most) {
    std::int64_t value = 0;
    bool any = false, over = false;
    while (!done()) {
      const int digit = std::isdigit(byte())                  ? m_text[m_at] - '0'
                        : base == 16 && std::isxdigit(byte()) ? std::tolower(byte()) - 'a' + 10
                                                              : -1;
      if (digit < 0)
        break;
      any = true;
      over = over || digit > most || value > (most - digit) / base;
      if (!over)
        value = value * base + digit;
      ++m_at;
    }
    if (!any || over)
      return std::nullopt;
    return value;
  }

  std::string_view m_text;
  std::size_t m_at = 0;
};

// Calls `each` with every line of `text`, without its '\n' (and a '\r' before it).
template <typename Each> void for_each_line(std::string_view text, Each each) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    each(line);
    start = end + 1;
  }
}

} // namespace wl
