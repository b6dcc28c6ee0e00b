// Tokens and literals of PTX text (ptx_lexer.h): one pass over the characters, loops only, so a
// megabyte on one line costs time in proportion, never stack.

#include "model/ptx_lexer.h"

#include "base/error.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>

namespace wl::ptx_detail {
namespace {

bool word_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%' ||
         c == '.';
}
bool word_char(char c) { return word_start(c) || (c >= '0' && c <= '9'); }

class Tokenizer {
public:
  explicit Tokenizer(std::string_view text) : m_text(text) {}

  std::vector<Token> run() {
    std::vector<Token> tokens;
    while (m_at < m_text.size()) {
      const char c = m_text[m_at];
      if (c == '\n') {
        ++m_line, ++m_at;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++m_at;
      } else if (c == '/' && next_is('/')) {
        const std::size_t end = m_text.find('\n', m_at);
        m_at = end == std::string_view::npos ? m_text.size() : end;
      } else if (c == '/' && next_is('*')) {
        block_comment();
      } else {
        tokens.push_back(token(c));
      }
    }
    tokens.push_back({TokenKind::end, m_line, {}});
    return tokens;
  }

private:
  bool next_is(char c) const { return m_at + 1 < m_text.size() && m_text[m_at + 1] == c; }

  void block_comment() {
    const std::size_t end = m_text.find("*/", m_at + 2);
    if (end == std::string_view::npos)
      fail(m_line, "a /* comment is never closed");
    m_line += static_cast<int>(std::count(m_text.begin() + m_at, m_text.begin() + end, '\n'));
    m_at = end + 2;
  }

  Token token(char c) {
    const std::size_t start = m_at;
    TokenKind kind = TokenKind::punct;
    if (word_start(c)) {
      kind = TokenKind::word;
      ++m_at;
      while (m_at < m_text.size()) {
        if (word_char(m_text[m_at]))
          ++m_at;
        else if (m_text[m_at] == ':' && next_is(':'))
          m_at += 2; // .L2::128B, .shared::cta
        else
          break;
      }
    } else if (is_digit(c)) {
      kind = TokenKind::number;
      number();
    } else if (c == '"') {
      kind = TokenKind::string;
      string();
    } else if (c != 0 && std::strchr("{}[]();,:@!+-|<>=*/~&^", c)) {
      ++m_at;
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned char>(c));
      fail(m_line, std::string("unexpected character ") + hex);
    }
    return {kind, m_line, m_text.substr(start, m_at - start)};
  }

  void number() {
    const std::size_t start = m_at++;
    const bool prefixed = m_text[start] == '0' && m_at < m_text.size() &&
                          std::strchr("xXfFdDbB", m_text[m_at]) && m_text[m_at] != 0;
    while (m_at < m_text.size()) {
      const char d = m_text[m_at];
      const char before = m_text[m_at - 1];
      if (word_char(d) && d != '%' && d != '$')
        ++m_at;
      else if ((d == '+' || d == '-') && !prefixed && (before == 'e' || before == 'E'))
        ++m_at;
      else
        break;
    }
  }

  void string() {
    ++m_at;
    while (m_at < m_text.size() && m_text[m_at] != '"') {
      if (m_text[m_at] == '\n')
        fail(m_line, "a string is not closed on its line");
      m_at += (m_text[m_at] == '\\' && m_at + 1 < m_text.size()) ? 2 : 1;
    }
    if (m_at >= m_text.size())
      fail(m_line, "a string is never closed");
    ++m_at;
  }

  std::string_view m_text;
  std::size_t m_at = 0;
  int m_line = 1;
};

} // namespace

[[noreturn]] void fail(int line, const std::string& what) {
  throw UsageError("ptx line " + std::to_string(line) + ": " + what);
}

std::string in_quotes(std::string_view text) {
  std::string out = "'";
  for (char c : text.substr(0, 40))
    out += (c >= 32 && c < 127) ? c : '?';
  return out + (text.size() > 40 ? "...'" : "'");
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::vector<Token> tokenize(std::string_view text) { return Tokenizer(text).run(); }

std::optional<std::uint64_t> parse_unsigned(std::string_view digits, int base) {
  if (digits.empty())
    return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, error] =
      std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
  if (error != std::errc() || end != digits.data() + digits.size())
    return std::nullopt;
  return value;
}

RawOperand parse_number(const Token& token, bool negative) {
  std::string_view text = token.text;
  RawOperand out;
  const auto bad = [&] { fail(token.line, in_quotes(text) + " is not a number"); };
  if (text.size() > 2 && text[0] == '0' &&
      (text[1] == 'f' || text[1] == 'F' || text[1] == 'd' || text[1] == 'D')) {
    const bool is_double = text[1] == 'd' || text[1] == 'D';
    const auto bits = parse_unsigned(text.substr(2), 16);
    if (!bits || text.size() != (is_double ? 18u : 10u))
      bad();
    out.kind = is_double ? RawOperand::Kind::f64_bits : RawOperand::Kind::f32_bits;
    out.bits = *bits ^ (negative ? (is_double ? 1ull << 63 : 1ull << 31) : 0);
    return out;
  }
  if (text.find_first_of(".eE") != std::string_view::npos &&
      !(text.size() > 1 && (text[1] == 'x' || text[1] == 'X'))) {
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size())
      bad();
    out.kind = RawOperand::Kind::decimal;
    out.decimal = negative ? -value : value;
    return out;
  }
  if (!text.empty() && (text.back() == 'U' || text.back() == 'u'))
    text.remove_suffix(1);
  std::optional<std::uint64_t> value;
  if (text.size() > 2 && (text[1] == 'x' || text[1] == 'X'))
    value = parse_unsigned(text.substr(2), 16);
  else if (text.size() > 2 && (text[1] == 'b' || text[1] == 'B'))
    value = parse_unsigned(text.substr(2), 2);
  else if (text.size() > 1 && text[0] == '0')
    value = parse_unsigned(text.substr(1), 8);
  else
    value = parse_unsigned(text, 10);
  if (!value)
    bad();
  out.kind = RawOperand::Kind::integer;
  out.bits = negative ? ~*value + 1 : *value;
  return out;
}

std::optional<PtxType> type_named(std::string_view word) {
  static const std::pair<std::string_view, PtxType> kTypes[] = {
      {".pred", PtxType::pred},      {".b8", PtxType::b8},      {".b16", PtxType::b16},
      {".b32", PtxType::b32},        {".b64", PtxType::b64},    {".b128", PtxType::b128},
      {".u8", PtxType::u8},          {".u16", PtxType::u16},    {".u32", PtxType::u32},
      {".u64", PtxType::u64},        {".s8", PtxType::s8},      {".s16", PtxType::s16},
      {".s32", PtxType::s32},        {".s64", PtxType::s64},    {".f16", PtxType::f16},
      {".f16x2", PtxType::f16x2},    {".bf16", PtxType::bf16},  {".bf16x2", PtxType::bf16x2},
      {".f32", PtxType::f32},        {".f64", PtxType::f64},    {".texref", PtxType::b64},
      {".samplerref", PtxType::b64}, {".surfref", PtxType::b64}};
  for (const auto& [name, type] : kTypes)
    if (word == name)
      return type;
  return std::nullopt;
}

std::uint64_t align_up(std::uint64_t value, std::uint64_t align) {
  return align <= 1 ? value : (value + align - 1) / align * align;
}

} // namespace wl::ptx_detail
