#include "model/verify.h"

#include <cmath>
#include <cstdio>

namespace wl {

namespace {

struct Comparison {
  bool ok = true;
  double abs_error = 0, rel_error = 0;
};

Comparison compare(const HostBuffer& got, const HostBuffer& want, std::int64_t i,
                   const Tolerance& tol) {
  if (got.type == ElementType::i32) {
    const bool same = got.i32()[i] == want.i32()[i];
    return {same, same ? 0.0 : 1.0, same ? 0.0 : 1.0};
  }
  const double g = got.f32()[i], w = want.f32()[i];
  if (!std::isfinite(g) && !(std::isinf(g) && g == w))
    return {false, INFINITY, INFINITY};
  const double error = std::fabs(g - w);
  return {error <= tol.absolute + tol.relative * std::fabs(w), error,
          w != 0 ? error / std::fabs(w) : error};
}

std::string describe(const std::string& buffer, std::int64_t i, const HostBuffer& got,
                     const HostBuffer& want) {
  char text[160];
  if (got.type == ElementType::i32)
    std::snprintf(text, sizeof text, "%s[%lld]: got %d, want %d", buffer.c_str(),
                  static_cast<long long>(i), got.i32()[i], want.i32()[i]);
  else if (got.words[i] == kPoison)
    std::snprintf(text, sizeof text, "%s[%lld]: never written (still the NaN poison), want %.9g",
                  buffer.c_str(), static_cast<long long>(i), want.f32()[i]);
  else
    std::snprintf(text, sizeof text, "%s[%lld]: got %.9g, want %.9g", buffer.c_str(),
                  static_cast<long long>(i), got.f32()[i], want.f32()[i]);
  return text;
}

} // namespace

Verification verify_outputs(const KernelDesc& kernel, const HostBuffers& outputs,
                            const Expected& expected) {
  Verification v;
  v.note = expected.note;
  for (std::size_t b = 0; b < kernel.buffers.size(); ++b) {
    if (kernel.buffers[b].role != BufferRole::output)
      continue;
    const HostBuffer& got = outputs[b];
    const HostBuffer& want = expected.values[b];
    const auto check = [&](std::int64_t i) {
      const Comparison c = compare(got, want, i, kernel.tolerance);
      ++v.checked;
      v.max_abs_error = std::max(v.max_abs_error, c.abs_error);
      v.max_rel_error = std::max(v.max_rel_error, c.rel_error);
      if (c.ok)
        return;
      if (v.mismatches++ == 0)
        v.first_failure = describe(kernel.buffers[b].name, i, got, want);
    };
    if (expected.checked.empty())
      for (std::int64_t i = 0; i < got.size(); ++i)
        check(i);
    else
      for (std::int64_t i : expected.checked)
        check(i);
  }
  v.passed = v.checked > 0 && v.mismatches == 0;
  return v;
}

} // namespace wl
