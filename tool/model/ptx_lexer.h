#pragma once
// Inside the PTX parser: the tokens of a module's text and its literals. A word is an identifier,
// a directive, an opcode with its dots (ld.global.v4.f32, .L2::128B) or a register (%tid.x); a
// number keeps its spelling until parse_number reads it. Comments are dropped.

#include "model/ptx_decode.h"
#include "model/ptx_program.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wl::ptx_detail {

// Throws UsageError("ptx line N: what").
[[noreturn]] void fail(int line, const std::string& what);
// A short, printable quote of what the file has, for messages.
std::string in_quotes(std::string_view text);

enum class TokenKind : std::uint8_t { word, number, string, punct, end };

struct Token {
  TokenKind kind = TokenKind::end;
  int line = 0;
  std::string_view text;
  bool is(std::string_view t) const { return kind != TokenKind::string && text == t; }
};

// The tokens of `text`, ending with an end token; UsageError for a character PTX has no use for
// or an unclosed comment or string.
std::vector<Token> tokenize(std::string_view text);

bool is_digit(char c);
// Digits in `base` as a 64-bit number; nullopt for none, others or an overflow.
std::optional<std::uint64_t> parse_unsigned(std::string_view digits, int base);
// A numeric literal: an integer (decimal, 0x, 0b, octal, U suffix), 0f/0d float bits or a
// decimal float; `negative` when a '-' came before it.
RawOperand parse_number(const Token& token, bool negative);
// The type of a declaration's word (.b32, .f16x2, .texref), or nullopt.
std::optional<PtxType> type_named(std::string_view word);
std::uint64_t align_up(std::uint64_t value, std::uint64_t align);

} // namespace wl::ptx_detail
