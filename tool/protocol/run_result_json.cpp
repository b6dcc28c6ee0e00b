// A RunResult across the worker protocol and in files (recordings, sweeps): written by run_json
// (the same object `warplens run --json` prints) and read back here into the same plain values.
// Every key goes through the checked helpers of json_fields.h, and the result read is then held
// to what a launch on a GPU can produce (check_plausible, answer_check.h): a median of 1e300 ms,
// 9999 blocks per SM or a verification that passed with mismatches are refused, never shown.

#include "protocol/run_result_json.h"

#include "base/error.h"
#include "base/json_fields.h"
#include "protocol/answer_check.h"
#include "report/energy_report.h"
#include "report/figures.h"
#include "report/run_report.h"
#include "report/site_report.h"
#include "report/stall_report.h"

#include <algorithm>
#include <array>
#include <limits>
#include <string_view>

namespace wl {

namespace {

using nlohmann::json;

BlockShape shape_from(const Fields& f, const char* key) {
  const std::vector<std::int64_t> sides = f.integers(key, 3, 3, 1, kMaxInt);
  return BlockShape{static_cast<int>(sides[0]), static_cast<int>(sides[1]),
                    static_cast<int>(sides[2])};
}

int count(const Fields& f, const char* key, std::int64_t min = 0) {
  return static_cast<int>(f.integer(key, min, kMaxInt));
}
std::int64_t amount(const Fields& f, const char* key) { return f.integer(key, 0, kMaxInt64); }
double measure(const Fields& f, const char* key) { return f.number(key, 0, kMaxDouble); }

// JSON has no infinity: an error that overflowed was written as null.
double error_figure(const Fields& f, const char* key) {
  return f.has(key) && f.at(key, "").is_null() ? std::numeric_limits<double>::infinity()
                                               : measure(f, key);
}

// null: not known (a model's attributes come from ptxas, which says nothing of these).
int known_count(const Fields& f, const char* key) {
  return f.has(key) && f.at(key, "").is_null() ? 0 : count(f, key);
}

KernelAttributes attributes_from(const Fields& f) {
  return KernelAttributes{f.text("source"),
                          count(f, "registers"),
                          amount(f, "static_shared_memory"),
                          amount(f, "local_bytes_per_thread"),
                          known_count(f, "max_threads_per_block"),
                          known_count(f, "ptx_version"),
                          known_count(f, "binary_version")};
}

std::optional<Waves> waves_from(const Fields& f) {
  if (!f.has("waves"))
    return std::nullopt;
  const Fields w = f.object("waves");
  return Waves{amount(w, "grid_blocks"), amount(w, "blocks_per_wave"), measure(w, "waves"),
               amount(w, "full_waves"),  amount(w, "tail_blocks"),     w.number("tail_fill", 0, 1)};
}

OccupancyResult occupancy_from(const Fields& f) {
  OccupancyResult o;
  o.threads_per_block = count(f, "threads_per_block", 1);
  o.warps_per_block = count(f, "warps_per_block", 1);
  o.blocks_per_sm = count(f, "blocks_per_sm");
  o.warps_per_sm = count(f, "warps_per_sm");
  o.max_warps_per_sm = count(f, "max_warps_per_sm", 1);
  o.occupancy = f.number("occupancy", 0, 1);
  const Fields limits = f.object("limits");
  for (Resource resource : kAllResources) {
    const char* name = resource_name(resource);
    const bool unlimited = limits.has(name) && limits.at(name, "").is_null();
    o.limits[static_cast<int>(resource)] = unlimited ? kUnlimited : count(limits, name);
  }
  const json& limiters = f.list("limiters", kAllResources.size());
  for (std::size_t i = 0; i < limiters.size(); ++i) {
    const auto known =
        std::find_if(kAllResources.begin(), kAllResources.end(), [&](Resource resource) {
          return limiters[i].is_string() &&
                 limiters[i].get_ref<const std::string&>() == resource_name(resource);
        });
    if (known == kAllResources.end())
      f.fail("limiters[" + std::to_string(i) + "]", describe(limiters[i]) + " is not a resource",
             "allowed warps, registers, shared_memory, blocks, barriers");
    o.limiters.push_back(*known);
  }
  o.allocated_registers_per_block = count(f, "allocated_registers_per_block");
  o.allocated_shared_memory_per_block = amount(f, "allocated_shared_memory_per_block");
  o.shared_memory_per_sm_configured = amount(f, "shared_memory_per_sm_configured");
  o.explanation = f.text("explanation");
  o.waves = waves_from(f);
  return o;
}

// An SM clock above this is no reading of a GPU that exists (the fastest run near 3 GHz).
constexpr double kMaxClockMhz = 100'000;

// A time by its key ("median_time"), or by the key a result written before the figure table named
// every quantity gave it ("median_ms"); both at once could disagree, so they are refused.
double time_of(const Fields& f, const std::string& key, double min, double max = kMaxDouble) {
  const std::string old = key.substr(0, key.size() - 4) + "ms";
  if (f.has(key.c_str()) && f.has(old.c_str()))
    f.fail(old, "given beside " + key, "allowed one of the two (" + old + " is its older name)");
  return f.number(f.has(key.c_str()) || !f.has(old.c_str()) ? key.c_str() : old.c_str(), min, max);
}

TimingStats timing_from(const Fields& f) {
  TimingStats t;
  t.samples = count(f, "samples", 1);
  t.median_time = time_of(f, "median_time", kAboveZero);
  t.min_time = time_of(f, "min_time", kAboveZero, t.median_time);
  t.max_time = time_of(f, "max_time", t.median_time);
  t.mean_time = time_of(f, "mean_time", kAboveZero);
  t.noise = measure(f, "noise");
  t.converged = f.boolean("converged");
  t.l2_flushed = f.boolean("l2_flushed");
  t.seconds = f.number_or("seconds", 0.0, 0, kMaxDouble);
  // Absent in results timed before the clock was read, and where NVML is not installed.
  if (f.has("sm_clock_mhz"))
    t.sm_clock_mhz = f.number("sm_clock_mhz", kAboveZero, kMaxClockMhz);
  t.default_clock_mhz = f.number_or("default_clock_mhz", 0.0, 0, kMaxClockMhz);
  if (f.has("throttled_samples"))
    t.throttled_samples = count(f, "throttled_samples");
  t.throttled_samples_kept = f.has("throttled_samples_kept") && f.boolean("throttled_samples_kept");
  if (f.has("memory_clock_mhz"))
    t.memory_clock_mhz = f.number("memory_clock_mhz", kAboveZero, kMaxClockMhz);
  t.clock_events = static_cast<std::uint64_t>(f.integer_or("clock_events", 0, 0, kMaxInt64));
  return t;
}

Verification verification_from(const Fields& f) {
  Verification v;
  v.passed = f.boolean("passed");
  v.checked = amount(f, "checked");
  v.mismatches = f.integer("mismatches", 0, v.checked);
  v.max_abs_error = error_figure(f, "max_abs_error");
  v.max_rel_error = error_figure(f, "max_rel_error");
  v.first_failure = f.text("first_failure");
  v.note = f.text("note");
  v.against = f.text_or("against", kCpuReference);
  v.skipped = f.text_or("skipped", "");
  v.seconds = f.number_or("seconds", 0.0, 0, kMaxDouble);
  return v;
}

CounterResult counters_from(const Fields& f) {
  CounterResult c;
  c.available = f.boolean("available");
  c.reason = f.text("reason");
  c.chip = f.text("chip");
  c.passes = count(f, "passes");
  c.seconds = measure(f, "seconds");
  for (const Fields& v : f.objects("values")) {
    std::string key = v.text("key", false), display = v.text("display");
    if (key == "duration") { // its key and words before it was named for what it is
      key = "profiled_range_time";
      display = figure(key).display;
    }
    c.values.push_back(CounterValue{key, v.text("name"), display, v.text("unit"),
                                    v.number("value", -kMaxDouble, kMaxDouble)});
  }
  c.missing = f.texts("missing");
  if (f.has("no_value")) // absent in results recorded before it existed
    c.no_value = f.texts("no_value");
  return c;
}

// Site figures a result may lack: recorded before the model had them (the recordings in assets/).
constexpr std::array<std::string_view, 2> kSiteFiguresAddedLater = {"dram_bytes", "lanes"};

SitePrediction site_from(const Fields& f) {
  SitePrediction s;
  s.name = f.text("name");
  s.space = f.choice("space", {"global", "shared"}) == "shared" ? MemorySpace::shared
                                                                : MemorySpace::global;
  s.op = op_from(f.choice("op", {"load", "store", "atomic"}));
  s.lanes = -1; // unknown unless the result has them (made before the model counted them)
  for (const Figure* figure : site_figures()) {
    if (!figure->site_store)
      continue; // derived from the others (sectors per request)
    const std::string key(figure->key);
    // Absent, or null as a result read back writes a figure it did not know: left unknown.
    if ((!f.has(key.c_str()) || f.raw().at(key).is_null()) &&
        std::ranges::find(kSiteFiguresAddedLater, key) != kSiteFiguresAddedLater.end())
      continue;
    figure->site_store(s,
                       f.integer(key.c_str(), figure->site_bounds.least, figure->site_bounds.most));
  }
  s.exact = f.boolean("exact");
  // A kernel file's site: its line of the file and the most times a warp ran it.
  if (f.has("iterations"))
    s.iterations = f.integer("iterations", 1, kMaxInt64);
  s.line = static_cast<int>(f.integer_or("line", 0, 0, kMaxInt));
  return s;
}

// Results written before the kind was said (the bundled recording among them) are of a bundled
// kernel or of the one library call, the only kernel then without sites.
KernelKind kernel_kind_from(const Fields& f, const LaunchPrediction& prediction) {
  if (!f.has("kernel_kind"))
    return prediction.sites.empty() ? KernelKind::library : KernelKind::bundled;
  return f.enum_choice("kernel_kind", kKernelKinds, kernel_kind_name);
}

} // namespace

json run_result_to_json(const RunResult& result) { return run_json(result); }

RunResult run_result_from_json(const json& j, const std::string& where) {
  const Fields f(j, where);
  RunResult r;
  r.kernel_id = f.text("kernel", false);
  r.params = f.integer_map("params", std::numeric_limits<std::int64_t>::min(), kMaxInt64);
  r.launch = LaunchShape{shape_from(f, "grid"), shape_from(f, "block"), r.params};
  r.dynamic_smem = amount(f, "dynamic_shared_memory");
  r.arch = arch_from_fields(f.object("arch_details"), ArchOrigin::device);
  r.bytes_moved = measure(f, "bytes_moved");
  r.flops = measure(f, "flops");
  if (f.has("attributes"))
    r.attributes = attributes_from(f.object("attributes"));
  if (f.has("occupancy")) {
    const Fields occupancy = f.object("occupancy");
    r.occupancy = occupancy_from(occupancy);
    r.runtime_blocks_per_sm =
        static_cast<int>(occupancy.integer_or("runtime_blocks_per_sm", -1, -1, kMaxInt));
  }
  if (f.has("timing"))
    r.timing = timing_from(f.object("timing"));
  if (f.has("verification"))
    r.verification = verification_from(f.object("verification"));
  if (f.has("counters"))
    r.counters = counters_from(f.object("counters"));
  for (const Fields& site : f.objects("sites"))
    r.prediction.sites.push_back(site_from(site));
  r.prediction.warp_iterations = amount(f, "model_warp_iterations");
  r.prediction.warp_iterations_evaluated =
      f.integer("model_warp_iterations_evaluated", 0, r.prediction.warp_iterations);
  r.prediction.seconds = measure(f, "model_seconds");
  if (f.has("model_from_code")) { // a kernel file's prediction, from its PTX
    r.prediction.from_code = f.boolean("model_from_code");
    r.prediction.file = f.name("model_file");
    for (const Fields& note : f.objects("model_notes"))
      r.prediction.notes.push_back(
          {static_cast<int>(note.integer("line", 0, kMaxInt)), note.text("reason")});
  }
  if (f.has("site_counts"))
    r.site_counts = site_counts_from_json(f.at("site_counts", "an object"), where,
                                          r.prediction.sites.size(), r.prediction.from_code);
  if (f.has("stalls"))
    r.stalls = stall_samples_from_json(f.at("stalls", "an object"), where);
  if (f.has("energy"))
    r.energy = energy_from_json(f.at("energy", "an object"), where);
  r.kernel_kind = kernel_kind_from(f, r.prediction);
  check_plausible(r, where);
  return r;
}

} // namespace wl
