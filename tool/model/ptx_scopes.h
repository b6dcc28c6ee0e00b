#pragma once
// Inside the PTX parser: the names a function body sees, in nested { } scopes (inline assembly
// declares its own registers in a block, and may reuse a label name in each inlined copy).

#include "model/ptx_program.h"

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace wl::ptx_detail {

// What a name means in a scope.
struct Binding {
  enum class Kind { reg, range, variable, param } kind = Kind::reg;
  int index = 0; // register, variable or parameter; for a range, its entry in the ranges
};

// Names (registers, variables, parameters) and labels in nested scopes: a name declared inside
// { } hides an outer one until the scope closes. Branches are resolved when the scope of their
// label closes, so a forward branch finds a label declared later.
class Scopes {
public:
  void push();

  void bind(const std::string& name, Binding binding);
  // %r<count> from register `first`: %r0 to %r(count-1), hiding those of an outer %r<N> only.
  void bind_range(const std::string& prefix, int first, int count);

  const Binding* find(const std::string& name) const;

  // A register named `name`, through a %r<N> range when not declared by its own name.
  std::optional<int> register_named(const std::string& name) const;

  void label(const std::string& name, int instruction, int line);
  void branch(int instruction, std::string name, int line);

  // Closes the innermost scope; branches to labels it defined get their targets.
  void pop(std::vector<PtxInstruction>& code, bool function_end = false);

  std::size_t depth() const { return m_marks.size(); }

private:
  struct Undo {
    std::string name;
    std::optional<Binding> before;
  };
  struct Pending {
    int instruction;
    std::string name;
    int line;
  };
  struct LabelScope {
    std::unordered_map<std::string, int> defined;
    std::vector<Pending> pending;
  };
  struct Range {
    int first = 0, count = 0;
    int outer = -1; // the range of the same prefix this one hides, in m_ranges
  };
  std::unordered_map<std::string, Binding> m_names;
  std::vector<Range> m_ranges; // only grows: a closed scope's ranges are no longer bound
  std::vector<Undo> m_undo;
  std::vector<std::size_t> m_marks;
  std::vector<LabelScope> m_labels;
};

} // namespace wl::ptx_detail
