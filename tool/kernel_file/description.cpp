#include "kernel_file/description.h"

#include "base/error.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "base/text_scan.h"
#include "model/block_text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <set>

namespace wl {

namespace {

constexpr const char* kMarker = "@warplens";
// Bounds a description has no need to pass: a size beyond 2^40 elements fits no GPU, and a tunable
// with more values than a sweep shows is a typo.
constexpr std::int64_t kLargestSize = std::int64_t{1} << 40;
constexpr std::size_t kMostTunableValues = 64;
const std::vector<std::string> kKeywords = {"kernel", "size",  "tune", "restrict",
                                            "arg",    "block", "grid", "shared",
                                            "check",  "bytes", "flops"};
const std::vector<std::string> kBlockNames = {"block.x", "block.y", "block.z"};

struct TypeName {
  FileType type;
  const char* name;
  int bytes;
};
constexpr TypeName kTypes[] = {{FileType::f32, "float", 4},
                               {FileType::f64, "double", 8},
                               {FileType::i32, "int", 4},
                               {FileType::u32, "unsigned", 4},
                               {FileType::i64, "long", 8}};

std::string trimmed(std::string_view text) {
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && space(text.front()))
    text.remove_prefix(1);
  while (!text.empty() && space(text.back()))
    text.remove_suffix(1);
  return std::string(text);
}

bool is_identifier(const std::string& name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// The text after "// @warplens" on a line, or nullopt for a line that is not one.
std::optional<std::string> description_text(const std::string& line) {
  std::string rest = trimmed(line);
  if (!rest.starts_with("//"))
    return std::nullopt;
  rest = trimmed(rest.substr(2));
  if (!rest.starts_with(kMarker))
    return std::nullopt;
  rest = rest.substr(std::string(kMarker).size());
  if (!rest.empty() && !std::isspace(static_cast<unsigned char>(rest[0])))
    return std::nullopt; // "@warplensish": another tool's word
  return trimmed(rest);
}

// "// @WarpLens size ..." or "// @warplen ...": a description line with its marker mistyped, which
// would otherwise be skipped without a word. nullopt for any other line.
std::optional<std::string> mistyped_marker(const std::string& line) {
  std::string rest = trimmed(line);
  if (!rest.starts_with("//"))
    return std::nullopt;
  rest = trimmed(rest.substr(2));
  if (!rest.starts_with("@") || rest.starts_with(kMarker))
    return std::nullopt;
  std::string word = rest.substr(0, rest.find_first_of(" \t"));
  std::string lower = word;
  for (char& c : lower)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string marker = kMarker;
  const bool near =
      lower == marker || (lower.size() + 1 >= marker.size() && lower.size() <= marker.size() + 1 &&
                          marker.starts_with(lower.substr(0, 6)));
  return near ? std::optional(word) : std::nullopt;
}

// Splits at the commas outside parentheses: "min(a, b), 4" is two parts.
std::vector<std::string> top_level_parts(const std::string& text) {
  std::vector<std::string> parts(1);
  int depth = 0;
  for (char c : text) {
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (c == ',' && depth == 0)
      parts.emplace_back();
    else
      parts.back() += c;
  }
  for (std::string& part : parts)
    part = trimmed(part);
  return parts;
}

class Reader {
public:
  Reader(std::string file) { m_d.file = std::move(file); }

  void line(int number, const std::string& text) {
    m_line = number;
    const std::size_t space = text.find_first_of(" \t");
    const std::string keyword = text.substr(0, space);
    const std::string rest = space == std::string::npos ? "" : trimmed(text.substr(space));
    if (keyword == "kernel")
      kernel(rest);
    else if (keyword == "size")
      size(rest);
    else if (keyword == "tune")
      tune(rest);
    else if (keyword == "restrict")
      m_d.restrictions.push_back({expression(rest, "restrict"), m_line});
    else if (keyword == "arg")
      arg(rest);
    else if (keyword == "block")
      block(rest);
    else if (keyword == "grid")
      grid(rest);
    else if (keyword == "shared")
      once(m_d.shared_bytes, keyword, rest);
    else if (keyword == "bytes")
      once(m_d.bytes, keyword, rest);
    else if (keyword == "flops")
      once(m_d.flops, keyword, rest);
    else if (keyword == "check")
      check(rest);
    else
      fail("'" + clip(keyword, 30) + "' is not a description word" +
           did_you_mean(keyword, kKeywords) + " (allowed " + joined_words(kKeywords) + ")");
  }

  KernelFileDescription finish() {
    m_line = 0;
    if (m_d.kernels.empty())
      fail("no '// @warplens kernel NAME' line: name the __global__ function to run");
    if (m_d.args.empty())
      fail("no '// @warplens arg' line: list the kernel's arguments in order");
    if (m_d.grid.empty())
      fail("no '// @warplens grid' line: say the grid, e.g. grid ceil_div(n, block.x)");
    if (!m_line_of.contains("check"))
      fail("no '// @warplens check' line: name a reference kernel of the file and a tolerance "
           "(check NAME 1e-5), or say 'check none' (its figures are then marked not verified)");
    check_names();
    check_kernels();
    m_d.grid_line = m_line_of["grid"];
    for (const auto& [word, line] :
         {std::pair{"shared", &m_d.shared_line}, std::pair{"bytes", &m_d.bytes_line},
          std::pair{"flops", &m_d.flops_line}})
      *line = m_line_of.contains(word) ? m_line_of[word] : 0;
    return std::move(m_d);
  }

private:
  [[noreturn]] void fail(const std::string& what) const {
    throw UsageError(m_d.file + (m_line ? ":" + std::to_string(m_line) : "") + ": " + what);
  }

  static std::string joined_words(const std::vector<std::string>& words) {
    std::string text;
    for (const std::string& word : words)
      text += (text.empty() ? "" : ", ") + word;
    return text;
  }

  Expression expression(const std::string& text, const std::string& what) const {
    if (text.empty())
      // `what` is the line's start ("size n", "tune T"): the example is the expression alone,
      // which fits where the value goes in each kind of line and in a list's empty item.
      fail(what + " needs an expression where it has none (an empty value), e.g. n * 4");
    try {
      return Expression(text);
    } catch (const UsageError& e) {
      fail(what + " " + e.what());
    }
  }

  void once(std::optional<Expression>& into, const std::string& what, const std::string& text) {
    first_time(what);
    into = expression(text, what);
  }

  // Refuses a second line of a word said once (grid, block, shared, bytes, flops, check).
  void first_time(const std::string& what) {
    const auto [at, first] = m_line_of.emplace(what, m_line);
    if (!first)
      fail("a second '" + what + "' line (the first is line " + std::to_string(at->second) + ")");
  }

  // A new name among `names` (the sizes and tunables, or the arguments): an identifier not
  // yet in it. An argument may share a size's name (arg n: int = n).
  void new_name(const std::string& name, const std::string& what, std::set<std::string>& names) {
    if (!is_identifier(name))
      fail(what + " '" + clip(name, 30) +
           "' is not a name (letters, digits and '_', not starting with a digit)");
    if (!names.insert(name).second)
      fail(what + " '" + name + "' is named twice");
  }

  void kernel(const std::string& name) {
    const std::string function = name.substr(0, name.find('<'));
    if (!is_identifier(trimmed(function)))
      fail("kernel '" + clip(name, 40) +
           "' is not a function name (e.g. saxpy, or transpose<TILE, PAD> for a template)");
    if (std::find(m_d.kernels.begin(), m_d.kernels.end(), name) != m_d.kernels.end())
      fail("kernel '" + name + "' is named twice");
    m_d.kernels.push_back(name);
    m_d.kernel_lines.push_back(m_line);
  }

  // "NAME = EXPR": the name and its expression's text.
  std::pair<std::string, std::string> assignment(const std::string& text, const std::string& what,
                                                 const std::string& example) const {
    const std::size_t equals = text.find('=');
    if (equals == std::string::npos || text.compare(equals, 2, "==") == 0)
      fail(what + " '" + clip(text, 40) + "' is not NAME = VALUE (e.g. " + example + ")");
    return {trimmed(text.substr(0, equals)), trimmed(text.substr(equals + 1))};
  }

  std::int64_t constant(const std::string& text, const std::string& what) const {
    const Expression e = expression(text, what);
    ExpressionValues earlier;
    for (const FileSize& size : m_d.sizes)
      earlier[size.name] = size.default_value;
    try {
      return e.evaluate(earlier);
    } catch (const UsageError& error) {
      fail(what + " " + error.what() + " (a value may use the sizes above it, nothing else)");
    }
  }

  void size(const std::string& text) {
    const auto [name, value_text] = assignment(text, "size", "size n = 1 << 24");
    new_name(name, "size", m_names);
    const std::int64_t value = constant(value_text, "size " + name);
    if (value < 1 || value > kLargestSize)
      fail("size " + name + " = " + std::to_string(value) + ": allowed 1 to 2^40");
    m_d.sizes.push_back({name, value, m_line});
  }

  void tune(const std::string& text) {
    const auto [name, values_text] = assignment(text, "tune", "tune TILE = 32, 16, 8");
    new_name(name, "tunable", m_names);
    // It becomes -DNAME=value: a name of the compiler's own (__CUDACC__) would change what it is.
    if (name.starts_with("__") ||
        (name.size() > 1 && name[0] == '_' && std::isupper(static_cast<unsigned char>(name[1]))))
      fail("tunable '" + name +
           "' is a name reserved for the compiler and its headers (starting with __ or _ and a "
           "capital); choose another, e.g. TILE");
    FileTunable tunable{name, {}, m_line};
    const std::vector<std::string> parts = top_level_parts(values_text);
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (trimmed(parts[i]).empty()) // "tune T = 1,,2": the empty item named, as a list's
        fail("tune " + name + ": value " + std::to_string(i + 1) + " of " +
             std::to_string(parts.size()) + " is empty; list values with a comma between, e.g. " +
             "tune " + name + " = 8, 16, 32");
      const std::string& part = parts[i];
      const std::int64_t value = constant(part, "tune " + name);
      if (std::find(tunable.values.begin(), tunable.values.end(), value) != tunable.values.end())
        fail("tune " + name + ": " + std::to_string(value) + " is listed twice");
      tunable.values.push_back(value);
    }
    if (tunable.values.size() > kMostTunableValues)
      fail("tune " + name + ": " + std::to_string(tunable.values.size()) +
           " values; allowed at most " + std::to_string(kMostTunableValues));
    m_d.tunables.push_back(std::move(tunable));
  }

  // A buffer's element type or a scalar's: long (a 64-bit size or index) is a scalar's alone.
  enum class TypeOf { buffer, scalar };
  FileType type_of(const std::string& word, TypeOf of) const {
    for (const TypeName& t : kTypes)
      if (word == t.name)
        return t.type;
    std::vector<std::string> names;
    for (const TypeName& t : kTypes)
      names.emplace_back(t.name);
    fail("type '" + clip(word, 30) + "' is not one WarpLens fills" + did_you_mean(word, names) +
         "; allowed float, double, int, " +
         (of == TypeOf::buffer ? "unsigned (and long for a scalar)" : "unsigned, long"));
  }

  void arg(const std::string& text) {
    const std::size_t colon = text.find(':');
    if (colon == std::string::npos)
      fail("arg '" + clip(text, 40) +
           "' is not NAME: ... (e.g. arg x: in float[n] random(-1, 1), or arg a: float = 2)");
    FileArg a;
    a.name = trimmed(text.substr(0, colon));
    a.line = m_line;
    new_name(a.name, "argument", m_arg_names);
    const std::string rest = trimmed(text.substr(colon + 1));
    const std::string first = rest.substr(0, rest.find_first_of(" \t"));
    if (first == "in" || first == "out" || first == "inout")
      buffer(a, first, trimmed(rest.substr(first.size())));
    else
      scalar(a, rest);
    m_d.args.push_back(std::move(a));
  }

  void buffer(FileArg& a, const std::string& direction, const std::string& rest) {
    a.buffer = true;
    a.direction = direction == "in"    ? Direction::in
                  : direction == "out" ? Direction::out
                                       : Direction::inout;
    const std::size_t open = rest.find('[');
    const std::size_t close = rest.find(']', open == std::string::npos ? 0 : open);
    if (open == std::string::npos || close == std::string::npos)
      fail("arg " + a.name + ": a buffer is TYPE[COUNT] (e.g. float[n])");
    a.type = type_of(trimmed(rest.substr(0, open)), TypeOf::buffer);
    if (a.type == FileType::i64)
      fail("arg " + a.name +
           ": a buffer holds float, double, int or unsigned; long is a scalar's type (a 64-bit "
           "size or index)");
    a.count = expression(trimmed(rest.substr(open + 1, close - open - 1)), "arg " + a.name);
    a.fill = fill(a, trimmed(rest.substr(close + 1)));
  }

  Fill fill(const FileArg& a, const std::string& text) const {
    if (a.direction == Direction::out) {
      if (!text.empty())
        fail("arg " + a.name +
             ": an out buffer is poisoned before each run, so it takes no fill ('" +
             clip(text, 30) + "'); make it inout to fill it");
      return Fill{.kind = Fill::Kind::poison};
    }
    const std::string word = text.substr(0, text.find('('));
    const std::vector<double> numbers = fill_numbers(a, text);
    const auto takes = [&](std::size_t count) {
      if (numbers.size() != count)
        fail("arg " + a.name + ": " + word + " takes " + std::to_string(count) + " number" +
             (count == 1 ? "" : "s"));
    };
    if (text.empty() || word == "random") {
      if (!numbers.empty())
        takes(2);
      Fill f{.kind = Fill::Kind::random};
      if (!numbers.empty() && !(numbers[0] < numbers[1]))
        fail("arg " + a.name + ": random(" + format_number(numbers[0], 6) + ", " +
             format_number(numbers[1], 6) + ") needs its low below its high");
      if (!numbers.empty()) {
        f.low = numbers[0], f.high = numbers[1];
        check_holds(a, f.low, "random's low");
        check_holds(a, f.high, "random's high");
        if (!std::isfinite(f.high - f.low))
          fail("arg " + a.name + ": random(" + format_number(f.low, 6) + ", " +
               format_number(f.high, 6) + ") spans more than a double holds; narrow it");
      }
      return f;
    }
    if (word == "zeros" || word == "iota") {
      takes(0);
      return Fill{.kind = word == "zeros" ? Fill::Kind::zeros : Fill::Kind::iota};
    }
    if (word == "constant") {
      takes(1);
      check_holds(a, numbers[0], "constant");
      return Fill{.kind = Fill::Kind::constant, .value = numbers[0]};
    }
    fail("arg " + a.name + ": fill '" + clip(text, 30) +
         "' is not one WarpLens knows; allowed random(LOW, HIGH), zeros, iota, constant(V)");
  }

  // A number the arg's element type holds: a float rounds anything past 3.4e38 to infinity, an
  // int or unsigned fill is cut to its range.
  void check_holds(const FileArg& a, double value, const char* what) const {
    const auto [low, high] =
        a.type == FileType::f32   ? std::pair{-3.4028234663852886e38, 3.4028234663852886e38}
        : a.type == FileType::i32 ? std::pair{-2147483648.0, 2147483647.0}
        : a.type == FileType::u32 ? std::pair{0.0, 4294967295.0}
                                  : std::pair{-1.7976931348623157e308, 1.7976931348623157e308};
    if (value < low || value > high)
      fail("arg " + a.name + ": " + what + " " + format("%.6g", value) + " is outside what " +
           (a.type == FileType::i32 ? "an " : "a ") + file_type_name(a.type) + " holds (" +
           format("%.6g", low) + " to " + format("%.6g", high) + ")");
  }

  // The numbers between a fill's parentheses: none without them.
  std::vector<double> fill_numbers(const FileArg& a, const std::string& text) const {
    const std::size_t open = text.find('(');
    if (open == std::string::npos)
      return {};
    if (text.back() != ')')
      fail("arg " + a.name + ": '" + clip(text, 30) + "' does not end with ')'");
    std::vector<double> numbers;
    for (const std::string& part : top_level_parts(text.substr(open + 1, text.size() - open - 2)))
      numbers.push_back(real(part, "arg " + a.name));
    return numbers;
  }

  double real(const std::string& text, const std::string& what) const {
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() ||
        !std::isfinite(value))
      fail(what + ": '" + clip(text, 30) + "' is not a finite number");
    return value;
  }

  void scalar(FileArg& a, const std::string& rest) {
    const std::size_t equals = rest.find('=');
    if (equals == std::string::npos)
      fail("arg " + a.name + ": '" + clip(rest, 40) +
           "' is neither a buffer (in, out or inout TYPE[COUNT]) nor a scalar (TYPE = VALUE)");
    a.type = type_of(trimmed(rest.substr(0, equals)), TypeOf::scalar);
    const std::string value = trimmed(rest.substr(equals + 1));
    if (a.type == FileType::f32 || a.type == FileType::f64) {
      a.real_value = real(value, "arg " + a.name);
      check_holds(a, a.real_value, "value");
    } else
      a.whole_value = expression(value, "arg " + a.name);
  }

  void block(const std::string& text) {
    first_time("block");
    try {
      m_d.default_block = parse_block(text);
    } catch (const UsageError& e) {
      fail(e.what());
    }
  }

  void grid(const std::string& text) {
    first_time("grid");
    const std::vector<std::string> parts = top_level_parts(text);
    if (parts.size() > 3)
      fail("grid has " + std::to_string(parts.size()) + " sides; allowed x, x, y or x, y, z");
    for (const std::string& part : parts)
      m_d.grid.push_back(expression(part, "grid"));
  }

  void check(const std::string& text) {
    first_time("check");
    if (text == "none")
      return;
    // The reference is a function name, a template's with its arguments (the tolerance last).
    const std::size_t space = text.find_last_of(" \t");
    const std::string name = space == std::string::npos ? text : trimmed(text.substr(0, space));
    if (space == std::string::npos || !is_identifier(trimmed(name.substr(0, name.find('<')))) ||
        (name.find('<') != std::string::npos && !name.ends_with(">")))
      fail("check '" + clip(text, 40) +
           "' is not REFERENCE TOLERANCE (e.g. check saxpy_reference 1e-5, or "
           "check transpose_reference<TILE> 0 for a template) or none");
    m_d.reference = name;
    m_d.tolerance = real(trimmed(text.substr(space)), "check " + name);
    if (m_d.tolerance < 0 || m_d.tolerance > 1)
      fail("check " + name + ": tolerance " + format_number(m_d.tolerance, 6) +
           "; allowed 0 to 1 (absolute and relative)");
  }

  // Each kernel gets an id of its name without template arguments, so two instances of one
  // template would share one and the second could never be chosen; and a kernel checked against
  // itself is never wrong, so nothing would be verified.
  void check_kernels() {
    std::map<std::string, std::size_t> by_base;
    for (std::size_t k = 0; k < m_d.kernels.size(); ++k) {
      const std::string base = trimmed(m_d.kernels[k].substr(0, m_d.kernels[k].find('<')));
      if (const auto [first, added] = by_base.emplace(base, k); !added) {
        m_line = m_d.kernel_lines[k];
        fail("kernel '" + clip(m_d.kernels[k], 40) + "' and '" +
             clip(m_d.kernels[first->second], 40) + "' (line " +
             std::to_string(m_d.kernel_lines[first->second]) + ") would share the id of " + base +
             "; name one, and make its template arguments tunables (tune T = 16, 32)");
      }
    }
    if (std::find(m_d.kernels.begin(), m_d.kernels.end(), m_d.reference) != m_d.kernels.end()) {
      m_line = m_line_of["check"];
      fail("check " + clip(m_d.reference, 40) +
           " names the kernel itself, which verifies nothing; name another kernel of the file "
           "that computes the same outputs plainly, or say check none");
    }
  }

  // Every name an expression reads is a size, a tunable or block.x/y/z; a tunable is no
  // argument's name (as -DNAME it would replace that name in the code).
  void check_names() {
    std::set<std::string> known(kBlockNames.begin(), kBlockNames.end());
    for (const FileSize& s : m_d.sizes)
      known.insert(s.name);
    for (const FileTunable& t : m_d.tunables) {
      known.insert(t.name);
      if (m_arg_names.contains(t.name)) {
        m_line = t.line;
        fail("tunable '" + t.name + "' is also an argument's name: as -D" + t.name +
             "=VALUE it would replace that name in the code");
      }
    }
    // Buffers, arguments, bytes and arithmetic are one launch's whatever its block: they may not
    // read it (a sweep over block shapes keeps its buffers).
    const auto check = [&](const Expression& e, int line, const std::string& what,
                           bool reads_block) {
      for (const std::string& name : e.names()) {
        m_line = line;
        if (!known.contains(name))
          fail(what + " '" + clip(e.text(), 40) + "' reads '" + clip(name, 30) +
               "', which is not a size, a tunable or block.x/y/z");
        if (!reads_block && name.starts_with("block."))
          fail(what + " '" + clip(e.text(), 40) + "' reads " + name +
               ", but it is the same for every block shape; allowed sizes and tunables");
      }
    };
    for (const FileRestriction& r : m_d.restrictions)
      check(r.condition, r.line, "restrict", true);
    for (const FileArg& a : m_d.args) {
      if (a.count)
        check(*a.count, a.line, "arg " + a.name, false);
      if (a.whole_value)
        check(*a.whole_value, a.line, "arg " + a.name, false);
    }
    for (const Expression& e : m_d.grid)
      check(e, m_line_of["grid"], "grid", true);
    if (m_d.shared_bytes)
      check(*m_d.shared_bytes, m_line_of["shared"], "shared", true);
    for (const auto& [e, what] : {std::pair{&m_d.bytes, "bytes"}, std::pair{&m_d.flops, "flops"}})
      if (*e)
        check(**e, m_line_of[what], what, false);
  }

  KernelFileDescription m_d;
  std::set<std::string> m_names, m_arg_names;
  int m_line = 0;
  std::map<std::string, int> m_line_of; // words said once, and their line
};

} // namespace

const char* file_type_name(FileType type) {
  for (const TypeName& t : kTypes)
    if (t.type == type)
      return t.name;
  return "float";
}

int file_type_bytes(FileType type) {
  for (const TypeName& t : kTypes)
    if (t.type == type)
      return t.bytes;
  return 4;
}

namespace {

// The names a template's parameter list declares: `int TILE`, `typename T = float` -> TILE, T
// (each comma's piece up to its '=', the last word of a piece that begins with a type's word).
std::vector<std::string_view> template_parameter_names(std::string_view list) {
  static constexpr std::string_view kTypeWords[] = {
      "int", "unsigned", "long", "short", "char", "bool", "size_t", "auto", "typename", "class"};
  std::vector<std::string_view> names;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string_view piece = list.substr(start, comma - start);
    TextScan scan(piece.substr(0, piece.find('=')));
    std::vector<std::string_view> words;
    for (scan.skip_spaces(true); !scan.done(); scan.skip_spaces(true)) {
      const std::string_view word = scan.identifier();
      if (word.empty())
        break;
      words.push_back(word);
    }
    if (words.size() >= 2 && std::find(std::begin(kTypeWords), std::end(kTypeWords),
                                       words.front()) != std::end(kTypeWords))
      names.push_back(words.back());
    start = comma + 1;
  }
  return names;
}

// A tunable is passed as -DNAME=VALUE, so a template parameter of the same name in the code would
// become `template <int 256>`, which the compiler refuses without saying why.
void check_template_names(const KernelFileDescription& d, const std::string& text) {
  if (d.tunables.empty())
    return;
  TextScan scan(text);
  while (scan.skip_past("template")) {
    scan.skip_spaces(true);
    if (!scan.take("<"))
      continue;
    const std::string_view list = scan.until('>');
    for (const std::string_view name : template_parameter_names(list))
      for (const FileTunable& t : d.tunables)
        if (name == t.name)
          throw UsageError(d.file + ":" + std::to_string(t.line) + ": tunable '" + t.name +
                           "' is also a template parameter's name in the code: as -D" + t.name +
                           "=VALUE it would replace it; name the template's parameter otherwise "
                           "(template <int Tile> ... with kernel transpose<TILE>)");
  }
}

} // namespace

KernelFileDescription read_kernel_file_description(const std::string& text,
                                                   const std::string& file) {
  Reader reader(file);
  int number = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::string line =
        text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    ++number;
    if (const std::optional<std::string> description = description_text(line))
      reader.line(number, *description);
    else if (const std::optional<std::string> word = mistyped_marker(line))
      throw UsageError(file + ":" + std::to_string(number) + ": '" + clip(*word, 30) +
                       "' is not the description's marker; write // @warplens (lower case)");
    else if (line.starts_with("\xEF\xBB\xBF") && description_text(line.substr(3)))
      // A second file's mark, left where files were joined: the line would be skipped unseen.
      throw UsageError(file + ":" + std::to_string(number) +
                       ": a byte order mark (bytes EF BB BF) stands before this // @warplens "
                       "line; delete it (only a file's first line may start with one)");
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  KernelFileDescription d = reader.finish();
  check_template_names(d, text);
  return d;
}

} // namespace wl
