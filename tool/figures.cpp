#include "figures.h"

#include "text_format.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

namespace wl {

namespace {

using Sum = std::int64_t SitePrediction::*;
using enum MemorySpace;
using enum AccessOp;

// The model's total of one field over the sites of one space and direction; nullopt without sites.
std::optional<double> site_total(const RunResult& r, MemorySpace space, AccessOp op, Sum field) {
  std::optional<double> total;
  for (const SitePrediction& s : r.prediction.sites)
    if (s.space == space && s.op == op)
      total = total.value_or(0) + static_cast<double>(s.*field);
  return total;
}

// Sectors or wavefronts per request of the worst site of a memory space (the most per request);
// nullopt where it has none. An average over sites would mix a 32-sector load with a 4-sector
// store into 18, a figure no access of the kernel has.
std::optional<double> per_request(const RunResult& r, MemorySpace space, Sum amount_field) {
  const SitePrediction* site = worst_site(r, space);
  if (!site)
    return std::nullopt;
  return static_cast<double>(site->*amount_field) / static_cast<double>(site->requests);
}

std::optional<double> counter(const RunResult& r, std::string_view key) {
  const CounterValue* v = r.counters ? r.counters->find(std::string(key)) : nullptr;
  return v ? std::optional(v->value) : std::nullopt;
}

// Measured sectors per global request of one direction ("load", "store"): the requests counters
// where collected, else the instructions (each global instruction is one request on Volta and
// later). nullopt where that direction made no request.
std::optional<double> measured_sectors_per_request(const RunResult& r, const std::string& side) {
  const auto sectors = counter(r, "global_" + side + "_sectors");
  auto requests = counter(r, "global_" + side + "_requests");
  if (!requests)
    requests = counter(r, "global_" + side + "_instructions");
  if (!sectors || !requests || *requests <= 0)
    return std::nullopt;
  return *sectors / *requests;
}

// The worse of the loads' and the stores' measured sectors per request, beside the worst site's
// prediction (the counters tell the directions apart, not the sites).
std::optional<double> measured_worst_sectors_per_request(const RunResult& r) {
  const auto loads = measured_sectors_per_request(r, "load"),
             stores = measured_sectors_per_request(r, "store");
  if (!loads || !stores)
    return loads ? loads : stores;
  return std::max(*loads, *stores);
}

bool within_tolerance(double a, double b) {
  return std::fabs(a - b) <= 0.02 * std::max(std::fabs(b), 1.0);
}

// Shared wavefronts that differ: the reason, from the run's other counters.
std::string shared_wavefront_reason(const RunResult& r, AccessOp op, double wavefronts) {
  const std::string side = op_name(op);
  const auto instructions = counter(r, "shared_" + side + "_instructions");
  const auto requests = site_total(r, shared, op, &SitePrediction::requests);
  if (instructions && requests && *instructions < 0.98 * *requests)
    return "the compiler merged neighbouring shared accesses into wider ones (" +
           whole_number(*instructions) + " instructions where the source's sites make " +
           whole_number(*requests) +
           "): a wide access moves more bytes per wavefront, so there are fewer wavefronts than "
           "the source's accesses would need";
  const auto conflicts = counter(r, "shared_" + side + "_bank_conflicts");
  const auto excess = site_total(r, shared, op, &SitePrediction::excess_wavefronts);
  const auto expected = site_total(r, shared, op, &SitePrediction::wavefronts);
  if (conflicts && excess && expected && *conflicts > *excess &&
      within_tolerance(wavefronts - *conflicts, *expected - *excess))
    return "the extra wavefronts are the " + whole_number(*conflicts - *excess) +
           " bank conflicts the counter adds beyond the model's: the L1 data banks also serve the "
           "launch's global traffic and collisions with it are charged to shared accesses. "
           "Measured wavefronts minus counted conflicts (" +
           whole_number(wavefronts - *conflicts) +
           ") match the model's conflict-free wavefronts (" + whole_number(*expected - *excess) +
           ")";
  return "";
}

std::string shared_instruction_reason(const RunResult&, double instructions, double requests) {
  if (instructions > requests)
    return "warps also issue the instruction with every lane switched off (the compiler "
           "predicated the branch instead of jumping over it): " +
           whole_number(instructions - requests) +
           " such instructions count here but move no data, so they add no wavefronts";
  return "the compiler merged neighbouring shared accesses into wider ones (LDS.64/LDS.128): "
         "fewer instructions than the source's accesses, the same bytes";
}

std::string bank_conflict_reason(const RunResult&, double measured, double predicted) {
  if (measured <= predicted)
    return "";
  return "the L1 data banks also serve global, local and texture traffic, and the counter "
         "includes their conflicts: compare the wavefronts, which the model predicts per site";
}

std::string global_sector_reason(const RunResult&, double, double) {
  return "sectors also count accesses the model does not declare as sites (local-memory spills, "
         "library code) or the compiler merged or split accesses";
}

std::string instruction_reason(const RunResult&, double, double) {
  return "the compiler emits a different number of memory instructions than the source's "
         "accesses (vectorised, unrolled or predicated differently)";
}

// The partial last wave lowers the launch's average occupancy by about the empty share of that
// wave over all waves (each wave taking about the same time); the reason says how much of the gap
// it explains, so a tiny tail is never blamed for a large one.
std::string achieved_occupancy_reason(const RunResult& r, double measured, double predicted) {
  if (measured > predicted)
    return "achieved is above the model's theoretical figure: the GPU kept more warps resident "
           "than the model allows (compare blocks per SM in the Occupancy panel)";
  const double gap = predicted - measured;
  const Waves* waves = r.occupancy && r.occupancy->waves ? &*r.occupancy->waves : nullptr;
  const double tail_loss =
      waves && waves->tail_blocks > 0
          ? predicted * (1 - waves->tail_fill) / static_cast<double>(waves->full_waves + 1)
          : 0;
  const std::string uneven = "warps finish unevenly and new blocks start late, so fewer warps are "
                             "resident on average than fit";
  if (tail_loss <= 0)
    return uneven + " (the last wave is full)";
  const std::string tail =
      format("the partial last wave (%lld blocks, %.0f %% full, after %lld full waves) costs about "
             "%.1f of the %.1f points",
             static_cast<long long>(waves->tail_blocks), 100 * waves->tail_fill,
             static_cast<long long>(waves->full_waves), tail_loss, gap);
  return tail_loss >= gap / 2 ? tail : uneven + "; " + tail;
}

// Thread instructions per warp instruction: 32 when no lane of any warp ever idles.
std::optional<double> lanes_per_instruction(const RunResult& r) {
  const auto threads = counter(r, "thread_instructions"), warps = counter(r, "warp_instructions");
  return threads && warps && *warps > 0 ? std::optional(*threads / *warps) : std::nullopt;
}

std::optional<double> theoretical_occupancy(const RunResult& r) {
  return r.occupancy ? std::optional(100 * r.occupancy->occupancy) : std::nullopt;
}

std::optional<double> median_time(const RunResult& r) {
  return r.timing ? std::optional(r.timing->median_ms) : std::nullopt;
}

std::optional<double> modelled_time_at_peak(const RunResult& r) {
  const std::optional<ModelledTime> t = modelled_time(r);
  return t ? std::optional(t->ms()) : std::nullopt;
}

// A counter figure: its key reads the counter of the same key.
template <std::size_t N> struct Key {
  char text[N];
  constexpr Key(const char (&k)[N]) { std::copy_n(k, N, text); }
};
template <Key key> std::optional<double> counter_of(const RunResult& r) {
  return counter(r, key.text);
}
template <MemorySpace space, AccessOp op, Sum field>
std::optional<double> model_total(const RunResult& r) {
  return site_total(r, space, op, field);
}

constexpr std::string_view kSiteModel =
    "the access model's sum over the kernel's sites, every warp's addresses evaluated";

// clang-format off
const std::array kFigures = {
  // Timings
  Figure{"median_time", "median time", "ms", "timings",
         "Median of the cold samples (L2 flushed before each).",
         "", "", Better::lower, false, true, nullptr, median_time},
  Figure{"min_time", "min", "ms", "timings", "The fastest cold sample."},
  Figure{"noise", "noise", "%", "timings",
         "Relative standard deviation of the samples; sampling stops under 0.5 %."},
  Figure{"samples", "samples", "", "timings", "Timed launches the median is taken over."},
  Figure{"throughput", "throughput", "GB/s", "timings",
         "The bytes the kernel must move over its median time.",
         "", "the device's peak DRAM bandwidth", Better::higher, false, true, nullptr,
         [](const RunResult& r) { return r.timing ? std::optional(r.gbps()) : std::nullopt; }},
  Figure{"share_of_peak", "share of peak", "%", "timings",
         "Throughput over the device's peak DRAM bandwidth.", "", "100 %", Better::higher},
  Figure{"compute", "compute", "GFLOP/s", "timings", "Floating-point operations over the median time."},
  // Against a pinned baseline (the Timings panel's comparison, and a sidecar's)
  Figure{.key = "baseline_median", .display = "baseline median", .unit = "ms", .panel = "timings",
         .meaning = "The pinned baseline's median time"},
  Figure{.key = "time_change", .display = "change", .unit = "%", .panel = "timings",
         .meaning = "The latest median against the baseline's: negative is faster",
         .better = Better::lower},
  Figure{.key = "speed_up", .display = "speed-up", .unit = "x", .panel = "timings",
         .meaning = "The baseline's median over the latest: above 1 the latest is faster",
         .better = Better::higher},
  Figure{"bytes_moved", "bytes moved", "bytes", "timings",
         "The fewest bytes the kernel must move: every input read once, every output written once."},
  Figure{"arithmetic", "arithmetic", "GFLOP", "timings", "Floating-point operations the launch performs."},
  Figure{"time_at_peak_bytes", "at peak, bytes needed", "ms", "timings",
         "bytes moved / the arch's peak DRAM bandwidth: no run can be faster while memory-bound."},
  Figure{"modelled_time", "modelled time at peak", "ms", "timings",
         "The longer of two floors for the access pattern as written: the model's DRAM bytes over "
         "the peak DRAM bandwidth, and its shared-memory wavefronts over what the SMs serve (one a "
         "cycle each at the SM clock). A model, not a measurement: what a sweep colours by where "
         "nothing was timed; it knows no reuse between warps through L2 and no compute.",
         "DRAM bytes (64-byte segments read, 32-byte sectors written) and shared wavefronts from "
         "the access model, over the preset's bandwidth and SM clock", "", Better::lower,
         false, true, modelled_time_at_peak, nullptr, nullptr, nullptr, "modelled time"},
  Figure{"dram_bytes", "DRAM bytes, modelled", "bytes", "timings",
         "The bytes DRAM moves for the model's accesses: each load request reads whole 64-byte "
         "segments (no load finds another warp's data in L2), and stores write each 32-byte "
         "sector once (L2 merges the warps' writes)."},
  Figure{"duration", "profiled range time", "ns", "timings",
         "GPU time of the profiler's range around the launch (CUPTI's gpu__time_duration over the "
         "range): 14 to 42 us more than the kernel alone on the H100. Not the kernel's time: that "
         "is the median time (ncu's gpu__time_duration times the kernel alone).",
         "", "", Better::lower, true},
  Figure{"sm_active_cycles", "SM active cycles", "cycles", "timings",
         "Cycles in which an SM had at least one warp resident, averaged over SMs",
         "", "", Better::neither, true},
  // Occupancy
  Figure{"theoretical_occupancy", "theoretical occupancy", "%", "occupancy",
         "Resident warps per SM over the SM's maximum, from the toolkit's occupancy calculator.",
         "the occupancy calculator over the kernel's registers, shared memory and block",
         "100 %", Better::higher, false, true, theoretical_occupancy, nullptr, nullptr, nullptr,
         "occupancy"},
  Figure{"achieved_occupancy", "achieved occupancy", "%", "occupancy",
         "Warps active per cycle over the SM's maximum, from the hardware counters: below "
         "theoretical when warps finish unevenly or the last wave is partial.",
         "the theoretical occupancy: the most it can reach", "the theoretical occupancy",
         Better::higher, true, true, theoretical_occupancy, counter_of<"achieved_occupancy">,
         nullptr, achieved_occupancy_reason},
  Figure{"active_warps", "active warps per SM", "warps", "occupancy",
         "Resident warps per active cycle, averaged over SMs", "", "", Better::higher, true},
  Figure{.key = "blocks_per_sm", .display = "blocks per SM", .panel = "occupancy",
         .meaning = "Blocks of this launch one SM holds at once.",
         .model = "the occupancy calculator: the fewest blocks any resource allows",
         .better = Better::higher,
         .predicted = [](const RunResult& r) {
           return r.occupancy ? std::optional(double(r.occupancy->blocks_per_sm)) : std::nullopt;
         }},
  Figure{"warps_per_sm", "warps per SM", "", "occupancy", "Resident warps per SM, of the SM's maximum."},
  Figure{"runtime_blocks_per_sm", "runtime blocks per SM", "", "occupancy",
         "cudaOccupancyMaxActiveBlocksPerMultiprocessor on the device"},
  Figure{"registers", "registers per thread", "", "occupancy",
         "Registers each thread holds, from cudaFuncGetAttributes or the build's ptxas report.",
         "", "", Better::lower, false, true, nullptr,
         [](const RunResult& r) {
           return r.attributes ? std::optional(double(r.attributes->registers)) : std::nullopt;
         },
         nullptr, nullptr, "registers"},
  Figure{"registers_and_shared", "registers / shared", "", "occupancy",
         "Registers per thread and shared memory per block, as allocated."},
  Figure{"grid", "grid", "blocks", "occupancy", "Blocks the launch's grid holds."},
  Figure{"blocks_per_wave", "blocks per wave", "", "occupancy", "SMs x blocks per SM: one full wave"},
  Figure{"waves", "waves", "", "occupancy", "The grid over one wave's blocks."},
  Figure{"tail", "tail", "", "occupancy", "A partly filled last wave leaves SMs idle while it runs."},
  // Global memory
  Figure{"sectors_per_request", "sectors per request", "", "global",
         "32-byte sectors each global request touches, at the site that touches the most per "
         "request (measured: the worse of the loads and the stores).",
         kSiteModel, "the sectors the lanes' bytes need when packed", Better::lower, false, true,
         [](const RunResult& r) { return per_request(r, global, &SitePrediction::sectors); },
         measured_worst_sectors_per_request,
         [](const RunResult& r) { return per_request(r, global, &SitePrediction::ideal_sectors); },
         nullptr, "sectors/req"},
  Figure{"global_load_instructions", "global load instructions", "warp instructions", "global",
         "LDG instructions executed by warps; on Volta and later each is one request to L1",
         kSiteModel, "", Better::neither, true, false,
         model_total<global, load, &SitePrediction::requests>, counter_of<"global_load_instructions">,
         nullptr, instruction_reason},
  Figure{"global_store_instructions", "global store instructions", "warp instructions", "global",
         "STG instructions executed by warps; each is one request to L1",
         kSiteModel, "", Better::neither, true, false,
         model_total<global, store, &SitePrediction::requests>, counter_of<"global_store_instructions">,
         nullptr, instruction_reason},
  Figure{"global_load_requests", "global load requests", "requests", "global",
         "Requests the LSU pipe sent to L1 for global loads", kSiteModel, "", Better::neither, true,
         false, model_total<global, load, &SitePrediction::requests>,
         counter_of<"global_load_requests">, nullptr, instruction_reason},
  Figure{"global_store_requests", "global store requests", "requests", "global",
         "Requests the LSU pipe sent to L1 for global stores", kSiteModel, "", Better::neither, true,
         false, model_total<global, store, &SitePrediction::requests>,
         counter_of<"global_store_requests">, nullptr, instruction_reason},
  Figure{"global_load_sectors", "global load sectors", "sectors", "global",
         "32-byte sectors global loads touched in L1", kSiteModel,
         "the sectors the lanes' bytes need when packed", Better::lower, true, false,
         model_total<global, load, &SitePrediction::sectors>, counter_of<"global_load_sectors">,
         model_total<global, load, &SitePrediction::ideal_sectors>, global_sector_reason},
  Figure{"global_store_sectors", "global store sectors", "sectors", "global",
         "32-byte sectors global stores touched in L1", kSiteModel,
         "the sectors the lanes' bytes need when packed", Better::lower, true, false,
         model_total<global, store, &SitePrediction::sectors>, counter_of<"global_store_sectors">,
         model_total<global, store, &SitePrediction::ideal_sectors>, global_sector_reason},
  Figure{"dram_read_bytes", "DRAM bytes read", "bytes", "global",
         "Bytes read from device memory (after L2)", "", "the bytes moved", Better::lower, true},
  Figure{"dram_write_bytes", "DRAM bytes written", "bytes", "global",
         "Bytes written to device memory (after L2)", "", "the bytes moved", Better::lower, true},
  Figure{"l2_read_sectors_from_l1", "L2 sectors read by L1", "sectors", "global",
         "Sectors L1 read from L2: global load misses in L1", "", "", Better::lower, true},
  Figure{"l2_write_sectors_from_l1", "L2 sectors written by L1", "sectors", "global",
         "Sectors L1 wrote to L2: global stores pass through", "", "", Better::lower, true},
  // Shared memory
  Figure{"wavefronts_per_request", "wavefronts per request", "", "shared",
         "Shared-memory passes each request needs at the site that needs the most: 1 is "
         "conflict-free, n is an n-way bank conflict.",
         kSiteModel, "the wavefronts the access width needs with no bank conflict", Better::lower,
         false, true,
         [](const RunResult& r) { return per_request(r, shared, &SitePrediction::wavefronts); },
         nullptr,
         [](const RunResult& r) {
           return per_request(r, shared, &SitePrediction::ideal_wavefronts);
         },
         nullptr, "wavefronts/req"},
  Figure{"shared_load_instructions", "shared load instructions", "warp instructions", "shared",
         "LDS instructions executed by warps", kSiteModel, "", Better::neither, true, false,
         model_total<shared, load, &SitePrediction::requests>, counter_of<"shared_load_instructions">,
         nullptr, shared_instruction_reason},
  Figure{"shared_store_instructions", "shared store instructions", "warp instructions", "shared",
         "STS instructions executed by warps", kSiteModel, "", Better::neither, true, false,
         model_total<shared, store, &SitePrediction::requests>, counter_of<"shared_store_instructions">,
         nullptr, shared_instruction_reason},
  Figure{"shared_load_wavefronts", "shared load wavefronts", "wavefronts", "shared",
         "Passes of the shared-memory pipeline for loads: one per request without conflicts",
         kSiteModel, "one per request (wider accesses need 2 or 4)", Better::lower, true, false,
         model_total<shared, load, &SitePrediction::wavefronts>, counter_of<"shared_load_wavefronts">,
         model_total<shared, load, &SitePrediction::ideal_wavefronts>,
         [](const RunResult& r, double m, double) { return shared_wavefront_reason(r, load, m); }},
  Figure{"shared_store_wavefronts", "shared store wavefronts", "wavefronts", "shared",
         "Passes of the shared-memory pipeline for stores: one per request without conflicts",
         kSiteModel, "one per request (wider accesses need 2 or 4)", Better::lower, true, false,
         model_total<shared, store, &SitePrediction::wavefronts>, counter_of<"shared_store_wavefronts">,
         model_total<shared, store, &SitePrediction::ideal_wavefronts>,
         [](const RunResult& r, double m, double) { return shared_wavefront_reason(r, store, m); }},
  Figure{"shared_load_bank_conflicts", "shared load bank conflicts", "wavefronts", "shared",
         "Extra wavefronts shared loads needed because lanes hit the same bank",
         "the wavefronts beyond the conflict-free ones, per site", "0", Better::lower, true, false,
         model_total<shared, load, &SitePrediction::excess_wavefronts>,
         counter_of<"shared_load_bank_conflicts">, nullptr, bank_conflict_reason},
  Figure{"shared_store_bank_conflicts", "shared store bank conflicts", "wavefronts", "shared",
         "Extra wavefronts shared stores needed because lanes hit the same bank",
         "the wavefronts beyond the conflict-free ones, per site", "0", Better::lower, true, false,
         model_total<shared, store, &SitePrediction::excess_wavefronts>,
         counter_of<"shared_store_bank_conflicts">, nullptr, bank_conflict_reason},
  // One access site over the launch (the site tables) or one warp's access (the memory maps);
  // their keys are the fields of a site in `warplens model --json` and of a map in a sidecar.
  Figure{.key = "requests", .display = "requests", .unit = "requests", .panel = "counters",
         .meaning = "Warp-level instructions at this site over the whole launch", .model = kSiteModel},
  Figure{.key = "width", .display = "width", .unit = "B", .panel = "counters",
         .meaning = "Bytes each lane loads or stores at this site"},
  Figure{.key = "sectors", .display = "sectors", .unit = "sectors", .panel = "global",
         .meaning = "32-byte sectors the site's requests touch (one warp's, in the warp map)",
         .model = kSiteModel, .ideal = "ideal sectors", .better = Better::lower},
  Figure{.key = "ideal_sectors", .display = "ideal sectors", .unit = "sectors", .panel = "global",
         .meaning = "The sectors the lanes' bytes would need packed side by side"},
  Figure{.key = "lines", .display = "lines", .unit = "128-byte lines", .panel = "global",
         .meaning = "128-byte cache lines one warp's access touches"},
  Figure{.key = "bytes_used", .display = "bytes used", .unit = "bytes", .panel = "global",
         .meaning = "Bytes the lanes ask for"},
  Figure{.key = "bytes_fetched", .display = "bytes fetched", .unit = "bytes", .panel = "global",
         .meaning = "Bytes of the sectors touched: what the memory system moves for the lanes",
         .ideal = "bytes used", .better = Better::lower},
  Figure{.key = "used_of_fetched", .display = "used / fetched", .unit = "%", .panel = "global",
         .meaning = "Bytes used over bytes fetched: the share of the traffic the lanes need",
         .ideal = "100 %", .better = Better::higher},
  Figure{.key = "wavefronts", .display = "wavefronts", .unit = "wavefronts", .panel = "shared",
         .meaning = "Shared-memory passes the site's requests need (one warp's, in the bank grid)",
         .model = kSiteModel, .ideal = "ideal wavefronts", .better = Better::lower},
  Figure{.key = "ideal_wavefronts", .display = "ideal wavefronts", .unit = "wavefronts",
         .panel = "shared", .meaning = "The passes the access width needs with no bank conflict"},
  Figure{.key = "excess_wavefronts", .display = "excess wavefronts", .unit = "wavefronts",
         .panel = "shared",
         .meaning = "Wavefronts beyond the ideal: what CUPTI counts as bank conflicts",
         .ideal = "0", .better = Better::lower, .header = "excess"},
  Figure{.key = "conflict_degree", .display = "bank conflict degree", .unit = "-way",
         .panel = "shared",
         .meaning = "The most distinct words one bank serves in one request: an n-way conflict "
                    "needs n passes",
         .ideal = "1", .better = Better::lower, .header = "worst"},
  Figure{.key = "active_lanes", .display = "active lanes", .unit = "lanes", .panel = "divergence",
         .meaning = "Lanes of the warp that make the access (the others are off: a branch, a "
                    "guard or a partial warp)",
         .ideal = "32", .better = Better::higher},
  // Divergence
  Figure{.key = "lanes_per_instruction", .display = "lanes per instruction", .unit = "lanes",
         .panel = "divergence",
         .meaning = "Thread instructions over warp instructions, over the whole launch: 32 when "
                    "no lane ever idles",
         .ideal = "32", .better = Better::higher, .measured = lanes_per_instruction},
  Figure{"warp_instructions", "warp instructions", "warp instructions", "divergence",
         "Instructions executed, counted once per warp", "", "", Better::neither, true},
  Figure{"thread_instructions", "thread instructions", "thread instructions", "divergence",
         "Instructions executed, counted once per active lane: 32 x warp instructions when no "
         "lane is ever off", "", "32 per warp instruction", Better::higher, true},
};
// clang-format on

} // namespace

std::optional<ModelledTime> modelled_time(const RunResult& r) {
  ModelledTime t;
  for (const SitePrediction& site : r.prediction.sites)
    (site.space == global ? t.dram_bytes : t.wavefronts) +=
        static_cast<double>(site.space == global ? site.dram_bytes : site.wavefronts);
  const double dram_peak = r.arch.dram_bandwidth_gbps * 1e9;
  const double wavefronts_per_second = r.arch.sm_count * r.arch.sm_clock_mhz * 1e6;
  if (dram_peak > 0)
    t.dram_ms = t.dram_bytes / dram_peak * 1e3;
  if (wavefronts_per_second > 0)
    t.shared_ms = t.wavefronts / wavefronts_per_second * 1e3;
  if (t.ms() <= 0)
    return std::nullopt;
  return t;
}

const SitePrediction* worst_site(const RunResult& r, MemorySpace space) {
  const SitePrediction* worst = nullptr;
  const auto per_request = [](const SitePrediction& s) {
    return s.space == global ? s.sectors_per_request() : s.wavefronts_per_request();
  };
  for (const SitePrediction& s : r.prediction.sites)
    if (s.space == space && s.requests > 0 && (!worst || per_request(s) > per_request(*worst)))
      worst = &s;
  return worst;
}

std::span<const Figure> all_figures() { return kFigures; }

const Figure* find_figure(std::string_view key) {
  const auto it =
      std::find_if(kFigures.begin(), kFigures.end(), [&](const Figure& f) { return f.key == key; });
  return it == kFigures.end() ? nullptr : &*it;
}

const Figure& figure(std::string_view key) {
  if (const Figure* f = find_figure(key))
    return *f;
  throw std::logic_error("no figure '" + std::string(key) + "' in the figure table");
}

std::optional<double> figure_value(const Figure& f, const RunResult& r) {
  if (f.measured)
    if (const auto value = f.measured(r); value || f.counter)
      return value; // a counter's model value is a bound or a prediction, never its value
  return f.predicted ? f.predicted(r) : std::nullopt;
}

std::string_view figure_header(const Figure& f) { return f.header.empty() ? f.display : f.header; }

std::string figure_label(const Figure& f) {
  std::string label(f.display);
  if (!f.unit.empty())
    label += " (" + std::string(f.unit) + ")";
  return label;
}

} // namespace wl
