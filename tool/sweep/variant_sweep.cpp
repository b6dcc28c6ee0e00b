#include "sweep/variant_sweep.h"

#include "base/error.h"
#include "base/json_fields.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "model/block_text.h"
#include "protocol/run_result_json.h"
#include "registry.h"
#include "report/figures.h"
#include "report/run_report.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

namespace wl {
namespace {

using nlohmann::json;

// A peers file lists few calls; a bound keeps a hostile one from being read at length.
constexpr std::size_t kMaxRecordings = 64, kMaxCalls = 256;

Params size_params(const KernelDesc& kernel, const Params& params) {
  Params size;
  for (const ParamSpec& spec : kernel.params)
    if (spec.is_size)
      size[spec.name] = params.at(spec.name);
  return size;
}

bool measured(const VariantSweep& sweep) {
  return std::any_of(sweep.variants.begin(), sweep.variants.end(), [](const VariantPoint& p) {
    return p.result && p.result->timing && p.result->recorded_on.empty();
  });
}

// The GPU the variants were measured on, as cudaGetDeviceProperties names it.
std::string measuring_device(const VariantSweep& sweep) {
  for (const VariantPoint& p : sweep.variants)
    if (p.result && p.result->timing)
      return p.result->arch.name;
  return "";
}

// A peer's median time in ms: "median_time", the figure's key, or "median_ms" in files written
// before it was named so.
double peer_median(const Fields& peer) {
  if (peer.has("median_ms") && peer.has("median_time"))
    peer.fail("median_ms", "given beside median_time",
              "allowed one of the two (median_ms is its older name)");
  return peer.number(peer.has("median_ms") && !peer.has("median_time") ? "median_ms"
                                                                       : "median_time",
                     kAboveZero, 1e9);
}

std::optional<VariantPeer> peer_in_calls(const Fields& recording, const std::string& family,
                                         const Params& size) {
  for (const Fields& call : recording.objects("calls", kMaxCalls)) {
    call.only({"family", "call", "size", "median_time", "median_ms"}, "a recorded call");
    if (call.name("family", false) != family || call.integer_map("size", 0, kMaxInt64) != size)
      continue;
    return VariantPeer{call.name("call", false), peer_median(call),
                       "recorded on " + recording.name("device", false) + ", " +
                           recording.name("date", false) + " (" + recording.name("how", false) +
                           ")"};
  }
  return std::nullopt;
}

// Full precision: a CSV is read by programs, and a 3 us launch must not read 0.0000.
std::string csv_number(const std::optional<double>& value) {
  return value ? format("%.9g", *value) : "";
}

} // namespace

std::vector<const KernelDesc*> family_variants(const std::string& family) {
  std::vector<const KernelDesc*> variants = family_kernels(family);
  if (variants.empty()) {
    std::string names;
    for (const std::string& name : kernel_families())
      names += (names.empty() ? std::string() : ", ") + name;
    throw UsageError("--variants: '" + clip(family, 40) + "' is not a family of bundled kernels; " +
                     "allowed " + names);
  }
  return variants;
}

std::string size_text(const KernelDesc& kernel, const Params& params) {
  std::string text;
  for (const ParamSpec& spec : kernel.params)
    if (spec.is_size) {
      if (!text.empty())
        text += 'x';
      text += std::to_string(params.at(spec.name));
    }
  return text;
}

std::string variant_sweep_size(const std::vector<const KernelDesc*>& variants,
                               const std::string& given) {
  const KernelDesc& first = *variants.front();
  return size_text(first, resolve_kernel_request(first.id, {}, given, "").params);
}

std::string variant_sweep_size_words(const VariantSweep& sweep) {
  std::string words;
  for (const ParamSpec& spec : family_variants(sweep.family).front()->params)
    if (const auto value = sweep.size.find(spec.name); value != sweep.size.end())
      words +=
          (words.empty() ? std::string() : " ") + spec.name + "=" + std::to_string(value->second);
  return words;
}

VariantSweep run_variant_sweep(const std::string& family, const std::string& size_text,
                               const std::function<RunResult(const KernelRequest&)>& run_one,
                               const std::function<void(const VariantPoint&)>& progress) {
  const std::vector<const KernelDesc*> variants = family_variants(family);
  VariantSweep sweep{family, {}, {}, std::nullopt};
  const std::string size = variant_sweep_size(variants, size_text);
  for (const KernelDesc* kernel : variants) {
    VariantPoint point{kernel->id, kernel->title, "", std::nullopt};
    try {
      const KernelRequest request = resolve_kernel_request(kernel->id, {}, size, "");
      if (sweep.size.empty())
        sweep.size = size_params(*kernel, request.params);
      point.result = run_one(request);
    } catch (const UsageError& refusal) {
      point.refused = refusal.what();
      if (const std::string named = kernel->id + ": "; point.refused.starts_with(named))
        point.refused.erase(0, named.size()); // the variant's row names it already
    }
    if (progress)
      progress(point);
    sweep.variants.push_back(std::move(point));
  }
  return sweep;
}

std::optional<VariantPeer> recorded_peer(const std::filesystem::path& peers_file,
                                         const std::string& family, const Params& size,
                                         const std::string& device) {
  const json file = read_json_document(peers_file, "peers file", kMaxCalls);
  const Fields top(file, peers_file.filename().string());
  top.only({"recorded"}, "a peers file");
  for (const Fields& recording : top.objects("recorded", kMaxRecordings)) {
    recording.only({"device", "date", "how", "calls"}, "a recording of peers");
    if (recording.name("device", false) != device)
      continue;
    if (std::optional<VariantPeer> peer = peer_in_calls(recording, family, size))
      return peer;
  }
  return std::nullopt;
}

std::optional<VariantPeer> variant_peer(const VariantSweep& sweep,
                                        const std::filesystem::path& peers_file) {
  if (!measured(sweep))
    return std::nullopt;
  for (const VariantPoint& p : sweep.variants)
    if (p.result && p.result->kernel_kind == KernelKind::library && p.result->timing)
      return VariantPeer{p.kernel_id, p.result->timing->median_time,
                         "a library call, measured in this sweep"};
  return recorded_peer(peers_file, sweep.family, sweep.size, measuring_device(sweep));
}

std::string variant_ms_text(double ms) {
  return ms >= 0.01 || ms <= 0 ? format("%.4f", ms) : format("%.3g", ms);
}

std::string variants_shown_words(const VariantSweep& sweep) {
  const std::size_t all = family_variants(sweep.family).size();
  return sweep.variants.size() == all ? "every variant of " + sweep.family
                                      : std::to_string(sweep.variants.size()) + " of the " +
                                            std::to_string(all) + " variants of " + sweep.family;
}

std::optional<double> share_of_peer(const VariantSweep& sweep, const VariantPoint& point) {
  if (!sweep.peer || !point.result || !point.result->timing ||
      point.result->timing->median_time <= 0)
    return std::nullopt;
  return sweep.peer->median_time / point.result->timing->median_time;
}

json variant_sweep_json(const VariantSweep& sweep) {
  json variants = json::array();
  for (const VariantPoint& p : sweep.variants) {
    json v = {{"kernel", p.kernel_id}, {"title", p.title}};
    if (p.result)
      v["result"] = run_json(*p.result);
    else
      v["refused"] = p.refused;
    variants.push_back(std::move(v));
  }
  json peer = nullptr;
  if (sweep.peer)
    peer = {{"name", sweep.peer->name},
            {"median_time", sweep.peer->median_time},
            {"source", sweep.peer->source}};
  return {{"family", sweep.family}, {"size", sweep.size}, {"peer", peer}, {"variants", variants}};
}

bool looks_like_variant_sweep(const json& file) {
  return file.is_object() && file.contains("family") && file.contains("variants");
}

VariantSweep variant_sweep_from_json(const json& file, const std::string& where) {
  const Fields top(file, where);
  top.only({"family", "size", "peer", "variants"}, "a variant sweep file");
  VariantSweep sweep{top.name("family", false), top.integer_map("size", 0, kMaxInt64), {}, {}};
  std::vector<const KernelDesc*> kernels;
  try {
    kernels = family_variants(sweep.family);
  } catch (const UsageError&) {
    top.fail("family", "'" + clip(sweep.family, 40) + "' is not a family of bundled kernels",
             "allowed a family, as `warplens sweep FAMILY --variants` names it");
  }
  if (!top.raw().at("peer").is_null()) {
    const Fields peer = top.object("peer");
    peer.only({"name", "median_time", "median_ms", "source"}, "a peer");
    sweep.peer = VariantPeer{peer.name("name", false), peer_median(peer), peer.name("source")};
  }
  std::set<std::string> seen;
  for (const Fields& v : top.objects("variants", kMaxCalls)) {
    v.only({"kernel", "title", "refused", "result"}, "a variant");
    VariantPoint point{v.name("kernel", false), v.name("title"), "", std::nullopt};
    if (kernel_family(point.kernel_id) != sweep.family || !find_kernel(point.kernel_id))
      v.fail("kernel", "'" + clip(point.kernel_id, 40) + "' is not a variant of " + sweep.family,
             "allowed each variant of the family once");
    if (!seen.insert(point.kernel_id).second)
      v.fail("kernel", "'" + clip(point.kernel_id, 40) + "' is listed twice",
             "allowed each variant of the family once");
    if (v.has("refused"))
      point.refused = v.text("refused", false);
    else {
      point.result = run_result_from_json(v.at("result", "allowed a result, or \"refused\""),
                                          v.path("result"));
      if (point.result->kernel_id != point.kernel_id ||
          size_params(*find_kernel(point.kernel_id), point.result->params) != sweep.size)
        v.fail("result", "a run of " + clip(point.result->kernel_id, 40) + " at another size",
               "allowed a run of the variant named at the file's size");
    }
    sweep.variants.push_back(std::move(point));
  }
  if (sweep.variants.empty())
    top.fail("variants", "an empty list", "allowed one entry per variant of the family");
  if (sweep.peer && !measured(sweep)) // a model's floor is never set beside a measured time
    top.fail("peer", "a peer beside no measured variant",
             "allowed null where no variant was timed");
  return sweep;
}

std::string variant_sweep_csv(const VariantSweep& sweep) {
  std::string csv = "kernel,title,block,status,reason,median_time,throughput,compute,of_peer,"
                    "modelled_time,verified\n";
  for (const VariantPoint& p : sweep.variants) {
    csv += csv_quoted(p.kernel_id) + "," + csv_quoted(p.title) + ",";
    if (!p.result) {
      csv += ",refused," + csv_quoted(p.refused) + ",,,,,,\n";
      continue;
    }
    const RunResult& r = *p.result;
    const std::optional<double> share = share_of_peer(sweep, p);
    const auto when_timed = [&](double value) {
      return r.timing ? std::optional<double>(value) : std::nullopt;
    };
    csv += format_block(r.launch.block) + "," + (r.timing ? "ran" : "modelled") + ",," +
           csv_number(when_timed(r.timing ? r.timing->median_time : 0)) + "," +
           csv_number(when_timed(r.gbps())) + "," +
           csv_number(r.flops > 0 ? when_timed(r.gflops()) : std::nullopt) + "," +
           csv_number(share ? std::optional<double>(100 * *share) : std::nullopt) + "," +
           csv_number(figure_value(figure("modelled_time"), r)) + "," +
           (!r.verification          ? ""
            : r.verification->passed ? "yes"
                                     : "no") +
           "\n";
  }
  return csv;
}

} // namespace wl
