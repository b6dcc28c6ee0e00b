#include "kernel_file/expression.h"

#include "base/error.h"
#include "base/json_input.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace wl {

namespace {

// Deeper nesting than any launch arithmetic needs, and shallow enough that the recursive parser
// never nears the stack's end (100,000 brackets are refused, not followed).
constexpr int kMostDepth = 64;
constexpr std::size_t kLongestText = 1000;

enum class Op { number, name, negate, logical_not, binary, call };

// Binary operators by precedence, loosest first, as C orders them.
const std::vector<std::vector<std::string>> kLevels = {
    {"||"},       {"&&"},     {"==", "!="},   {"<", "<=", ">", ">="},
    {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}};
const std::vector<std::string> kFunctions = {"min", "max", "ceil_div"};

} // namespace

struct Expression::Node {
  Op op = Op::number;
  std::int64_t number = 0;
  std::string word = {}; // a name, a binary operator or a function
  std::vector<Node> operands = {};
};

namespace {

class Parser {
public:
  Parser(const std::string& text, std::vector<std::string>& names) : m_text(text), m_names(names) {}

  Expression::Node whole() {
    Expression::Node node = binary(0, 0);
    skip_spaces();
    if (m_at < m_text.size())
      fail(std::string("'") + m_text[m_at] + "' where an operator or the end was expected");
    return node;
  }

private:
  [[noreturn]] void fail(const std::string& what) const {
    throw UsageError("'" + clip(m_text, 60) + "' at column " + std::to_string(m_at + 1) + ": " +
                     what);
  }

  void skip_spaces() {
    while (m_at < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_at])))
      ++m_at;
  }

  // The operator of this level at the cursor ("<" but not the "<<" of a tighter level).
  std::optional<std::string> operator_at(std::size_t level) {
    skip_spaces();
    std::optional<std::string> found;
    for (const std::string& op : kLevels[level])
      if (m_text.compare(m_at, op.size(), op) == 0 && (!found || op.size() > found->size()))
        found = op;
    if (!found)
      return std::nullopt;
    const std::size_t after = m_at + found->size();
    const bool longer = after < m_text.size() &&
                        ((*found == "<" && (m_text[after] == '<' || m_text[after] == '=')) ||
                         (*found == ">" && (m_text[after] == '>' || m_text[after] == '=')));
    if (longer)
      return std::nullopt;
    return found;
  }

  Expression::Node binary(std::size_t level, int depth) {
    if (level == kLevels.size())
      return unary(depth);
    Expression::Node left = binary(level + 1, depth);
    while (const std::optional<std::string> op = operator_at(level)) {
      m_at += op->size();
      Expression::Node node{.op = Op::binary, .word = *op};
      node.operands.push_back(std::move(left));
      node.operands.push_back(binary(level + 1, depth));
      left = std::move(node);
    }
    return left;
  }

  Expression::Node unary(int depth) {
    if (depth > kMostDepth)
      fail("nested deeper than " + std::to_string(kMostDepth) + " levels");
    skip_spaces();
    if (m_at < m_text.size() && (m_text[m_at] == '-' || m_text[m_at] == '!')) {
      const Op op = m_text[m_at] == '-' ? Op::negate : Op::logical_not;
      ++m_at;
      Expression::Node node{.op = op};
      node.operands.push_back(unary(depth + 1));
      return node;
    }
    return primary(depth);
  }

  Expression::Node primary(int depth) {
    skip_spaces();
    if (m_at >= m_text.size())
      fail("the expression ends where a number, a name or '(' was expected");
    const char c = m_text[m_at];
    if (c == '(') {
      ++m_at;
      Expression::Node inside = binary(0, depth + 1);
      expect(')');
      return inside;
    }
    if (std::isdigit(static_cast<unsigned char>(c)))
      return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_')
      return name_or_call(depth);
    fail(std::string("'") + c + "' where a number, a name or '(' was expected");
  }

  void expect(char c) {
    skip_spaces();
    if (m_at >= m_text.size() || m_text[m_at] != c)
      fail(std::string("'") + c + "' expected");
    ++m_at;
  }

  Expression::Node number() {
    const std::size_t start = m_at;
    const bool hex = m_text.compare(m_at, 2, "0x") == 0 || m_text.compare(m_at, 2, "0X") == 0;
    const std::size_t digits_start = m_at + (hex ? 2 : 0);
    m_at = digits_start;
    while (m_at < m_text.size() && std::isalnum(static_cast<unsigned char>(m_text[m_at])))
      ++m_at;
    std::int64_t value = 0;
    const char *first = m_text.data() + digits_start, *last = m_text.data() + m_at;
    const auto [end, ec] = std::from_chars(first, last, value, hex ? 16 : 10);
    if (ec != std::errc() || end != last || first == last) {
      const std::string digits = m_text.substr(start, m_at - start);
      m_at = start;
      fail("'" + clip(digits, 30) + "' is not a whole number of 64 bits (decimal or 0x...)");
    }
    return Expression::Node{.op = Op::number, .number = value};
  }

  Expression::Node name_or_call(int depth) {
    const std::size_t start = m_at;
    while (m_at < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[m_at])) ||
                                    m_text[m_at] == '_' || m_text[m_at] == '.'))
      ++m_at;
    const std::string word = m_text.substr(start, m_at - start);
    skip_spaces();
    if (m_at < m_text.size() && m_text[m_at] == '(') {
      if (std::find(kFunctions.begin(), kFunctions.end(), word) == kFunctions.end()) {
        m_at = start;
        fail("'" + clip(word, 30) + "' is not a function; allowed min, max, ceil_div");
      }
      ++m_at;
      Expression::Node call{.op = Op::call, .word = word};
      call.operands.push_back(binary(0, depth + 1));
      expect(',');
      call.operands.push_back(binary(0, depth + 1));
      expect(')');
      return call;
    }
    if (std::find(m_names.begin(), m_names.end(), word) == m_names.end())
      m_names.push_back(word);
    return Expression::Node{.op = Op::name, .word = word};
  }

  const std::string& m_text;
  std::vector<std::string>& m_names;
  std::size_t m_at = 0;
};

bool add(std::int64_t a, std::int64_t b, std::int64_t* sum) {
  return __builtin_add_overflow(a, b, sum);
}
bool subtract(std::int64_t a, std::int64_t b, std::int64_t* difference) {
  return __builtin_sub_overflow(a, b, difference);
}
bool multiply(std::int64_t a, std::int64_t b, std::int64_t* product) {
  return __builtin_mul_overflow(a, b, product);
}

struct Evaluator {
  const std::string& text;
  const ExpressionValues& values;

  [[noreturn]] void fail(const std::string& what) const {
    throw UsageError("'" + clip(text, 60) + "': " + what);
  }

  // `overflow` computes into `result` and says whether it wrapped (a __builtin_*_overflow).
  template <class Overflow>
  std::int64_t checked(Overflow overflow, std::int64_t a, std::int64_t b,
                       const std::string& op) const {
    std::int64_t result = 0;
    if (overflow(a, b, &result))
      fail("'" + op + "' overflows 64 bits");
    return result;
  }

  std::int64_t operator()(const Expression::Node& node) const {
    switch (node.op) {
    case Op::number:
      return node.number;
    case Op::name: {
      const auto found = values.find(node.word);
      if (found == values.end())
        fail("'" + clip(node.word, 30) + "' is not a size, a tunable or block.x/y/z");
      return found->second;
    }
    case Op::negate:
      return checked(subtract, 0, (*this)(node.operands[0]), "-");
    case Op::logical_not:
      return (*this)(node.operands[0]) == 0 ? 1 : 0;
    case Op::call:
      return call(node.word, (*this)(node.operands[0]), (*this)(node.operands[1]));
    case Op::binary:
      break;
    }
    const std::int64_t a = (*this)(node.operands[0]);
    if (node.word == "&&" && a == 0)
      return 0;
    if (node.word == "||" && a != 0)
      return 1;
    return binary(node.word, a, (*this)(node.operands[1]));
  }

  std::int64_t call(const std::string& function, std::int64_t a, std::int64_t b) const {
    if (function == "min")
      return std::min(a, b);
    if (function == "max")
      return std::max(a, b);
    if (b <= 0 || a < 0)
      fail("ceil_div(" + std::to_string(a) + ", " + std::to_string(b) +
           ") needs a count of at least 0 and a divisor of at least 1");
    return a / b + (a % b != 0 ? 1 : 0);
  }

  std::int64_t binary(const std::string& op, std::int64_t a, std::int64_t b) const {
    if (op == "+")
      return checked(add, a, b, op);
    if (op == "-")
      return checked(subtract, a, b, op);
    if (op == "*")
      return checked(multiply, a, b, op);
    if (op == "/" || op == "%") {
      if (b == 0)
        fail("'" + op + "' by zero");
      if (a == INT64_MIN && b == -1)
        fail("'" + op + "' overflows 64 bits");
      return op == "/" ? a / b : a % b;
    }
    if (op == "<<" || op == ">>") {
      if (b < 0 || b > 62 || a < 0)
        fail("'" + op + "' of " + std::to_string(a) + " by " + std::to_string(b) +
             ": allowed a value of at least 0 shifted by 0 to 62");
      if (op == ">>")
        return a >> b;
      if (a > (INT64_MAX >> b))
        fail("'<<' overflows 64 bits");
      return a << b;
    }
    if (op == "<")
      return a < b;
    if (op == "<=")
      return a <= b;
    if (op == ">")
      return a > b;
    if (op == ">=")
      return a >= b;
    if (op == "==")
      return a == b;
    if (op == "!=")
      return a != b;
    return b != 0 ? 1 : 0; // && and || whose left side did not decide
  }
};

} // namespace

Expression::Expression(const std::string& text) : m_text(text) {
  if (text.size() > kLongestText)
    throw UsageError("'" + clip(text, 60) + "': longer than " + std::to_string(kLongestText) +
                     " characters");
  m_root = std::make_unique<Node>(Parser(m_text, m_names).whole());
}

Expression::~Expression() = default;

Expression::Expression(const Expression& other)
    : m_text(other.m_text), m_root(std::make_unique<Node>(*other.m_root)), m_names(other.m_names) {}

Expression& Expression::operator=(const Expression& other) {
  if (this != &other) {
    m_text = other.m_text;
    m_root = std::make_unique<Node>(*other.m_root);
    m_names = other.m_names;
  }
  return *this;
}

std::int64_t Expression::evaluate(const ExpressionValues& values) const {
  return Evaluator{m_text, values}(*m_root);
}

} // namespace wl
