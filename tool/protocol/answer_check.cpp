#include "protocol/answer_check.h"

#include "base/error.h"
#include "base/json_fields.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "io/assets.h"
#include "kernel_file/file_kernel.h"
#include "model/block_text.h"
#include "model/kernel_request.h"
#include "model/kernel_source.h"
#include "registry.h"
#include "report/figures.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <set>

namespace wl {

namespace {

std::string number(double value) { return format("%.6g", value); }

// Every digit the value holds, as a file writes it: "524288.5", where number() says "524288",
// which would read as the whole count it is refused for not being.
std::string exact_number(double value) {
  char text[32];
  return std::string(text, std::to_chars(text, text + sizeof text, value).ptr);
}

// "n=4096 stride=2": every parameter a result names, the kernel's or not.
std::string params_text(const Params& params) {
  std::string text;
  for (const auto& [name, value] : params) // appended: GCC 12 warns wrongly on "" + clip(...)
    (((text += text.empty() ? "" : " ") += clip(name, 20)) += "=") += std::to_string(value);
  return text.empty() ? "none" : text;
}

// Equal up to the last bits a JSON round trip or another compiler's arithmetic may change.
bool same_figure(double a, double b) {
  return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b));
}

// The launch the result claims is the one its kernel makes: a bundled kernel (the same catalog on
// both sides: the worker's hello said so), its block allowed, its grid, dynamic shared memory,
// bytes and flops those the kernel's description gives for these parameters. Checked first: the
// other checks count on a block and grid of sane sizes.
void check_launch(const RunResult& r, const std::string& where) {
  const KernelDesc* kernel = find_kernel(r.kernel_id);
  if (!kernel)
    input_error(where, "kernel", "'" + clip(r.kernel_id, 40) + "' is not a bundled kernel",
                "allowed a kernel id (warplens list names them)");
  if (r.kernel_kind != kernel->kind)
    input_error(where, "kernel_kind", kernel_kind_name(r.kernel_kind),
                std::string("allowed ") + kernel_kind_name(kernel->kind) + " (" + kernel->id +
                    "'s kind)");
  try {
    check_kernel_request(KernelRequest{kernel, r.params, r.launch.block});
  } catch (const Error& e) { // the kernel's own words: what it allows
    throw UsageError(where + ": not a launch of " + kernel->id + ": " + e.what());
  }
  const LaunchShape launch = make_launch(*kernel, r.params, r.launch.block, r.arch.sm_count);
  if (!(launch.grid == r.launch.grid))
    input_error(where, "grid", format_sides(r.launch.grid) + " is not this launch's grid",
                "allowed " + format_sides(launch.grid) +
                    " (the kernel's for its parameters, block and SM count)");
  const std::int64_t dynamic_smem = dynamic_smem_bytes(*kernel, r.params, r.launch.block);
  if (r.dynamic_smem != dynamic_smem)
    input_error(where, "dynamic_shared_memory", std::to_string(r.dynamic_smem) + " bytes",
                "allowed " + std::to_string(dynamic_smem) + " (what this launch asks for)");
  const double bytes = kernel->bytes_moved(r.params);
  if (!same_figure(r.bytes_moved, bytes))
    input_error(where, "bytes_moved", number(r.bytes_moved) + " bytes",
                "allowed " + number(bytes) +
                    " (the kernel's inputs read and outputs written once)");
  const double flops = kernel->flops ? kernel->flops(r.params) : 0;
  if (!same_figure(r.flops, flops))
    input_error(where, "flops", number(r.flops), "allowed " + number(flops) + " (the kernel's)");
}

// A kernel file's run verifies only what its description checks: a file that says `check none`
// has no reference to compare with, so a result of it that passed a check was not made here.
void check_file_verification(const RunResult& r, const std::string& where) {
  const std::shared_ptr<const KernelFile> file = kernel_file_of(r.kernel_id);
  if (!file || !r.verification || !file->description.reference.empty() ||
      !r.verification->skipped.empty())
    return;
  input_error(where, "verification.passed",
              "a check of " + r.kernel_id + ", whose file says `check none`",
              "allowed a skipped check (its description names no reference to compare with)");
}

// The file a kernel's per-line figures lie in and its lines: a kernel file's own, or a bundled
// kernel's family file; nullopt where neither is known here.
std::optional<std::pair<std::string, int>> measured_file(const RunResult& r) {
  if (const std::shared_ptr<const KernelFile> file = kernel_file_of(r.kernel_id))
    return std::pair{file->path.filename().string(),
                     static_cast<int>(std::count(file->text.begin(), file->text.end(), '\n') + 1)};
  const KernelDesc* kernel = find_kernel(r.kernel_id);
  if (!kernel || kernel->kind != KernelKind::bundled)
    return std::nullopt;
  try {
    const FamilySource& source = family_source(*kernel);
    return std::pair{source.file, static_cast<int>(source.lines.size())};
  } catch (const Error&) {
    return std::nullopt;
  }
}

// Per-line figures lie on the file's lines: line 2,000,000,000 of a 12-line file is no line of
// it, and another file's name no place in it.
void check_file_lines(const RunResult& r, const std::string& where) {
  if (!r.site_counts || !r.site_counts->available)
    return;
  const std::optional<std::pair<std::string, int>> file = measured_file(r);
  if (!file)
    return;
  const SiteCounts& c = *r.site_counts;
  const std::string& name = file->first; // named: lambdas capture no structured binding in clang
  const int lines = file->second;
  if (c.file != name)
    input_error(where, "site_counts.file", "'" + clip(c.file, 60) + "'",
                "allowed the kernel file's name, '" + name + "'");
  const auto check_line = [&](int line, const std::string& key) {
    if (line < 0 || line > lines)
      input_error(where, key, "line " + std::to_string(line) + " of " + name,
                  "allowed 0 (none) to " + std::to_string(lines) + ", the file's lines");
  };
  for (std::size_t i = 0; i < c.instructions.size(); ++i)
    if (c.instructions[i].file == name)
      check_line(c.instructions[i].line,
                 "site_counts.instructions[" + std::to_string(i) + "].line");
  for (std::size_t i = 0; i < c.line_issues.size(); ++i)
    check_line(c.line_issues[i].line, "site_counts.line_issues[" + std::to_string(i) + "].line");
}

void check_attributes(const KernelAttributes& a, const Arch& arch, const std::string& where) {
  // A GPU runs SASS built for its own compute capability or an earlier one of its family, never
  // for a later one: an sm_90 binary on a GPU of compute capability 8.0 was not run there.
  const int device_version = arch.cc_major * 10 + arch.cc_minor;
  if (a.binary_version > device_version)
    input_error(where, "attributes.binary_version",
                format("%d (sm_%d) on a GPU of compute capability %d.%d", a.binary_version,
                       a.binary_version, arch.cc_major, arch.cc_minor),
                format("allowed at most %d (arch_details.compute_capability): no GPU runs a "
                       "binary built for a later one",
                       device_version));
  if (a.registers > arch.max_registers_per_thread)
    input_error(where, "attributes.registers", std::to_string(a.registers) + " per thread",
                "allowed at most arch_details.max_registers_per_thread, " +
                    std::to_string(arch.max_registers_per_thread));
  if (a.static_shared_bytes > arch.shared_memory_per_block)
    input_error(where, "attributes.static_shared_memory",
                std::to_string(a.static_shared_bytes) + " bytes",
                "allowed at most arch_details.shared_memory_per_block, " +
                    std::to_string(arch.shared_memory_per_block));
  if (a.max_threads_per_block > arch.max_threads_per_block)
    input_error(where, "attributes.max_threads_per_block", std::to_string(a.max_threads_per_block),
                "allowed at most arch_details.max_threads_per_block, " +
                    std::to_string(arch.max_threads_per_block));
}

// Blocks and warps per SM within what the GPU holds, and each figure the one the others make.
void check_occupancy(const RunResult& r, const std::string& where) {
  const OccupancyResult& o = *r.occupancy;
  const auto fail = [&](const char* key, long long value, const std::string& allowed) {
    input_error(where, std::string("occupancy.") + key,
                std::to_string(value) + " is impossible here", allowed);
  };
  const int warp = r.arch.warp_size;
  if (o.threads_per_block != r.launch.block.threads())
    fail("threads_per_block", o.threads_per_block,
         "allowed the block's " + std::to_string(r.launch.block.threads()));
  if (o.warps_per_block != (o.threads_per_block + warp - 1) / warp)
    fail("warps_per_block", o.warps_per_block,
         "allowed the block's threads in warps of " + std::to_string(warp));
  if (o.max_warps_per_sm != r.arch.max_warps_per_sm())
    fail("max_warps_per_sm", o.max_warps_per_sm,
         "allowed the GPU's " + std::to_string(r.arch.max_warps_per_sm()));
  if (o.blocks_per_sm > r.arch.max_blocks_per_sm)
    fail("blocks_per_sm", o.blocks_per_sm,
         "allowed at most arch_details.max_blocks_per_sm, " +
             std::to_string(r.arch.max_blocks_per_sm));
  if (r.runtime_blocks_per_sm > r.arch.max_blocks_per_sm)
    fail("runtime_blocks_per_sm", r.runtime_blocks_per_sm,
         "allowed at most arch_details.max_blocks_per_sm, " +
             std::to_string(r.arch.max_blocks_per_sm));
  if (o.warps_per_sm != o.blocks_per_sm * o.warps_per_block || o.warps_per_sm > o.max_warps_per_sm)
    fail("warps_per_sm", o.warps_per_sm,
         "allowed blocks_per_sm times warps_per_block, at most max_warps_per_sm");
  if (!same_figure(o.occupancy, static_cast<double>(o.warps_per_sm) / o.max_warps_per_sm))
    input_error(where, "occupancy.occupancy", number(o.occupancy) + " is impossible here",
                "allowed warps_per_sm over max_warps_per_sm");
  if (o.waves && (o.waves->grid_blocks != r.launch.grid.threads() ||
                  o.waves->blocks_per_wave != std::int64_t{o.blocks_per_sm} * r.arch.sm_count))
    input_error(where, "occupancy.waves", "blocks that are not the launch's",
                "allowed the grid's blocks, blocks_per_sm times the SM count a wave");
}

void check_timing(const RunResult& r, const std::string& where) {
  const TimingStats& t = *r.timing;
  if (t.max_time > kMaxPlausibleSampleMs)
    input_error(where, "timing.max_time", number(t.max_time) + " ms",
                "allowed at most " + number(kMaxPlausibleSampleMs) +
                    " ms (the longest timing budget a request may ask)");
  if (t.mean_time < t.min_time || t.mean_time > t.max_time)
    input_error(where, "timing.mean_time",
                number(t.mean_time) + " ms is outside min_time to max_time",
                "allowed a mean of the samples");
  // The samples' standard deviation is at most their range: a larger noise is no sample set's.
  const double most_noise = (t.max_time - t.min_time) / t.mean_time;
  if (t.noise > most_noise * (1 + 1e-9) + 1e-12)
    input_error(where, "timing.noise", number(t.noise) + " is wider than the samples' range",
                "allowed at most (max_time - min_time) / mean_time, " + number(most_noise));
  // The samples ran one after the other inside the wall time spent timing (5 % for the clocks):
  // their sum, samples times their mean, fits in it.
  if (t.seconds > 0 && t.samples * t.mean_time > 1.05 * t.seconds * 1e3 + 1)
    input_error(where, "timing.samples",
                std::to_string(t.samples) + " samples of " + number(t.mean_time) + " ms on average",
                "allowed what fits in timing.seconds, " + number(t.seconds) + " s");
  const auto check_clock = [&](const char* key, double mhz) {
    if (mhz != 0 && (mhz < kMinPlausibleClockMhz || mhz > kMaxPlausibleClockMhz))
      input_error(where, std::string("timing.") + key, number(mhz) + " MHz",
                  "allowed " + number(kMinPlausibleClockMhz) + " to " +
                      number(kMaxPlausibleClockMhz) + " MHz (no GPU's SM clock is outside them)");
  };
  check_clock("sm_clock_mhz", t.sm_clock_mhz.value_or(0));
  check_clock("default_clock_mhz", t.default_clock_mhz);
  if (r.gbps() > kMaxPlausibleGbps)
    input_error(where, "timing.median_time",
                number(t.median_time) + " ms moves " + number(r.bytes_moved) + " bytes at " +
                    number(r.gbps()) + " GB/s",
                "allowed at most " + number(kMaxPlausibleGbps) + " GB/s (no GPU is faster)");
  if (r.gflops() > kMaxPlausibleGflops)
    input_error(where, "timing.median_time",
                number(t.median_time) + " ms computes at " + number(r.gflops()) + " GFLOP/s",
                "allowed at most " + number(kMaxPlausibleGflops) + " GFLOP/s (no GPU is faster)");
}

void check_verification(const Verification& v, const std::string& where) {
  if (!v.skipped.empty() && (v.passed || v.checked > 0))
    input_error(where, "verification.skipped",
                "a skipped check that compared " + std::to_string(v.checked) + " values",
                "allowed a reason only where nothing was compared");
  if (v.passed != (v.checked > 0 && v.mismatches == 0))
    input_error(where, "verification.passed",
                format("%s with %lld mismatches in %lld values checked",
                       v.passed ? "true" : "false", static_cast<long long>(v.mismatches),
                       static_cast<long long>(v.checked)),
                "allowed true exactly when values were checked and none mismatched");
  if (v.passed && !(std::isfinite(v.max_abs_error) && std::isfinite(v.max_rel_error)))
    input_error(where, "verification.max_abs_error", "an unbounded error in a passed check",
                "allowed finite errors within the tolerance");
}

// A counter that counts events (requests, sectors, instructions, bytes) is a whole number; the
// others are averages (cycles, warps per cycle), percentages or sums of times.
bool counts_events(const Figure& f) {
  for (std::string_view unit :
       {"requests", "sectors", "wavefronts", "bytes", "warp instructions", "thread instructions"})
    if (f.unit == unit)
      return true;
  return false;
}

// A percentage counter is a ratio of two counters, each counted on its own: the H200 gave an L2
// hit rate of 100.012 % (its hits and lookups counted apart). A little over 100 is what the
// hardware says, shown as it is; far over is no counter's.
constexpr double kMaxCounterPercent = 101;

void check_counters(const CounterResult& c, const std::string& where) {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < c.values.size(); ++i) {
    const CounterValue& v = c.values[i];
    const std::string key = "counters.values[" + std::to_string(i) + "]";
    const Figure* f = find_figure(v.key);
    if (!f || !f->counter)
      input_error(where, key + ".key", "'" + clip(v.key, 40) + "' is no counter",
                  "allowed a counter of the figure table");
    if (!seen.insert(v.key).second)
      input_error(where, key + ".key", "'" + v.key + "' a second time",
                  "allowed each counter once");
    if (!(v.value >= 0))
      input_error(where, key + ".value", number(v.value) + " " + v.key + " is negative",
                  "allowed 0 or more");
    if (f->unit == "%" && v.value > kMaxCounterPercent)
      input_error(where, key + ".value", number(v.value) + " % " + v.key,
                  "allowed 0 to " + number(kMaxCounterPercent) + " %");
    if (f->unit == "ns" && v.value > kMaxPlausibleSampleMs * 1e6)
      input_error(where, key + ".value", number(v.value) + " ns " + v.key,
                  "allowed at most " + number(kMaxPlausibleSampleMs * 1e6) +
                      " ns (the longest timing budget a request may ask)");
    if (counts_events(*f) && v.value != std::floor(v.value))
      input_error(where, key + ".value",
                  exact_number(v.value) + " " + v.key + " is not a whole count",
                  "allowed a whole number of " + std::string(f->unit));
  }
}

// A counter's value, or nullopt where the result has none.
std::optional<double> counter_value(const CounterResult& c, const char* key) {
  const CounterValue* v = c.find(key);
  return v ? std::optional(v->value) : std::nullopt;
}

// How long the launch ran, in ns: the counters' profiled range, else the timed median.
std::optional<double> launch_ns(const RunResult& r) {
  if (r.counters)
    if (const auto ns = counter_value(*r.counters, "profiled_range_time"); ns && *ns > 0)
      return ns;
  if (r.timing && r.timing->median_time > 0)
    return r.timing->median_time * 1e6;
  return std::nullopt;
}

// A count over the launch's time at a rate no GPU reaches is refused: 2^60 sectors in 0.06 ms.
void check_rate(const std::string& where, const std::string& key, double count, double ns,
                double most_per_ns, const std::string& what) {
  if (count / ns > most_per_ns)
    input_error(where, key,
                number(count) + " " + what + " in " + number(ns) + " ns, " + number(count / ns) +
                    " a nanosecond",
                "allowed at most " + number(most_per_ns) + " a nanosecond (no GPU is faster)");
}

// Counters that bound each other or the launch's time: no warp instruction runs more than 32
// lanes, and L1, DRAM, the shared-memory pipe and the schedulers move at most so much a
// nanosecond.
void check_counter_relations(const RunResult& r, const std::string& where) {
  const CounterResult& c = *r.counters;
  const auto warp = counter_value(c, "warp_instructions");
  const auto threads = counter_value(c, "thread_instructions");
  if (warp && threads && *threads > 32 * *warp)
    input_error(where, "counters.thread_instructions",
                number(*threads) + " thread instructions for " + number(*warp) +
                    " warp instructions",
                "allowed at most 32 a warp instruction (a warp has 32 lanes)");
  // An executed global load or store has a lane on (one with none is issued, not executed), and
  // that lane's bytes lie in a sector: at least one sector an instruction.
  for (const char* op : {"load", "store"}) {
    const auto instructions =
        counter_value(c, ("global_" + std::string(op) + "_instructions").c_str());
    const auto sectors = counter_value(c, ("global_" + std::string(op) + "_sectors").c_str());
    if (instructions && sectors && *sectors < *instructions)
      input_error(where, "counters.global_" + std::string(op) + "_sectors",
                  number(*sectors) + " sectors for " + number(*instructions) + " global " + op +
                      " instructions",
                  "allowed at least one sector an instruction (an executed access has a lane on)");
  }
  const std::optional<double> ns = launch_ns(r);
  if (!ns)
    return;
  const auto rate = [&](const char* key, double per_ns, double scale, const std::string& what) {
    if (const auto value = counter_value(c, key))
      check_rate(where, std::string("counters.") + key, *value * scale, *ns, per_ns, what);
  };
  for (const char* key : {"global_load_sectors", "global_store_sectors", "l2_read_sectors_from_l1",
                          "l2_write_sectors_from_l1"})
    rate(key, kMaxPlausibleL1Gbps, 32, "bytes of 32-byte sectors");
  for (const char* key : {"dram_read_bytes", "dram_write_bytes"})
    rate(key, kMaxPlausibleGbps, 1, "bytes");
  for (const char* key : {"shared_load_wavefronts", "shared_store_wavefronts"})
    rate(key, kMaxPlausibleWavefrontsPerNs, 1, "wavefronts");
  for (const char* key :
       {"warp_instructions", "global_load_instructions", "global_store_instructions",
        "shared_load_instructions", "shared_store_instructions"})
    rate(key, kMaxPlausibleWarpInstructionsPerNs, 1, "warp instructions");
}

// An instruction's or a site's counts: a warp's access is at most 32 lanes and each lane's bytes
// lie in one sector; a shared access takes at worst a wavefront a lane (the shipped recordings
// reach 32 of each exactly), save the shared half of a cp.async (LDGSTS), whose wavefronts also
// follow the global lines it reads, and so are not bounded here.
template <typename Counts>
void check_per_execution(const Counts& m, const std::string& key, const std::string& where,
                         bool async_copy) {
  for (const auto& [name, value] :
       {std::pair{"lanes", m.lanes}, {"sectors", m.sectors}, {"wavefronts", m.wavefronts}})
    if (value > 32 * m.executed * (1 + 1e-9) && !(async_copy && name == std::string("wavefronts")))
      input_error(where, key + "." + name,
                  number(value) + " " + name + " for " + number(m.executed) + " executions",
                  "allowed at most 32 an execution (a warp has 32 lanes)");
}

// The per-site figures likewise: at most 32 an execution, sectors and wavefronts at rates a GPU
// reaches.
void check_site_rates(const RunResult& r, const std::string& where) {
  const std::optional<double> ns = launch_ns(r);
  const SiteCounts& c = *r.site_counts;
  for (std::size_t i = 0; i < c.sites.size(); ++i) {
    const std::vector<std::size_t>& own = c.sites[i].instructions;
    const bool async_copy = std::any_of(own.begin(), own.end(), [&](std::size_t k) {
      return k < c.instructions.size() && c.instructions[k].async_copy;
    });
    check_per_execution(c.sites[i], "site_counts.sites[" + std::to_string(i) + "]", where,
                        async_copy);
  }
  for (std::size_t i = 0; i < c.instructions.size(); ++i) {
    const MeasuredInstruction& m = c.instructions[i];
    const std::string key = "site_counts.instructions[" + std::to_string(i) + "]";
    check_per_execution(m, key, where, m.async_copy);
    if (ns) {
      check_rate(where, key + ".sectors", m.sectors * 32, *ns, kMaxPlausibleL1Gbps,
                 "bytes of 32-byte sectors");
      check_rate(where, key + ".wavefronts", m.wavefronts, *ns, kMaxPlausibleWavefrontsPerNs,
                 "wavefronts");
      check_rate(where, key + ".executed", m.executed, *ns, kMaxPlausibleWarpInstructionsPerNs,
                 "warp instructions");
    }
  }
}

} // namespace

void check_plausible(const RunResult& r, const std::string& where) {
  check_launch(r, where);
  if (r.attributes)
    check_attributes(*r.attributes, r.arch, where);
  if (r.occupancy)
    check_occupancy(r, where);
  if (r.timing)
    check_timing(r, where);
  if (r.verification)
    check_verification(*r.verification, where);
  if (r.counters) {
    check_counters(*r.counters, where);
    check_counter_relations(r, where);
  }
  if (r.site_counts && r.site_counts->available)
    check_site_rates(r, where);
  if (r.kernel_kind == KernelKind::run_time)
    check_file_verification(r, where);
  check_file_lines(r, where);
}

namespace {

// What a request asks of a result beyond its launch: refused with `at` leading the reason.
[[noreturn]] void not_asked(const std::string& at, const std::string& why) {
  throw UsageError(at + why);
}

// The arch id a model request's `arch` names: device:N for a device; a preset's id for an id or
// alias; empty (not checked) for a .json path or a preset this side does not have.
std::string arch_id_asked(const std::string& spec) {
  if (spec == "device")
    return "device:0";
  if (spec.starts_with("device:"))
    return spec;
  if (is_preset_path(spec))
    return "";
  try {
    return find_arch(load_arch_presets(assets_dir() / "arch"), spec).id;
  } catch (const Error&) {
    return "";
  }
}

// The result's launch is the one asked for, on the GPU asked for.
void check_launch_asked(const WorkerRequest& asked, const RunResult& r, const KernelRequest& launch,
                        const std::string& at) {
  if (r.kernel_id != asked.kernel_id)
    not_asked(at, "kernel " + clip(r.kernel_id, 40) + " where " + asked.kernel_id + " was asked");
  if (!(r.launch.block == launch.block))
    not_asked(at, "block " + format_sides(r.launch.block) + " where " + format_sides(launch.block) +
                      " was asked");
  if (r.params != launch.params)
    not_asked(at, "parameters " + params_text(r.params) + " where " + params_text(launch.params) +
                      " were asked");
  const std::string arch = asked.type == RequestType::model
                               ? arch_id_asked(asked.arch)
                               : "device:" + std::to_string(asked.engine.device);
  if (!arch.empty() && r.arch.id != arch)
    not_asked(at, "arch " + clip(r.arch.id, 40) + " where " + arch + " was asked");
}

// A model measures nothing; a run or a sweep's point has a timing and what else was asked, none of
// it longer than the request's budget.
void check_parts_asked(const WorkerRequest& asked, double budget_seconds, const RunResult& r,
                       const std::string& at) {
  if (asked.type == RequestType::model) {
    if (r.timing || r.verification || r.counters || r.site_counts || r.stalls || r.energy)
      not_asked(at, "measured figures where a model was asked (a model measures nothing)");
    return;
  }
  if (!r.timing)
    not_asked(at, "no timing where a measurement was asked");
  if (asked.engine.verify && !r.verification)
    not_asked(at, "no verification where one was asked");
  if (!asked.engine.metrics.empty() && !r.counters)
    not_asked(at, "no counters where '" + asked.engine.metrics + "' were asked");
  if (asked.engine.per_site && !r.site_counts)
    not_asked(at, "no per-site figures where they were asked");
  if (asked.engine.stalls && !r.stalls)
    not_asked(at, "no stall samples where they were asked");
  if (!asked.engine.stalls && r.stalls)
    not_asked(at, "stall samples where none were asked");
  if (asked.engine.energy && !r.energy)
    not_asked(at, "no energy where it was asked");
  if (!asked.engine.energy && r.energy)
    not_asked(at, "energy where none was asked");
  if (r.energy && r.energy->seconds > budget_seconds)
    not_asked(at, format("an energy batch of %s s, longer than the request's %g s budget",
                         number(r.energy->seconds).c_str(), budget_seconds));
  const double budget_ms = budget_seconds * 1e3;
  const TimingStats& t = *r.timing;
  if (t.max_time > budget_ms || t.samples * t.min_time > budget_ms || t.seconds > budget_seconds)
    not_asked(at, format("a timing of %d samples up to %s ms in %s s, longer than the request's "
                         "%g s budget",
                         t.samples, number(t.max_time).c_str(), number(t.seconds).c_str(),
                         budget_seconds));
  if (r.counters)
    for (const CounterValue& v : r.counters->values)
      if (const Figure* f = find_figure(v.key); f && f->unit == "ns" && v.value > budget_ms * 1e6)
        not_asked(at, format("a %s of %s ns, longer than the request's %g s budget", v.key.c_str(),
                             number(v.value).c_str(), budget_seconds));
  if ((r.verification && r.verification->seconds > budget_seconds) ||
      (r.counters && r.counters->seconds > budget_seconds))
    not_asked(at, format("a verification or counters longer than the request's %g s budget",
                         budget_seconds));
}

void check_result_answer(const WorkerRequest& asked, double budget_seconds, const RunResult& r,
                         const KernelRequest& launch, const std::string& at) {
  check_launch_asked(asked, r, launch, at);
  check_parts_asked(asked, budget_seconds, r, at);
}

std::string grid_words(const SweepGrid& grid, std::size_t sets) {
  return counted(grid.shapes.size(), "shape") +
         (sets > 1 ? " times " + counted(sets, "parameter set") : std::string());
}

// "point 4 (n=4096 stride=2 block 64x1x1): "
std::string point_name(std::size_t index, const KernelRequest& launch, const Params& params,
                       const BlockShape& block) {
  return "point " + std::to_string(index + 1) + " (" + format_params(*launch.kernel, params) +
         " block " + format_sides(block) + "): ";
}

void check_sweep_answer(const WorkerRequest& asked, double budget_seconds,
                        const std::vector<SweepPoint>& points, const KernelRequest& launch) {
  const SweepGrid grid{asked.shapes, asked.param_axes};
  const std::vector<Params> sets = param_sets(launch.params, grid, kMaxSweepShapesLimit);
  if (points.size() != grid.points())
    not_asked("", std::to_string(points.size()) + " points where " + std::to_string(grid.points()) +
                      " were asked (" + grid_words(grid, sets.size()) + ")");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& p = points[i];
    const Params& params = sets[i / grid.shapes.size()];
    const BlockShape& block = grid.shapes[i % grid.shapes.size()];
    const std::string at = point_name(i, launch, params, block);
    if (!(p.block == block))
      not_asked(at,
                "block " + format_sides(p.block) + " where " + format_sides(block) + " was asked");
    if (p.params != params)
      not_asked(at, "parameters " + params_text(p.params) + " where " + params_text(params) +
                        " were asked");
    if (p.result)
      check_result_answer(asked, budget_seconds, *p.result,
                          KernelRequest{launch.kernel, params, block}, at);
  }
}

// The launch a request names, as this side resolves it.
KernelRequest launch_asked(const WorkerRequest& asked) {
  try {
    return request_kernel(asked);
  } catch (const Error& e) {
    not_asked("", "an answer to a request this side refuses (" + clip(e.what(), 120) + ")");
  }
}

// A run's timed part (a progress line's result): the launch asked, timed and verified as asked,
// and nothing of what only the answer brings (counters, per-site figures, stall samples).
void check_timed_part(const WorkerRequest& asked, double budget_seconds, const RunResult& part) {
  const std::string at = "its timed part: ";
  if (asked.type != RequestType::run)
    not_asked(at,
              std::string("a timed part where a ") + request_type_name(asked.type) + " was asked");
  if (part.counters || part.site_counts || part.stalls || part.energy)
    not_asked(at, "counters, per-site figures, stall samples or energy, which only the answer may "
                  "bring");
  const KernelRequest launch = launch_asked(asked);
  WorkerRequest timed = asked;
  timed.engine.metrics.clear();
  timed.engine.per_site = false;
  timed.engine.stalls = false;
  timed.engine.energy = false;
  check_result_answer(timed, budget_seconds, part, launch, at);
}

} // namespace

void check_answer(const WorkerRequest& asked, double budget_seconds, const WorkerResponse& answer) {
  const bool sweep = asked.type == RequestType::sweep;
  const bool result = asked.type == RequestType::model || asked.type == RequestType::run;
  if (answer.type == ResponseType::progress && answer.result)
    return check_timed_part(asked, budget_seconds, *answer.result);
  if (answer.type != ResponseType::result && answer.type != ResponseType::sweep)
    return;
  const std::string kind = std::string("a ") + request_type_name(asked.type);
  if ((answer.type == ResponseType::sweep && !sweep) ||
      (answer.type == ResponseType::result && !result))
    not_asked("", std::string("a ") + response_type_name(answer.type) + " where " + kind +
                      " was asked");
  const KernelRequest launch = launch_asked(asked);
  if (sweep)
    check_sweep_answer(asked, budget_seconds, *answer.sweep, launch);
  else
    check_result_answer(asked, budget_seconds, *answer.result, launch, "");
}

namespace {

// The result with this side's prediction of its launch, and its per-site comparison made again
// from the worker's measured instructions and that prediction.
std::shared_ptr<const RunResult> with_own_model(const RunResult& worker,
                                                const ModelBudget& budget) {
  const KernelDesc& kernel = *find_kernel(worker.kernel_id); // check_plausible found it
  auto own = std::make_shared<RunResult>(worker);
  own->prediction = predict_launch(kernel, own->launch, budget);
  if (own->site_counts && own->site_counts->available) {
    const SiteCounts& measured = *worker.site_counts;
    SiteCounts again =
        kernel.kind == KernelKind::run_time
            ? attribute_lines(measured.file, measured.instructions, measured.line_issues,
                              own->prediction)
            : attribute_sites(kernel, own->params, own->prediction, measured.instructions);
    again.function = measured.function;
    again.seconds = measured.seconds;
    own->site_counts = std::move(again);
  }
  return own;
}

} // namespace

WorkerResponse with_own_model(const WorkerRequest& asked, WorkerResponse answer) {
  // The budget the worker modelled with: its reader takes 0 ("all") for the most a request may ask.
  ModelBudget budget = asked.engine.model;
  if (budget.max_evaluations == 0)
    budget.max_evaluations = kMaxModelEvaluations;
  if (answer.result)
    answer.result = with_own_model(*answer.result, budget);
  if (answer.sweep) {
    auto points = std::make_shared<std::vector<SweepPoint>>(*answer.sweep);
    for (SweepPoint& point : *points)
      if (point.result)
        point.result = *with_own_model(*point.result, budget);
    answer.sweep = std::move(points);
  }
  return answer;
}

} // namespace wl
