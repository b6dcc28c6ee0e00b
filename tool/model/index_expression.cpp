#include "model/index_expression.h"

#include "base/error.h"
#include "base/json_input.h"
#include "base/text_format.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <muParserBase.h>

namespace wl {

namespace {

constexpr double kLargest =
    1099511627776.0;               // 2^40: far past any warp's addresses, exact in a double
constexpr int kLongestNumber = 13; // digits: 2^40 has 13

[[noreturn]] void refuse(const std::string& why) { throw mu::ParserError(why); }

// Every value is a whole number within +-2^40: the operators keep it so, or refuse.
double checked(double value) {
  if (!(std::fabs(value) <= kLargest))
    refuse("a value passes 2^40 (1099511627776)");
  return value;
}
std::int64_t whole(double value) { return static_cast<std::int64_t>(value); }

double add(double a, double b) { return checked(a + b); }
double subtract(double a, double b) { return checked(a - b); }
double multiply(double a, double b) { return checked(a * b); }
double negate(double a) { return -a; }
double divide(double a, double b) { // C's: truncates toward zero
  if (b == 0)
    refuse("division by zero");
  return static_cast<double>(whole(a) / whole(b));
}
double remainder(double a, double b) { // C's: takes the sign of a
  if (b == 0)
    refuse("remainder (%) by zero");
  return static_cast<double>(whole(a) % whole(b));
}
double shift_left(double a, double b) {
  if (a < 0 || b < 0 || b > 40)
    refuse("<< takes a value from 0 and a shift from 0 to 40");
  return checked(a * std::ldexp(1.0, static_cast<int>(b)));
}
double shift_right(double a, double b) {
  if (b < 0 || b > 62)
    refuse(">> takes a shift from 0 to 62");
  return static_cast<double>(whole(a) >> whole(b));
}
double bit_and(double a, double b) { return static_cast<double>(whole(a) & whole(b)); }
double bit_or(double a, double b) { return static_cast<double>(whole(a) | whole(b)); }
double bit_xor(double a, double b) { return static_cast<double>(whole(a) ^ whole(b)); }
double smaller(double a, double b) { return std::min(a, b); }
double larger(double a, double b) { return std::max(a, b); }

// A whole number, decimal or 0x hex, at `start` (muParser hands the text from the token on, and
// `position`, the token's column, to advance); "1.5", "1e9" and a 14-digit number are refused
// here, where the position is known.
int read_number(const char* start, int* position, double* value) {
  const bool hex = start[0] == '0' && (start[1] == 'x' || start[1] == 'X');
  const char* digits = hex ? start + 2 : start;
  const char* end = digits;
  while (hex ? std::isxdigit(static_cast<unsigned char>(*end))
             : std::isdigit(static_cast<unsigned char>(*end)))
    ++end;
  if (end == digits)
    return 0;
  if (*end == '.' || (!hex && (*end == 'e' || *end == 'E')) ||
      end - digits > (hex ? kLongestNumber - 2 : kLongestNumber))
    refuse(format("'%s' at column %d is not a whole number of at most 13 digits",
                  clip(std::string(start, std::strcspn(start, " +-*/%<>&|^()")), 30).c_str(),
                  *position + 1));
  *value =
      checked(static_cast<double>(std::stoll(std::string(digits, end), nullptr, hex ? 16 : 10)));
  *position += static_cast<int>(end - start);
  return 1;
}

// muParser with only what an index needs: C's integer operators and precedence, no floating
// point functions or constants.
class IndexParser : public mu::ParserBase {
public:
  IndexParser() {
    AddValIdent(read_number);
    InitCharSets();
    InitFun();
    InitConst();
    InitOprt();
  }

protected:
  void InitCharSets() override {
    DefineNameChars("0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.");
    DefineOprtChars("+-*/%<>&|^");
    DefineInfixOprtChars("-");
  }
  void InitFun() override {
    DefineFun("min", smaller);
    DefineFun("max", larger);
  }
  void InitConst() override {}
  void InitOprt() override {
    EnableBuiltInOprt(false);
    // C's order, loosest first: | ^ & (shifts) (+ -) (* / %), then unary minus.
    DefineOprt("|", bit_or, 1);
    DefineOprt("^", bit_xor, 2);
    DefineOprt("&", bit_and, 3);
    DefineOprt("<<", shift_left, 4);
    DefineOprt(">>", shift_right, 4);
    DefineOprt("+", add, 5);
    DefineOprt("-", subtract, 5);
    DefineOprt("*", multiply, 6);
    DefineOprt("/", divide, 6);
    DefineOprt("%", remainder, 6);
    DefineInfixOprt("-", negate, 7);
  }
};

// One line for a muParser error: its reason in our words where we know it, and what is allowed.
std::string described(const std::string& field, const std::string& text, const mu::ParserError& e,
                      int lane = -1) {
  const std::string token = clip(e.GetToken(), 30);
  const std::string at = e.GetPos() >= 0 ? format(" at column %d", e.GetPos() + 1) : "";
  std::string why;
  switch (e.GetCode()) {
  case mu::ecUNASSIGNABLE_TOKEN: { // the token runs to the end: its first word is at fault
    const std::string word(token.begin(), std::find(token.begin(), token.end(), ' '));
    why.append("'").append(word).append("'").append(at);
    why.append(" is not a name or operator it knows");
    break;
  }
  case mu::ecUNEXPECTED_EOF:
    why = "it ends where a value is missing";
    break;
  case mu::ecEMPTY_EXPRESSION:
    why = "it is empty";
    break;
  case mu::ecMISSING_PARENS:
    why = "a parenthesis is not closed";
    break;
  case mu::ecUNEXPECTED_PARENS:
    why = "an unexpected parenthesis" + at;
    break;
  case mu::ecUNDEFINED: // one of ours (refuse), raised while reading or evaluating
    why = e.GetMsg() + (lane >= 0 ? format(" (for lane %d)", lane) : std::string());
    return field + " '" + clip(text, 60) + "': " + why;
  case mu::ecTOO_FEW_PARAMS:
  case mu::ecTOO_MANY_PARAMS:
    why = "min and max take two values, min(a, b)";
    break;
  default:
    why = "'" + token + "'" + at + " is not expected there";
  }
  return field + " '" + clip(text, 60) + "': " + why + "; allowed: whole numbers, " + kIndexNames +
         (field == "swizzle" ? ", i (the index)" : "") +
         ", + - * / % << >> & | ^ (xor), min(a, b), max(a, b) and parentheses";
}

// Printable text only: muParser would stop at a control character and call the rest empty.
void check_characters(const char* field, const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c >= 0x7f)
      throw UsageError(format("%s '%s': a control character at column %zu (0x%02x); write the "
                              "index in plain text",
                              field, clip(text, 60).c_str(), i + 1, c));
  }
}

void check_shape(const IndexPlayground& p) {
  if (p.element_bytes != 1 && p.element_bytes != 2 && p.element_bytes != 4 &&
      p.element_bytes != 8 && p.element_bytes != 16)
    throw UsageError(format("element size %d bytes: allowed 1, 2, 4, 8 or 16", p.element_bytes));
  const BlockShape& b = p.block;
  if (b.x < 1 || b.y < 1 || b.z < 1 || b.z > 64 || b.threads() > 1024)
    throw UsageError(
        format("block %dx%dx%d: allowed 1 to 1024 threads, z up to 64", b.x, b.y, b.z));
  const long long warps = (b.threads() + kWarpSize - 1) / kWarpSize;
  if (p.warp < 0 || p.warp >= warps)
    throw UsageError(format("warp %d: a block of %lld threads has warps 0 to %lld", p.warp,
                            b.threads(), warps - 1));
}

} // namespace

PlaygroundWarp evaluate_playground(const IndexPlayground& p) {
  check_shape(p);
  for (const auto& [field, text] :
       {std::pair<const char*, const std::string*>{"index", &p.expression},
        {"swizzle", &p.swizzle}})
    if (text->size() > kLongestIndexExpression)
      throw UsageError(format("%s: %zu characters; allowed at most %zu", field, text->size(),
                              kLongestIndexExpression));
  // The names, bound to the lane being evaluated.
  double thread[3] = {}, block_index[3] = {static_cast<double>(p.block_index.x),
                                           static_cast<double>(p.block_index.y),
                                           static_cast<double>(p.block_index.z)};
  double block_dim[3] = {static_cast<double>(p.block.x), static_cast<double>(p.block.y),
                         static_cast<double>(p.block.z)};
  double lane = 0, warp = p.warp, index = 0;
  const auto bind = [&](IndexParser& parser) {
    const char* axes[3] = {"x", "y", "z"};
    for (int a = 0; a < 3; ++a) {
      parser.DefineVar(std::string("threadIdx.") + axes[a], &thread[a]);
      parser.DefineVar(std::string("blockIdx.") + axes[a], &block_index[a]);
      parser.DefineVar(std::string("blockDim.") + axes[a], &block_dim[a]);
    }
    parser.DefineVar("lane", &lane);
    parser.DefineVar("warp", &warp);
  };
  IndexParser expression, swizzle;
  bind(expression);
  bind(swizzle);
  swizzle.DefineVar("i", &index);
  const bool swizzled = p.swizzle.find_first_not_of(" \t") != std::string::npos;
  int current_lane = 0;
  const auto evaluate = [&current_lane](IndexParser& parser, const char* field,
                                        const std::string& text) {
    try {
      return parser.Eval();
    } catch (const mu::ParserError& e) { // a value's refusal: say for which lane
      throw UsageError(described(field, text, e, current_lane));
    }
  };
  for (auto [parser, field, text] : {std::tuple{&expression, "index", &p.expression},
                                     std::tuple{&swizzle, "swizzle", &p.swizzle}}) {
    if (parser == &swizzle && !swizzled)
      continue;
    check_characters(field, *text);
    try {
      parser->SetExpr(*text);
      parser->Eval(); // reads it whole: a comma gives several values
    } catch (const mu::ParserError& e) {
      if (e.GetCode() != mu::ecUNDEFINED) // the names' values come later, lane by lane
        throw UsageError(described(field, *text, e));
    }
    if (const int values = parser->GetNumResults(); values > 1)
      throw UsageError(format("%s '%s': it gives %d values (a comma); write one index", field,
                              clip(*text, 60).c_str(), values));
  }

  PlaygroundWarp result;
  result.access.width = p.element_bytes;
  result.access.active_mask = 0;
  const long long threads = p.block.threads();
  for (int l = 0; l < kWarpSize; ++l) {
    const long long t = static_cast<long long>(p.warp) * kWarpSize + l;
    if (t >= threads)
      continue; // past the block's last thread: the lane takes no part
    thread[0] = static_cast<double>(t % p.block.x);
    thread[1] = static_cast<double>(t / p.block.x % p.block.y);
    thread[2] = static_cast<double>(t / (static_cast<long long>(p.block.x) * p.block.y));
    lane = l;
    current_lane = l;
    index = evaluate(expression, "index", p.expression);
    const double unswizzled = index;
    if (swizzled)
      index = evaluate(swizzle, "swizzle", p.swizzle);
    const double address = index * p.element_bytes;
    if (index < 0 || address > kLargest)
      throw UsageError(format(
          "lane %d's %s is %.0f, %s; an index must give a byte address from "
          "0 to 2^40",
          l, swizzled ? format("swizzled index (of index %.0f)", unswizzled).c_str() : "index",
          index, index < 0 ? "below 0" : "past 2^40 bytes"));
    result.index[l] = whole(index);
    result.access.address[l] = static_cast<std::uint64_t>(address);
    result.access.active_mask |= 1u << l;
  }
  return result;
}

} // namespace wl
