#pragma once
// A person's own kernel file: CUDA source that nvcc builds unchanged, with its launch described in
// comment lines that start with "// @warplens". One line per fact, in any order:
//
//   // @warplens kernel saxpy                      the __global__ function (several: one per line;
//                                                  a template names its arguments: tile<TILE, PAD>)
//   // @warplens size n = 1 << 24                  a problem size and its default (--size, --param)
//   // @warplens tune TILE = 32, 16, 8             a tunable: its values, the first the default;
//                                                  each is passed as -DTILE=32 (and in the name)
//   // @warplens restrict block.x == TILE          a condition every launch must meet
//   // @warplens arg x: in float[n] random(-1, 1)  a buffer: in, out or inout, its element type
//   // @warplens arg y: inout float[n] zeros        and count, how to fill it (random(lo, hi),
//   // @warplens arg out: out float[n]              zeros, iota, constant(v); out: poisoned)
//   // @warplens arg a: float = 2.5                 a scalar: its type and value
//   // @warplens arg n: int = n                     (an int, unsigned or long may be an expression
//                                                  of the sizes; long is 64 bits, scalars only)
//   // @warplens block 256                          the default block (X, XxY or XxYxZ)
//   // @warplens grid ceil_div(n, block.x)          the grid: x[, y[, z]] (1 where left out)
//   // @warplens shared TILE * (TILE + 1) * 4       dynamic shared memory in bytes (default 0)
//   // @warplens check saxpy_reference 1e-5         a reference kernel of the file, run with the
//                                                  same arguments, and the tolerance; or "none"
//   // @warplens bytes 3 * n * 4                    the fewest bytes the launch must move (default:
//                                                  every buffer read or written once)
//   // @warplens flops 2 * n                        its arithmetic, for the compute figures
//
// Arguments are listed in the kernel's parameter order. Expressions are those of expression.h over
// the sizes, the tunables and block.x/y/z. Every problem names the file, the line and what is
// allowed.

#include "kernel_file/expression.h"
#include "shape.h"

#include <optional>
#include <string>
#include <vector>

namespace wl {

// A buffer element or scalar type of a kernel file, as C++ names it.
// long: a 64-bit integer (long long, int64_t), for scalars only.
enum class FileType { f32, f64, i32, u32, i64 };
const char* file_type_name(FileType type); // "float", "double", "int", "unsigned", "long"
int file_type_bytes(FileType type);

enum class Direction { in, out, inout };

struct Fill {
  enum class Kind { random, zeros, iota, constant, poison };
  Kind kind = Kind::random;
  double low = -1, high = 1; // random's range
  double value = 0;          // constant's value
};

struct FileArg {
  std::string name;
  int line = 0;
  FileType type = FileType::f32;
  bool buffer = false;
  // A buffer's direction, element count and fill.
  Direction direction = Direction::in;
  std::optional<Expression> count;
  Fill fill;
  // A scalar's value: a number for float and double, an expression for int and unsigned.
  double real_value = 0;
  std::optional<Expression> whole_value;
};

struct FileSize {
  std::string name;
  std::int64_t default_value = 0;
  int line = 0;
};

struct FileTunable {
  std::string name;
  std::vector<std::int64_t> values; // the first is the default
  int line = 0;
};

struct FileRestriction {
  Expression condition;
  int line = 0;
};

struct KernelFileDescription {
  std::string file; // as named in messages
  std::vector<std::string> kernels;
  std::vector<int> kernel_lines;
  std::vector<FileSize> sizes;
  std::vector<FileTunable> tunables;
  std::vector<FileRestriction> restrictions;
  std::vector<FileArg> args;
  BlockShape default_block{256, 1, 1};
  std::vector<Expression> grid; // x, then y and z where given
  std::optional<Expression> shared_bytes, bytes, flops;
  int grid_line = 0, shared_line = 0, bytes_line = 0, flops_line = 0; // where each is written
  std::string reference; // "" with `check none`: not verified
  double tolerance = 0;
};

// Reads the "// @warplens" lines of a kernel file's text. Throws UsageError
// "FILE:LINE: what is wrong; allowed ..." for the first line it cannot use, or a description that
// lacks a kernel, an argument, the grid or the check.
KernelFileDescription read_kernel_file_description(const std::string& text,
                                                   const std::string& file);

} // namespace wl
