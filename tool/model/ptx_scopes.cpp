// Names and labels in nested scopes (ptx_scopes.h): a binding hides an outer one until its scope
// closes (an undo log restores it); a branch waits in its scope until the scope that defines its
// label closes.

#include "model/ptx_scopes.h"

#include "model/ptx_lexer.h"

namespace wl::ptx_detail {

void Scopes::push() {
  m_marks.push_back(m_undo.size());
  m_labels.emplace_back();
}

void Scopes::bind(const std::string& name, Binding binding) {
  const auto found = m_names.find(name);
  m_undo.push_back(
      {name, found == m_names.end() ? std::nullopt : std::optional<Binding>(found->second)});
  m_names[name] = binding;
}

void Scopes::bind_range(const std::string& prefix, int first, int count) {
  const Binding* hidden = find(prefix + "<>");
  const int outer = hidden && hidden->kind == Binding::Kind::range ? hidden->index : -1;
  m_ranges.push_back({first, count, outer});
  bind(prefix + "<>", {Binding::Kind::range, static_cast<int>(m_ranges.size() - 1)});
}

const Binding* Scopes::find(const std::string& name) const {
  const auto found = m_names.find(name);
  return found == m_names.end() ? nullptr : &found->second;
}

// A register named `name`, through a %r<N> range when not declared by its own name.
std::optional<int> Scopes::register_named(const std::string& name) const {
  if (const Binding* b = find(name); b && b->kind == Binding::Kind::reg)
    return b->index;
  std::size_t digits = name.size();
  while (digits > 0 && is_digit(name[digits - 1]))
    --digits;
  if (digits == name.size() || (name[digits] == '0' && digits + 1 != name.size()))
    return std::nullopt;
  const Binding* range = find(name.substr(0, digits) + "<>");
  const auto n = parse_unsigned(std::string_view(name).substr(digits), 10);
  if (!range || range->kind != Binding::Kind::range || !n)
    return std::nullopt;
  for (int r = range->index; r >= 0; r = m_ranges[static_cast<std::size_t>(r)].outer)
    if (*n < static_cast<std::uint64_t>(m_ranges[static_cast<std::size_t>(r)].count))
      return m_ranges[static_cast<std::size_t>(r)].first + static_cast<int>(*n);
  return std::nullopt;
}

void Scopes::label(const std::string& name, int instruction, int line) {
  if (!m_labels.back().defined.emplace(name, instruction).second)
    fail(line, "label " + in_quotes(name) + " is defined twice");
}

void Scopes::branch(int instruction, std::string name, int line) {
  m_labels.back().pending.push_back({instruction, std::move(name), line});
}

// Closes the innermost scope; branches to labels it defined get their targets.
void Scopes::pop(std::vector<PtxInstruction>& code, bool function_end) {
  LabelScope& scope = m_labels.back();
  std::vector<Pending> unresolved;
  for (Pending& p : scope.pending) {
    const auto found = scope.defined.find(p.name);
    if (found != scope.defined.end())
      code[p.instruction].target = found->second;
    else
      unresolved.push_back(std::move(p));
  }
  m_labels.pop_back();
  if (!unresolved.empty() && (function_end || m_labels.empty()))
    fail(unresolved.front().line,
         "the branch to " + in_quotes(unresolved.front().name) + " names no label of its function");
  if (!unresolved.empty())
    for (Pending& p : unresolved)
      m_labels.back().pending.push_back(std::move(p));
  for (std::size_t i = m_undo.size(); i > m_marks.back(); --i) {
    Undo& undo = m_undo[i - 1];
    if (undo.before)
      m_names[undo.name] = *undo.before;
    else
      m_names.erase(undo.name);
  }
  m_undo.resize(m_marks.back());
  m_marks.pop_back();
}

} // namespace wl::ptx_detail
