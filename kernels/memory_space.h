#pragma once
// Where a memory access goes, and which way.

namespace wl {

enum class MemorySpace { global, shared };
enum class AccessOp { load, store };

} // namespace wl
