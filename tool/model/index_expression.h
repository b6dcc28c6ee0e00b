#pragma once
// The index playground's model: a warp's access written as a person writes its index in CUDA,
// `threadIdx.x * 4 + (threadIdx.x >> 3)`, evaluated for each lane of one warp, optionally swizzled
// (`i ^ (i >> 5)`, where i is the index), times the element size: the lanes' byte addresses,
// which the access model (access.h) turns into requests and sectors, or banks and wavefronts, as
// it does for the bundled kernels' sites.
//
// The expressions are read by muParser, never compiled or run as code. They are integer
// arithmetic only: whole numbers (decimal or 0x hex), the names below, + - * / % << >> & | ^ (xor,
// as in C), unary minus, min(a, b), max(a, b) and parentheses, with C's precedence and its
// truncating / and %. Every value stays within +-2^40 and every address is a byte offset from 0 up.

#include "kernel.h"
#include "model/access.h"

#include <array>
#include <cstdint>
#include <string>

namespace wl {

// The names an index expression may use, for messages and the panel's help.
inline constexpr const char* kIndexNames =
    "threadIdx.x/.y/.z, blockIdx.x/.y/.z, blockDim.x/.y/.z, lane (0-31), warp (of the block)";

inline constexpr std::size_t kLongestIndexExpression = 400; // characters

struct IndexPlayground {
  std::string expression = "threadIdx.x"; // the element index
  std::string swizzle;                    // of i, the expression's value; empty: none
  int element_bytes = 4;                  // 1, 2, 4, 8 or 16
  BlockShape block{32, 1, 1};
  Coord block_index{0, 0, 0}; // blockIdx
  int warp = 0;               // which warp of the block
  MemorySpace space = MemorySpace::global;
};

struct PlaygroundWarp {
  std::array<std::int64_t, kWarpSize> index{}; // each active lane's element index, swizzled
  WarpAccess access;                           // byte addresses; lanes past the block inactive
};

// Throws UsageError naming the field ("index", "swizzle", "element size", "block", "warp"),
// where in it, and what is allowed.
PlaygroundWarp evaluate_playground(const IndexPlayground& playground);

} // namespace wl
