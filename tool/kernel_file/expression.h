#pragma once
// The whole-number expressions of a kernel file's description: a buffer's element count, the
// grid, dynamic shared memory, a restriction between tunables ("(n + block.x - 1) / block.x",
// "TILE * (TILE + PAD) * 4", "TILE % block.x == 0"). They are C's integer arithmetic over named
// sizes, tunables and block.x/y/z, so a person writes them as in the kernel's own launch code:
//   numbers    decimal (16777216) or hexadecimal (0x1000000)
//   names      letters, digits, '_' and '.' (n, TILE, block.x)
//   operators  * / %   + -   << >>   < <= > >=   == !=   &&   ||   unary - and !, parentheses
//   functions  min(a, b), max(a, b), ceil_div(a, b) ((a + b - 1) / b)
// Every value is a 64-bit signed integer; an overflow, a division by zero or a shift out of range
// is an error naming the expression, never a wrapped number.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace wl {

// What the names of an expression stand for in one launch; a name it lacks is an error.
using ExpressionValues = std::map<std::string, std::int64_t>;

class Expression {
public:
  // Throws UsageError "'TEXT' at column C: what is wrong" for text that does not parse.
  explicit Expression(const std::string& text);
  ~Expression();
  Expression(const Expression&);
  Expression& operator=(const Expression&);

  // Throws UsageError naming the expression for a name it lacks, an overflow, a division by zero.
  std::int64_t evaluate(const ExpressionValues& values) const;
  // The names it reads, each once, in the order they first appear.
  const std::vector<std::string>& names() const { return m_names; }
  const std::string& text() const { return m_text; }

  struct Node;

private:
  std::string m_text;
  std::unique_ptr<Node> m_root;
  std::vector<std::string> m_names;
};

} // namespace wl
