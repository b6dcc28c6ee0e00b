#pragma once
// Helpers the kernel-catalog tests share: a descriptor by id, an exact model prediction, and a
// site of it by name. Each throws when the name is unknown, so a typo fails the test.

#include "model/launch_model.h"
#include "registry.h"

#include <stdexcept>
#include <string>

namespace wl::test {

inline const KernelDesc& kernel(const std::string& id) {
  const KernelDesc* k = find_kernel(id);
  if (!k)
    throw std::runtime_error("no kernel " + id);
  return *k;
}

// Every warp evaluated unless a budget is given; 132 SMs, as on the H100.
// The kernel's parameters at their defaults.
inline Params default_params(const KernelDesc& k) {
  Params p;
  for (const ParamSpec& spec : k.params)
    p[spec.name] = spec.default_value;
  return p;
}

inline LaunchPrediction predict(const std::string& id, const Params& params, BlockShape block,
                                ModelBudget budget = {0}) {
  const KernelDesc& k = kernel(id);
  return predict_launch(k, make_launch(k, params, block, 132), budget);
}

inline const SitePrediction& site(const LaunchPrediction& p, const std::string& name) {
  for (const SitePrediction& s : p.sites)
    if (s.name == name)
      return s;
  throw std::runtime_error("no site " + name);
}

// Buffers sized for the params; inputs filled with `fill(buffer, element)`, outputs left zero.
template <typename Fill> HostBuffers inputs(const KernelDesc& k, const Params& p, Fill fill) {
  HostBuffers in(k.buffers.size());
  for (std::size_t b = 0; b < k.buffers.size(); ++b) {
    in[b].type = k.buffers[b].type;
    in[b].words.resize(static_cast<std::size_t>(k.buffers[b].count(p)));
    if (k.buffers[b].role == BufferRole::input)
      for (std::int64_t i = 0; i < in[b].size(); ++i)
        in[b].f32()[i] = fill(static_cast<int>(b), i);
  }
  return in;
}

} // namespace wl::test
