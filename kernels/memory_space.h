#pragma once
// Where a memory access goes, and which way, and their names in every report.

#include <string>

namespace wl {

enum class MemorySpace { global, shared };
enum class AccessOp { load, store };

inline const char* space_name(MemorySpace space) {
  return space == MemorySpace::global ? "global" : "shared";
}
inline const char* op_name(AccessOp op) { return op == AccessOp::load ? "load" : "store"; }
// "global load", "shared store".
inline std::string access_kind(MemorySpace space, AccessOp op) {
  return std::string(space_name(space)) + " " + op_name(op);
}

} // namespace wl
