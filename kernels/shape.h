#pragma once
// A block or grid shape: three sides, like CUDA's dim3. Parsing and printing live in tool/.

namespace wl {

struct BlockShape {
  int x = 1, y = 1, z = 1;

  long long threads() const { return static_cast<long long>(x) * y * z; }
  int rank() const { return z > 1 ? 3 : (y > 1 ? 2 : 1); }
  bool operator==(const BlockShape&) const = default;
};

} // namespace wl
