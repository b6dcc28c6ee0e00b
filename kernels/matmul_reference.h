#pragma once
// The CPU reference of the matmul family, in double. Every output when that is cheap; at the
// default 4096^3 (6.9e10 multiply-adds) only whole sampled rows and columns of C, which still
// cover the first and last tiles along both sides.

#include "index/matmul.h"
#include "kernel.h"

#include <algorithm>
#include <string>
#include <vector>

namespace wl::matmul_reference {

struct Dims {
  int m, n, k;
};

// Below this many multiply-adds the reference computes every output.
inline constexpr double kFullWork = 5e7;

// The rows (or columns) of C the sampled reference covers: the first two, one inside the first
// tile, the middle, and the last (in a partial tile when the size is not a multiple of it).
inline std::vector<int> sampled_lines(int count) {
  std::vector<int> lines;
  for (int line : {0, 1, 17, count / 2, count - 1})
    if (line < count)
      lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  return lines;
}

// C[i][*], accumulated along B's rows so the inner loop walks memory in order.
inline void row(const float* a, const float* b, float* c, Dims d, int i, std::vector<double>& acc) {
  std::fill(acc.begin(), acc.end(), 0.0);
  for (int p = 0; p < d.k; ++p) {
    const double x = a[matmul::row_major(i, p, d.k)];
    const float* b_row = b + matmul::row_major(p, 0, d.n);
    for (int j = 0; j < d.n; ++j)
      acc[j] += x * b_row[j];
  }
  for (int j = 0; j < d.n; ++j)
    c[matmul::row_major(i, j, d.n)] = static_cast<float>(acc[j]);
}

// C[*][j], from a contiguous copy of B's column j.
inline void column(const float* a, const float* b, float* c, Dims d, int j,
                   std::vector<double>& b_column) {
  for (int p = 0; p < d.k; ++p)
    b_column[p] = b[matmul::row_major(p, j, d.n)];
  for (int i = 0; i < d.m; ++i) {
    double sum = 0.0;
    for (int p = 0; p < d.k; ++p)
      sum += a[matmul::row_major(i, p, d.k)] * b_column[p];
    c[matmul::row_major(i, j, d.n)] = static_cast<float>(sum);
  }
}

// Writes C = A . B into c (all of it, or the sampled rows and columns) and, when sampled, fills
// e.checked and e.note.
inline void product(const float* a, const float* b, float* c, Dims d, Expected& e) {
  std::vector<double> acc(d.n);
  if (double(d.m) * d.n * d.k <= kFullWork) {
    for (int i = 0; i < d.m; ++i)
      row(a, b, c, d, i, acc);
    return;
  }
  const std::vector<int> rows = sampled_lines(d.m), cols = sampled_lines(d.n);
  std::vector<double> b_column(d.k);
  for (int i : rows)
    row(a, b, c, d, i, acc);
  for (int j : cols)
    column(a, b, c, d, j, b_column);
  for (int i : rows)
    for (int j = 0; j < d.n; ++j)
      e.checked.push_back(matmul::row_major(i, j, d.n));
  for (int j : cols)
    for (int i = 0; i < d.m; ++i)
      e.checked.push_back(matmul::row_major(i, j, d.n));
  std::sort(e.checked.begin(), e.checked.end());
  e.checked.erase(std::unique(e.checked.begin(), e.checked.end()), e.checked.end());
  e.note = "the full product is too costly on the CPU at this size: checked every output of " +
           std::to_string(rows.size()) + " rows and " + std::to_string(cols.size()) +
           " columns of C (first, second, 18th, middle and last), in double";
}

} // namespace wl::matmul_reference
