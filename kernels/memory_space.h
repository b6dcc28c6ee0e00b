#pragma once
// Where a memory access goes, and which way, and their names in every report.

#include <string>

namespace wl {

enum class MemorySpace { global, shared };
// An atomic (or reduction) reads and writes its address in one instruction: a kernel file's
// histogram bins; the bundled kernels' sites are loads and stores.
enum class AccessOp { load, store, atomic };

inline const char* space_name(MemorySpace space) {
  return space == MemorySpace::global ? "global" : "shared";
}
inline const char* op_name(AccessOp op) {
  return op == AccessOp::load ? "load" : op == AccessOp::store ? "store" : "atomic";
}
// The op op_name names.
inline AccessOp op_from(const std::string& name) {
  return name == "store" ? AccessOp::store : name == "atomic" ? AccessOp::atomic : AccessOp::load;
}
// "global load", "shared store".
inline std::string access_kind(MemorySpace space, AccessOp op) {
  return std::string(space_name(space)) + " " + op_name(op);
}

} // namespace wl
