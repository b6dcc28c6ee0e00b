#include "model/verify.h"

#include <cmath>
#include <cstdio>

namespace wl {

namespace {

struct Comparison {
  bool ok = true;
  double abs_error = 0, rel_error = 0;
};

bool is_whole(ElementType type) { return type == ElementType::i32 || type == ElementType::u32; }

double element(const HostBuffer& buffer, std::int64_t i) {
  switch (buffer.type) {
  case ElementType::f64:
    return buffer.f64()[i];
  case ElementType::i32:
    return buffer.i32()[i];
  case ElementType::u32:
    return buffer.u32()[i];
  case ElementType::f32:
    break;
  }
  return buffer.f32()[i];
}

// An element never written still holds the poison: every byte 0xff.
bool is_poison(const HostBuffer& buffer, std::int64_t i) {
  const int words = element_bytes(buffer.type) / 4;
  for (int w = 0; w < words; ++w)
    if (buffer.words[static_cast<std::size_t>(i * words + w)] != kPoison)
      return false;
  return true;
}

Comparison compare(const HostBuffer& got, const HostBuffer& want, std::int64_t i,
                   const Tolerance& tol) {
  const double g = element(got, i), w = element(want, i);
  if (is_whole(got.type)) {
    const bool same = g == w;
    return {same, same ? 0.0 : 1.0, same ? 0.0 : 1.0};
  }
  if (!std::isfinite(g) && !(std::isinf(g) && g == w))
    return {false, INFINITY, INFINITY};
  const double error = std::fabs(g - w);
  return {error <= tol.absolute + tol.relative * std::fabs(w), error,
          w != 0 ? error / std::fabs(w) : error};
}

// Element `at` of the buffers, shown as element `shown` of the buffer named `buffer`.
std::string describe_at(const std::string& buffer, std::int64_t shown, const HostBuffer& got,
                        const HostBuffer& want, std::int64_t at) {
  char text[160];
  const char* format = is_whole(got.type)             ? "%s[%lld]: got %.0f, want %.0f"
                       : got.type == ElementType::f64 ? "%s[%lld]: got %.17g, want %.17g"
                                                      : "%s[%lld]: got %.9g, want %.9g";
  if (!is_whole(got.type) && is_poison(got, at))
    std::snprintf(text, sizeof text, "%s[%lld]: never written (still the NaN poison), want %.9g",
                  buffer.c_str(), static_cast<long long>(shown), element(want, at));
  else
    std::snprintf(text, sizeof text, format, buffer.c_str(), static_cast<long long>(shown),
                  element(got, at), element(want, at));
  return text;
}

} // namespace

std::string describe_mismatch(const std::string& buffer, std::int64_t index, const HostBuffer& got,
                              const HostBuffer& want) {
  return describe_at(buffer, index, got, want, 0);
}

Verification verify_outputs(const KernelDesc& kernel, const HostBuffers& outputs,
                            const Expected& expected) {
  Verification v;
  v.note = expected.note;
  for (std::size_t b = 0; b < kernel.buffers.size(); ++b) {
    if (!is_verified(kernel.buffers[b].role))
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
        v.first_failure = describe_at(kernel.buffers[b].name, i, got, want, i);
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
