#pragma once
// A kernel, its parameters and its block, as the user names them on the command line or in the
// GUI, checked against the kernel's descriptor. Every refusal is one line naming the value and
// what the kernel allows.

#include "kernel.h"

#include <optional>
#include <string>
#include <vector>

namespace wl {

struct Arch;

struct KernelRequest {
  const KernelDesc* kernel = nullptr;
  Params params; // every parameter, defaults filled in
  BlockShape block;
};

// id: "family/variant"; params: "name=value" texts; size: "AxBxC" for the size parameters in
// order (empty: defaults); block: "X", "XxY" or "XxYxZ" (empty: the kernel's default).
KernelRequest resolve_kernel_request(const std::string& id, const std::vector<std::string>& params,
                                     const std::string& size, const std::string& block);

// The same checks for values that are already parsed (the GUI's widgets, the worker protocol).
void check_kernel_request(const KernelRequest& request);
// Its first half: the parameters alone, each the kernel's, present and in range, and allowed
// together (the GUI shows this refusal beside the parameter fields, the block's beside the block,
// both at once when both are wrong).
void check_kernel_params(const KernelDesc& kernel, const Params& params);
// Its second half: the block, for these parameters.
void check_kernel_block(const KernelRequest& request);

// "128, 256" for a parameter with choices, else "1 to 64": what its values may be.
std::string allowed_values(const ParamSpec& spec);

// "needs compute capability 8.0 or later (its multiply-adds run on the tensor cores)" for a
// kernel with a minimum compute capability (the reason where it gives one); "" for the others.
std::string compute_capability_need(const KernelDesc& kernel);

// Throws UsageError where the arch is older than the kernel needs ("flash_attention/tensor_d64
// needs compute capability 8.0 or later (its multiply-adds run on the tensor cores); t4 is
// 7.5").
void check_kernel_arch(const KernelDesc& kernel, const Arch& arch);

// The kernel's parameter of this name; throws UsageError "ID has no parameter 'NAME'; parameters:
// ..." when it has none.
const ParamSpec& kernel_param(const KernelDesc& kernel, const std::string& name);
// "n, stride": the parameters' names in declaration order ("none" for a kernel without any).
std::string param_names(const KernelDesc& kernel);
// Throws UsageError when `value` is out of the parameter's range or not among its choices.
void check_param_value(const KernelDesc& kernel, const ParamSpec& spec, std::int64_t value);

// The kernel's default block and its presets that it allows for these parameters, default first:
// the shapes the GUI offers and the GPU correctness sweep runs.
std::vector<BlockShape> allowed_presets(const KernelDesc& kernel, const Params& params);

// "n=16777216 width=4": parameters as text, in declaration order.
std::string format_params(const KernelDesc& kernel, const Params& params);

} // namespace wl
