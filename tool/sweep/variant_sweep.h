#pragma once
// A variant sweep: every variant of one family at one problem size, each at its own default
// launch, beside the family's peer, the library result the climb aims at: the ladder at a
// glance (`warplens sweep matmul --variants`). The peer is the family's library variant measured
// in the same sweep (matmul/cublas), or else a torch call recorded on the same GPU at the same
// size (assets/peers.json); a sweep by the models has no peer, since a model's time beside a
// measured one would compare different things.

#include "model/kernel_request.h"
#include "model/run_result.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace wl {

// One variant: its result, or why it does not take the sweep's size (warp_registers refuses
// rows over 1024 columns) or failed to run.
struct VariantPoint {
  std::string kernel_id, title;
  std::string refused; // empty when it ran
  std::optional<RunResult> result;
};

struct VariantPeer {
  std::string name; // "matmul/cublas", "torch.softmax(x, dim=1)"
  double median_time = 0;
  std::string source; // "measured in this sweep", "recorded on NVIDIA H200, 2026-11-28 (...)"
};

struct VariantSweep {
  std::string family;
  Params size;                        // the size parameters every variant ran at
  std::vector<VariantPoint> variants; // in the family's order, the peer's library variant too
  std::optional<VariantPeer> peer;
};

// The bundled kernels of `family`, in the catalog's order; throws UsageError naming the families
// when there is no such family.
std::vector<const KernelDesc*> family_variants(const std::string& family);

// "8192x8192": the kernel's size parameters of `params`, in order, as --size writes them.
std::string size_text(const KernelDesc& kernel, const Params& params);

// "8192x8192" for the size parameters as `given` gives them ("" for none), or as the family's
// first variant has them by default; throws UsageError for a size the first variant cannot read.
std::string variant_sweep_size(const std::vector<const KernelDesc*>& variants,
                               const std::string& given);

// "m=4096 n=4096 k=4096": the sweep's size in the parameters' order.
std::string variant_sweep_size_words(const VariantSweep& sweep);

// Each variant at `size` and its own defaults through `run_one` (the engine, or the models); a
// variant that refuses the request, or whose run is refused, is listed with the reason.
// `progress` hears of each as it ends.
VariantSweep run_variant_sweep(const std::string& family, const std::string& size_text,
                               const std::function<RunResult(const KernelRequest&)>& run_one,
                               const std::function<void(const VariantPoint&)>& progress = {});

// A torch call recorded for this family at this size on the GPU named `device` (arch name, as
// cudaGetDeviceProperties says it), from `peers_file` (assets/peers.json); none where nothing
// matches. Throws UsageError naming the file and the key when the file is malformed.
std::optional<VariantPeer> recorded_peer(const std::filesystem::path& peers_file,
                                         const std::string& family, const Params& size,
                                         const std::string& device);

// The peer of a measured sweep: the family's library variant if it ran, else the recorded call
// for the GPU that measured the variants (`peers_file`), else none.
std::optional<VariantPeer> variant_peer(const VariantSweep& sweep,
                                        const std::filesystem::path& peers_file);

// "3.1640" ms, or "0.00312" for a time too short for four decimals: a variant's time as the
// table and the bars write it.
std::string variant_ms_text(double ms);

// "every variant of softmax", or "2 of the 7 variants of softmax" for a file that lists fewer.
std::string variants_shown_words(const VariantSweep& sweep);

// The peer's median over the variant's: 1 when as fast, in (0, 1) when slower. None when either
// has no time.
std::optional<double> share_of_peer(const VariantSweep& sweep, const VariantPoint& point);

// {"family", "size", "peer" (or null), "variants": [{"kernel", "title", "refused"} or
// {"kernel", "title", "result": run_json}]}
nlohmann::json variant_sweep_json(const VariantSweep& sweep);

// A variant sweep file as variant_sweep_json writes it, checked as any file that crosses a
// process is: its family bundled, each variant a kernel of it once, each result plausible for a
// launch a GPU can make and at the file's size. Throws UsageError "WHERE: KEY: what is wrong;
// what is allowed". `looks_like_variant_sweep` tells such a file from a block sweep's.
VariantSweep variant_sweep_from_json(const nlohmann::json& file, const std::string& where);
bool looks_like_variant_sweep(const nlohmann::json& file);

// One row per variant: kernel, title, block, status ("ran", "modelled" or "refused"), reason,
// then the figure table's median_time (ms), throughput (GB/s), compute (GFLOP/s), of_peer (the
// peer's speed over the variant's, in %; measured sweeps with a peer), modelled_time (ms), and
// verified.
std::string variant_sweep_csv(const VariantSweep& sweep);

} // namespace wl
