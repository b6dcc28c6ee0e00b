// A RunResult across the worker protocol: written by run_json (the same object `warplens run
// --json` prints) and read back here into the same plain values.

#include "protocol.h"

#include "error.h"
#include "run_report.h"

#include <nlohmann/json.hpp>

namespace wl {

namespace {

using nlohmann::json;

BlockShape shape_from(const json& sides) {
  return BlockShape{sides.at(0).get<int>(), sides.at(1).get<int>(), sides.at(2).get<int>()};
}

// Trusted data from our own worker, so no range checks: a device's own figures may fall outside
// what a preset file is allowed to say (arch_from_json is for files people write).
Arch arch_from(const json& j) {
  Arch a;
  a.id = j.at("id").get<std::string>();
  a.name = j.at("name").get<std::string>();
  a.aliases = j.at("aliases").get<std::vector<std::string>>();
  const std::string cc = j.at("compute_capability").get<std::string>();
  const std::size_t dot = cc.find('.');
  if (dot == std::string::npos) throw UsageError("compute_capability '" + cc + "' is not MAJOR.MINOR");
  a.cc_major = std::stoi(cc.substr(0, dot));
  a.cc_minor = std::stoi(cc.substr(dot + 1));
  a.sm_count = j.at("sm_count").get<int>();
  a.warp_size = j.at("warp_size").get<int>();
  a.max_threads_per_sm = j.at("max_threads_per_sm").get<int>();
  a.max_threads_per_block = j.at("max_threads_per_block").get<int>();
  a.max_block_dims = j.at("max_block_dims").get<std::array<int, 3>>();
  a.max_blocks_per_sm = j.at("max_blocks_per_sm").get<int>();
  a.registers_per_sm = j.at("registers_per_sm").get<int>();
  a.registers_per_block = j.at("registers_per_block").get<int>();
  a.max_registers_per_thread = j.at("max_registers_per_thread").get<int>();
  a.shared_memory_per_sm = j.at("shared_memory_per_sm").get<std::int64_t>();
  a.shared_memory_per_block = j.at("shared_memory_per_block").get<std::int64_t>();
  a.shared_memory_per_block_optin = j.at("shared_memory_per_block_optin").get<std::int64_t>();
  a.reserved_shared_memory_per_block = j.at("reserved_shared_memory_per_block").get<std::int64_t>();
  a.l2_cache_bytes = j.at("l2_cache_bytes").get<std::int64_t>();
  a.dram_bandwidth_gbps = j.at("dram_bandwidth_gbps").get<double>();
  a.source = j.at("source").get<std::string>();
  return a;
}

KernelAttributes attributes_from(const json& j) {
  KernelAttributes a;
  a.source = j.at("source").get<std::string>();
  a.registers = j.at("registers").get<int>();
  a.static_shared_bytes = j.at("static_shared_memory").get<std::int64_t>();
  a.local_bytes = j.at("local_bytes_per_thread").get<std::int64_t>();
  a.max_threads_per_block = j.at("max_threads_per_block").get<int>();
  a.ptx_version = j.at("ptx_version").get<int>();
  a.binary_version = j.at("binary_version").get<int>();
  return a;
}

Resource resource_from(const std::string& name) {
  for (Resource resource : kAllResources)
    if (name == resource_name(resource)) return resource;
  throw UsageError("unknown occupancy resource '" + name + "'");
}

OccupancyResult occupancy_from(const json& j) {
  OccupancyResult o;
  o.threads_per_block = j.at("threads_per_block").get<int>();
  o.warps_per_block = j.at("warps_per_block").get<int>();
  o.blocks_per_sm = j.at("blocks_per_sm").get<int>();
  o.warps_per_sm = j.at("warps_per_sm").get<int>();
  o.max_warps_per_sm = j.at("max_warps_per_sm").get<int>();
  o.occupancy = j.at("occupancy").get<double>();
  for (Resource resource : kAllResources) {
    const json& limit = j.at("limits").at(resource_name(resource));
    o.limits[static_cast<int>(resource)] = limit.is_null() ? kUnlimited : limit.get<int>();
  }
  for (const json& name : j.at("limiters")) o.limiters.push_back(resource_from(name.get<std::string>()));
  o.allocated_registers_per_block = j.at("allocated_registers_per_block").get<int>();
  o.allocated_shared_memory_per_block = j.at("allocated_shared_memory_per_block").get<std::int64_t>();
  o.shared_memory_per_sm_configured = j.at("shared_memory_per_sm_configured").get<std::int64_t>();
  o.explanation = j.at("explanation").get<std::string>();
  if (j.contains("waves")) {
    const json& w = j.at("waves");
    o.waves = Waves{w.at("grid_blocks").get<std::int64_t>(), w.at("blocks_per_wave").get<std::int64_t>(),
                    w.at("waves").get<double>(),             w.at("full_waves").get<std::int64_t>(),
                    w.at("tail_blocks").get<std::int64_t>(), w.at("tail_fill").get<double>()};
  }
  return o;
}

TimingStats timing_from(const json& j) {
  TimingStats t;
  t.samples = j.at("samples").get<int>();
  t.median_ms = j.at("median_ms").get<double>();
  t.min_ms = j.at("min_ms").get<double>();
  t.max_ms = j.at("max_ms").get<double>();
  t.mean_ms = j.at("mean_ms").get<double>();
  t.noise = j.at("noise").get<double>();
  t.converged = j.at("converged").get<bool>();
  t.l2_flushed = j.at("l2_flushed").get<bool>();
  t.seconds = j.value("seconds", 0.0);
  return t;
}

Verification verification_from(const json& j) {
  Verification v;
  v.passed = j.at("passed").get<bool>();
  v.checked = j.at("checked").get<std::int64_t>();
  v.mismatches = j.at("mismatches").get<std::int64_t>();
  v.max_abs_error = j.at("max_abs_error").get<double>();
  v.max_rel_error = j.at("max_rel_error").get<double>();
  v.first_failure = j.at("first_failure").get<std::string>();
  v.note = j.at("note").get<std::string>();
  v.seconds = j.value("seconds", 0.0);
  return v;
}

CounterResult counters_from(const json& j) {
  CounterResult c;
  c.available = j.at("available").get<bool>();
  c.reason = j.at("reason").get<std::string>();
  c.chip = j.at("chip").get<std::string>();
  c.passes = j.at("passes").get<int>();
  c.seconds = j.at("seconds").get<double>();
  for (const json& v : j.at("values"))
    c.values.push_back(CounterValue{v.at("key").get<std::string>(), v.at("name").get<std::string>(),
                                    v.at("display").get<std::string>(), v.at("unit").get<std::string>(),
                                    v.at("value").get<double>()});
  c.missing = j.at("missing").get<std::vector<std::string>>();
  return c;
}

SitePrediction site_from(const json& j) {
  SitePrediction s;
  s.name = j.at("name").get<std::string>();
  s.space = j.at("space").get<std::string>() == "shared" ? MemorySpace::shared : MemorySpace::global;
  s.op = j.at("op").get<std::string>() == "store" ? AccessOp::store : AccessOp::load;
  s.width = j.at("width").get<int>();
  s.requests = j.at("requests").get<std::int64_t>();
  s.sectors = j.at("sectors").get<std::int64_t>();
  s.ideal_sectors = j.at("ideal_sectors").get<std::int64_t>();
  s.bytes_used = j.at("bytes_used").get<std::int64_t>();
  s.bytes_fetched = j.at("bytes_fetched").get<std::int64_t>();
  s.wavefronts = j.at("wavefronts").get<std::int64_t>();
  s.ideal_wavefronts = j.at("ideal_wavefronts").get<std::int64_t>();
  s.excess_wavefronts = j.at("excess_wavefronts").get<std::int64_t>();
  s.conflict_degree = j.at("conflict_degree").get<int>();
  s.exact = j.at("exact").get<bool>();
  return s;
}

RunResult result_from(const json& j) {
  RunResult r;
  r.kernel_id = j.at("kernel").get<std::string>();
  r.params = j.at("params").get<Params>();
  r.launch = LaunchShape{shape_from(j.at("grid")), shape_from(j.at("block")), r.params};
  r.dynamic_smem = j.at("dynamic_shared_memory").get<std::int64_t>();
  r.arch = arch_from(j.at("arch_details"));
  r.bytes_moved = j.at("bytes_moved").get<double>();
  r.flops = j.at("flops").get<double>();
  if (j.contains("attributes")) r.attributes = attributes_from(j.at("attributes"));
  if (j.contains("occupancy")) {
    r.occupancy = occupancy_from(j.at("occupancy"));
    r.runtime_blocks_per_sm = j.at("occupancy").value("runtime_blocks_per_sm", -1);
  }
  if (j.contains("timing")) r.timing = timing_from(j.at("timing"));
  if (j.contains("verification")) r.verification = verification_from(j.at("verification"));
  if (j.contains("counters")) r.counters = counters_from(j.at("counters"));
  for (const json& site : j.at("sites")) r.prediction.sites.push_back(site_from(site));
  r.prediction.warp_iterations = j.at("model_warp_iterations").get<std::int64_t>();
  r.prediction.warp_iterations_evaluated = j.at("model_warp_iterations_evaluated").get<std::int64_t>();
  r.prediction.seconds = j.at("model_seconds").get<double>();
  return r;
}

} // namespace

json run_result_to_json(const RunResult& result) { return run_json(result); }

RunResult run_result_from_json(const json& j) {
  try {
    return result_from(j);
  } catch (const json::exception& e) {
    throw UsageError(std::string("result from the worker is incomplete: ") + e.what());
  } catch (const std::logic_error& e) { // std::stoi on a malformed compute capability
    throw UsageError(std::string("result from the worker is malformed: ") + e.what());
  }
}

} // namespace wl
