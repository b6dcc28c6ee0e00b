#include "report/figures.h"

#include "base/text_format.h"
#include "registry.h"
#include "report/energy_report.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

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

// The roofline's measured side. FP32 operations as Nsight Compute's roofline counts them: each
// FADD and FMUL thread instruction one, each FFMA two; nullopt unless all three were collected.
std::optional<double> measured_fp32_operations(const RunResult& r) {
  const auto add = counter(r, "fp32_add_instructions"), mul = counter(r, "fp32_mul_instructions"),
             fma = counter(r, "fp32_fma_instructions");
  if (!add || !mul || !fma)
    return std::nullopt;
  return *add + *mul + 2 * *fma;
}

std::optional<double> kernel_flops(const RunResult& r) { return r.flops; }

std::string fp32_operation_reason(const RunResult& r, double measured, double predicted) {
  const std::string counted =
      "the counters count each FADD and FMUL the compiled code executed once and each FFMA "
      "twice (" +
      whole_number(counter(r, "fp32_add_instructions").value_or(0)) + " FADD, " +
      whole_number(counter(r, "fp32_mul_instructions").value_or(0)) + " FMUL, " +
      whole_number(counter(r, "fp32_fma_instructions").value_or(0)) + " FFMA, " +
      (predicted > 0 ? format_number(measured / predicted, 2) + " times" : "beside") +
      " the kernel's count), where the kernel counts its algorithm's arithmetic: ";
  if (const KernelDesc* kernel = find_kernel(r.kernel_id);
      kernel && !kernel->fp32_counter_note.empty())
    return counted + kernel->fp32_counter_note;
  if (predicted <= 0)
    return counted + "this kernel counts none (its arithmetic is not what it teaches)";
  return counted + (measured > predicted
                        ? "the code does FP32 work the count leaves out (expf and division "
                          "expand into several FFMAs and FMULs each)"
                        : "the count includes operations these counters do not see (MUFU "
                          "exponentials and reciprocals, FMNMX maxima, conversions)");
}

std::optional<double> measured_dram_traffic(const RunResult& r) {
  const auto read = counter(r, "dram_read_bytes"), written = counter(r, "dram_write_bytes");
  if (!read || !written)
    return std::nullopt;
  return *read + *written;
}

// The model's DRAM bytes of one direction: its global sites' (none where it has no site).
std::optional<double> modelled_dram(const RunResult& r, AccessOp op) {
  return site_total(r, global, op, &SitePrediction::dram_bytes);
}

std::optional<double> modelled_dram_traffic(const RunResult& r) {
  const auto read = modelled_dram(r, load), written = modelled_dram(r, store);
  if (!read && !written)
    return std::nullopt; // a library call: no site, no model
  return read.value_or(0) + written.value_or(0);
}

// Each direction that differs, with why: "reads 1.2 GiB where the model's floor is 192 MiB: ...".
std::string dram_traffic_reason(const RunResult& r, double, double) {
  std::string reasons;
  const auto add = [&](const std::string& reason) {
    reasons += (reasons.empty() ? "" : "; ") + reason;
  };
  const double read = counter(r, "dram_read_bytes").value_or(0),
               written = counter(r, "dram_write_bytes").value_or(0),
               model_read = modelled_dram(r, load).value_or(0),
               model_written = modelled_dram(r, store).value_or(0);
  if (!within_tolerance(read, model_read))
    add("reads " + format_bytes(read) + " where the model has " + format_bytes(model_read) +
        (read > model_read ? ", a floor: it reads each buffer from DRAM once at most, and the "
                             "rest are re-reads after L2 let the data go"
                           : ": what L2 still held from before the launch never crossed DRAM"));
  if (!within_tolerance(written, model_written))
    add("writes " + format_bytes(written) + " where the model has " + format_bytes(model_written) +
        (written < model_written
             ? ": what the kernel wrote last was still in L2 when it ended (L2 holds " +
                   format_bytes(static_cast<double>(r.arch.l2_cache_bytes)) +
                   ") and reaches DRAM later"
             : ": L2 also wrote back lines written before the launch, or whole sectors of "
               "partly written ones"));
  return reasons;
}

// The bytes L1 sent to and read from L2: every global sector L1 did not hold.
std::optional<double> measured_l2_traffic(const RunResult& r) {
  const auto read = counter(r, "l2_read_sectors_from_l1"),
             written = counter(r, "l2_write_sectors_from_l1");
  if (!read || !written)
    return std::nullopt;
  return 32 * (*read + *written);
}

// Part of a kernel file's code is not predicted (cp.async, a loop past the budget: its notes say
// where), so its predicted traffic may fall short of what the kernel must move.
bool partly_predicted(const RunResult& r) {
  return r.prediction.from_code && !r.prediction.notes.empty();
}

// The model's global sectors, each a 32-byte trip between L1 and L2 when L1 holds nothing;
// nullopt where no global site is predicted.
std::optional<double> predicted_l2_bytes(const RunResult& r) {
  const auto loads = site_total(r, global, load, &SitePrediction::sectors),
             stores = site_total(r, global, store, &SitePrediction::sectors);
  if (!loads && !stores)
    return std::nullopt;
  return 32 * (loads.value_or(0) + stores.value_or(0));
}

// The predicted L2 bytes; at least the bytes the kernel must move where part of its code is not
// predicted (every DRAM byte crosses L2).
std::optional<double> modelled_l2_traffic(const RunResult& r) {
  const std::optional<double> predicted = predicted_l2_bytes(r);
  if (!predicted)
    return std::nullopt;
  return partly_predicted(r) ? std::max(*predicted, static_cast<double>(r.bytes_moved))
                             : *predicted;
}

// Beside a modelled L2 figure that is the floor of the bytes the kernel must move.
std::string l2_traffic_note(const RunResult& r) {
  return !measured_l2_traffic(r) && partly_predicted(r) &&
                 predicted_l2_bytes(r).value_or(0) < static_cast<double>(r.bytes_moved)
             ? " (the bytes it must move: the predicted accesses move fewer, and part of its "
               "code is not predicted)"
             : "";
}

std::string l2_traffic_reason(const RunResult& r, double measured, double predicted) {
  if (measured < predicted)
    return "loads that hit in L1 (a line another warp of the same SM brought in) never reach L2, "
           "where the model sends every sector a request touches";
  if (r.attributes && r.attributes->local_bytes > 0)
    return "the kernel spills " + whole_number(r.attributes->local_bytes) +
           " bytes a thread to local memory, whose loads and stores L2 serves and no site "
           "declares";
  return "L2 also serves traffic no site declares (local-memory spills, library code) or the "
         "compiler split accesses into more sectors";
}

// The memory chart's links (memory_chart.h). Local memory: none where the kernel has no
// local bytes (cudaFuncGetAttributes: no spills, no local arrays); the model does not say how a
// kernel that has some uses them.
std::optional<double> no_local_traffic(const RunResult& r) {
  return r.attributes && r.attributes->local_bytes == 0 ? std::optional(0.0) : std::nullopt;
}

std::string local_traffic_reason(const RunResult& r, double, double) {
  return r.attributes ? "local memory the attributes did not show (" +
                            whole_number(r.attributes->local_bytes) +
                            " bytes a thread): a stack the compiler made for a call"
                      : "the kernel's attributes were not read";
}

// The bytes L1 reads from L2: a 32-byte sector for each sector of a global load, the model
// keeping nothing in L1 between requests.
std::optional<double> predicted_l1_read_bytes(const RunResult& r) {
  const auto sectors = site_total(r, global, load, &SitePrediction::sectors);
  return sectors ? std::optional(32 * *sectors) : std::nullopt;
}

// The bytes L1 sends to L2: stores write through L1, and atomics are done in L2.
std::optional<double> predicted_l1_write_bytes(const RunResult& r) {
  const auto stores = site_total(r, global, store, &SitePrediction::sectors),
             atomics = site_total(r, global, atomic, &SitePrediction::sectors);
  if (!stores && !atomics)
    return std::nullopt;
  return 32 * (stores.value_or(0) + atomics.value_or(0));
}

std::string l1_read_reason(const RunResult& r, double measured, double predicted) {
  const std::optional<double> hits = counter(r, "l1_hit_rate");
  if (measured < predicted)
    return "L1 served " + (hits ? format_percent(*hits) + " of the sectors" : "part of the loads") +
           " (lines another warp of the same SM brought in), where the model reads every sector "
           "from L2";
  return "L1 also reads for accesses no site declares (local-memory spills, library code) or "
         "the compiler split loads into more sectors";
}

std::string l1_write_reason(const RunResult&, double measured, double predicted) {
  if (measured < predicted)
    return "the compiler merged stores, or predicated some off, that the model counts";
  return "L1 also writes for accesses no site declares (local-memory spills, library code) or "
         "the compiler split stores into more sectors";
}

// DRAM's side of the model's global sites: the bytes of their loads read, of their stores
// written (site dram_bytes; atomics stay in L2, counted on neither side).
std::optional<double> predicted_dram_read(const RunResult& r) {
  return site_total(r, global, load, &SitePrediction::dram_bytes);
}
std::optional<double> predicted_dram_write(const RunResult& r) {
  return site_total(r, global, store, &SitePrediction::dram_bytes);
}

std::string dram_read_reason(const RunResult& r, double measured, double predicted) {
  const std::optional<double> hits = counter(r, "l2_hit_rate");
  if (measured < predicted)
    return "L2 held data other blocks had read" +
           (hits ? " (L2 hit " + format_percent(*hits) + " of its sectors)" : std::string()) +
           ", where the model reads each load request's 64-byte segments from DRAM";
  return "DRAM read " + format_number(measured / predicted, 1) +
         " times the model's bytes: the model reads each buffer's bytes from DRAM once at most, "
         "and the rest are re-reads of data L2 let go before it was used again (or reads no "
         "site declares: spills, library code)";
}

std::string dram_write_reason(const RunResult&, double measured, double predicted) {
  if (measured < predicted)
    return "L2 writes back lazily: lines written late in the launch may still be in L2 when it "
           "ends, and are written to DRAM after the profiled range";
  return "DRAM wrote more than the stores' sectors: partial sectors read and written back, or "
         "writes no site declares (spills, library code)";
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

std::optional<double> modelled_time_at_peak(const RunResult& r) {
  const std::optional<ModelledTime> t = modelled_time(r);
  return t ? std::optional(t->ms()) : std::nullopt;
}

template <double TimingStats::*field> std::optional<double> timing_of(const RunResult& r) {
  return r.timing ? std::optional((*r.timing).*field) : std::nullopt;
}

std::optional<double> noise_percent(const RunResult& r) {
  return r.timing ? std::optional(100 * r.timing->noise) : std::nullopt;
}

// A figure of the occupancy calculator's answer, and of how the grid falls into waves.
template <auto Member> std::optional<double> of_occupancy(const RunResult& r) {
  return r.occupancy ? std::optional(static_cast<double>((*r.occupancy).*Member)) : std::nullopt;
}
template <auto Member> std::optional<double> of_waves(const RunResult& r) {
  return r.occupancy && r.occupancy->waves
             ? std::optional(static_cast<double>((*r.occupancy->waves).*Member))
             : std::nullopt;
}

// Notes are built by appending: GCC 12's -Wrestrict misreads `"literal" + std::string`.
std::string most_warps_note(const RunResult& r) {
  std::string note;
  if (r.occupancy)
    note.append(" of ").append(format_count(r.occupancy->max_warps_per_sm));
  return note;
}

// Where the registers were read: the device's attributes, or the build's ptxas report.
std::string attributes_source_note(const RunResult& r) {
  std::string note;
  if (r.attributes && !r.attributes->source.empty())
    note.append(" (").append(r.attributes->source).append(")");
  return note;
}

// The part of a block's shared memory the system keeps, which a kernel without any still has.
std::string reserved_shared_note(const RunResult& r) {
  std::string note;
  if (r.occupancy && r.arch.reserved_shared_memory_per_block > 0)
    note.append(" (")
        .append(format_bytes(static_cast<double>(r.arch.reserved_shared_memory_per_block)))
        .append(" of it the system's)");
  return note;
}

// Which bytes a throughput divides: those the kernel must move, not what DRAM served.
std::string bytes_moved_note(const RunResult& r) {
  std::string note;
  note.append(" (the ")
      .append(format_bytes(static_cast<double>(r.bytes_moved)))
      .append(" it must move)");
  return note;
}

std::string full_waves_note(const RunResult& r) {
  std::string note;
  if (r.occupancy && r.occupancy->waves)
    note.append(" (").append(format_count(r.occupancy->waves->full_waves)).append(" full)");
  return note;
}

std::string tail_note(const RunResult& r) {
  std::string note;
  if (!r.occupancy || !r.occupancy->waves)
    return note;
  const Waves& waves = *r.occupancy->waves;
  if (waves.tail_blocks)
    note.append(", ").append(format_percent(100 * waves.tail_fill)).append(" of a wave");
  else
    note.append(" (the last wave is full)");
  return note;
}

std::string noise_note(const RunResult& r) {
  return r.timing && !r.timing->converged ? " (budget reached first)" : "";
}

std::optional<double> samples(const RunResult& r) {
  return r.timing ? std::optional(double(r.timing->samples)) : std::nullopt;
}

// Beside the median: the SM clock the samples ran at, the device's default, and the samples it
// showed throttled (model/timing_summary.h); "" where NVML did not read the clock.
std::string sm_clock_note(const RunResult& r) {
  if (!r.timing || !r.timing->sm_clock_mhz)
    return "";
  const TimingStats& t = *r.timing;
  std::string note = " at an SM clock of " + format_number(*t.sm_clock_mhz, 0) + " MHz";
  if (t.default_clock_mhz > 0)
    note += " (default " + format_number(t.default_clock_mhz, 0) + " MHz)";
  if (t.throttled_samples > 0)
    note += t.throttled_samples_kept
                ? "; every sample throttled (under 75 % of the default), so they are the figures"
                : "; " + std::to_string(t.throttled_samples) +
                      " throttled samples (under 75 % of the default) left out";
  return note;
}

std::optional<double> share_of_peak(const RunResult& r) {
  const DramBytes dram = dram_bytes_of(r);
  if (dram.bytes <= 0)
    return std::nullopt;
  return share_of_dram_peak(r, dram.bytes);
}

// " of 4,800 GB/s, by the DRAM counters' 1.2 GiB": the peak and the bytes divided.
std::string peak_bandwidth_note(const RunResult& r) {
  const DramBytes dram = dram_bytes_of(r);
  return " of " + format_number(r.arch.dram_bandwidth_gbps, 0) + " GB/s, by " + dram.source +
         (dram.source.ends_with('s') ? "' " : "'s ") + format_bytes(dram.bytes);
}

std::optional<double> compute(const RunResult& r) {
  return r.timing && r.flops > 0 ? std::optional(r.gflops()) : std::nullopt;
}

const EnergyStats* energy_of(const RunResult& r) {
  return r.energy && r.energy->available ? &*r.energy : nullptr;
}

std::optional<double> energy_per_launch(const RunResult& r) {
  const EnergyStats* e = energy_of(r);
  return e ? std::optional(e->joules_per_launch()) : std::nullopt;
}

std::optional<double> mean_power(const RunResult& r) {
  const EnergyStats* e = energy_of(r);
  return e ? std::optional(e->mean_power_w()) : std::nullopt;
}

std::optional<double> energy_efficiency(const RunResult& r) {
  const EnergyStats* e = energy_of(r);
  return e && r.flops > 0 && e->joules_per_launch() > 0
             ? std::optional(r.flops / e->joules_per_launch() / 1e9)
             : std::nullopt;
}

// Beside the energy: the batch, and the clocks held down while it ran, which a joule figure
// depends on as much as a time does.
std::string energy_note(const RunResult& r) {
  const EnergyStats* e = energy_of(r);
  if (!e)
    return "";
  std::string note =
      " (" + format_count(e->launches) + " launches in " + format_number(e->batch_ms, 1) + " ms)";
  const std::string held = clock_event_words(throttle_events(e->clock_events));
  if (!held.empty())
    note += "; clocks held down by " + held;
  return note;
}

std::string sampled_power_note(const RunResult& r) {
  const EnergyStats* e = energy_of(r);
  if (!e || e->power_readings == 0)
    return "";
  return " (" + format_number(e->sampled_power_w, 0) + " W by " +
         std::to_string(e->power_readings) + " instantaneous readings)";
}

// The FP32 peak that bounds the launch's arithmetic: 0 where unknown, or where its multiply-adds
// run on the tensor cores, which it does not bound.
double fp32_peak_over(const RunResult& r) {
  return runs_on_tensor_cores(r) ? 0 : r.arch.fp32_peak_gflops();
}

std::optional<double> compute_share_of_peak(const RunResult& r) {
  const double peak = fp32_peak_over(r);
  return r.timing && r.flops > 0 && peak > 0 ? std::optional(100 * r.gflops() / peak)
                                             : std::nullopt;
}

std::string fp32_peak_note(const RunResult& r) {
  return " of " + format_number(r.arch.fp32_peak_gflops(), 0) + " GFLOP/s";
}

std::optional<double> bytes_moved(const RunResult& r) { return double(r.bytes_moved); }

std::optional<double> arithmetic(const RunResult& r) {
  return r.flops > 0 ? std::optional(r.flops / 1e9) : std::nullopt;
}

std::optional<double> arithmetic_intensity(const RunResult& r) {
  return r.flops > 0 && r.bytes_moved > 0 ? std::optional(r.flops / double(r.bytes_moved))
                                          : std::nullopt;
}

std::optional<double> time_at_peak_bytes(const RunResult& r) {
  const double peak = r.arch.dram_bandwidth_gbps * 1e9;
  return peak > 0 ? std::optional(r.bytes_moved / peak * 1e3) : std::nullopt;
}

std::optional<double> modelled_dram_bytes(const RunResult& r) {
  const std::optional<ModelledTime> t = modelled_time(r);
  return t ? std::optional(t->dram_bytes) : std::nullopt;
}

// A duration with `decimals` decimals, or two significant digits where those would show a time
// that is not zero as 0.0000 (a small launch's floors).
std::string duration_number(double ms, int decimals) {
  if (ms > 0 && ms < 0.5 * std::pow(10.0, -decimals))
    decimals = 1 - static_cast<int>(std::floor(std::log10(ms)));
  return format_number(ms, decimals);
}

std::string modelled_dram_bytes_note(const RunResult& r) {
  const std::optional<ModelledTime> t = modelled_time(r);
  if (!t || !t->dram_from_bytes_moved)
    return "";
  if (t->partly_predicted)
    return " (the bytes it must move: the predicted accesses move fewer, and part of its code is "
           "not predicted; see the Source panel)";
  if (t->predicted_dram_bytes > 0)
    return " (the bytes it must move, a floor: the predicted accesses move only " +
           format_bytes(t->predicted_dram_bytes) + ")";
  return " (the bytes it must move: no access of it is predicted)";
}

// ", bound by shared memory (67,108,864 wavefronts, one a cycle on each of 132 SMs at 1980 MHz);
// DRAM alone 0.1602 ms": the resource that sets the floor, then each other floor alone.
// A kernel that rereads its data through L1 and L2 (matmul/naive: each element of A and B read by
// a whole row or column of threads) moves many times its DRAM bytes through the caches, whose
// bandwidth the modelled time does not count: said, with how many times, so that a learner does
// not rank it ahead of a kernel that stages its data in shared memory.
std::string cache_traffic_caveat(const RunResult& r, double dram_bytes) {
  double through_caches = 0;
  for (const SitePrediction& s : r.prediction.sites)
    if (s.space == MemorySpace::global)
      through_caches += 32.0 * static_cast<double>(s.sectors);
  constexpr double kRereadFactor = 8; // below it, L2's bandwidth (several times DRAM's) keeps up
  if (dram_bytes <= 0 || through_caches < kRereadFactor * dram_bytes)
    return "";
  return "; its accesses request " + format_bytes(through_caches) + " through L1 and L2, " +
         format_number(through_caches / dram_bytes, 0) +
         "x its DRAM bytes, and the caches' bandwidth is not modelled: it can take far longer";
}

std::string modelled_time_note(const RunResult& r) {
  const std::optional<ModelledTime> t = modelled_time(r);
  if (!t)
    return "";
  const Arch& arch = r.arch;
  const std::string bound = t->bound();
  const std::string shared = format_count(static_cast<std::int64_t>(t->wavefronts)) +
                             " wavefronts, one a cycle on each of " +
                             std::to_string(arch.sm_count) + " SMs at " +
                             format_number(arch.sm_clock_mhz, 0) + " MHz";
  const std::string dram =
      format_bytes(t->dram_bytes) + " at " + format_number(arch.dram_bandwidth_gbps, 0) + " GB/s";
  const std::string compute = format_number(t->flops / 1e9, 3) + " GFLOP at " +
                              format_number(arch.fp32_peak_gflops(), 0) + " GFLOP/s";
  std::string text = ", bound by " + bound + " (" +
                     (bound == "FP32 arithmetic" ? compute
                      : bound == "shared memory" ? shared
                                                 : dram) +
                     ")";
  if (bound != "DRAM")
    text += "; DRAM alone " + duration_number(t->dram_ms, 4) + " ms";
  if (bound != "shared memory" && t->shared_ms > 0)
    text += "; shared memory alone " + duration_number(t->shared_ms, 4) + " ms";
  else if (t->shared_ms <= 0 && t->wavefronts > 0)
    text += "; shared memory not modelled (the arch has no SM clock)";
  if (bound != "FP32 arithmetic" && t->compute_ms > 0)
    text += "; FP32 arithmetic alone " + duration_number(t->compute_ms, 4) + " ms";
  else if (runs_on_tensor_cores(r))
    text += "; its multiply-adds run on the tensor cores, whose peak is not modelled";
  // A file that declares more bytes than its predicted accesses move: the declared minimum is
  // the DRAM floor, and the model's own bytes are said beside it.
  if (t->predicted_dram_bytes > 0)
    text += "; DRAM's time is that of the " + format_bytes(r.bytes_moved) +
            " it must move: the predicted accesses move only " +
            format_bytes(t->predicted_dram_bytes);
  return text + cache_traffic_caveat(r, t->dram_bytes);
}

// A counter figure: its key reads the counter of the same key.
template <std::size_t N> struct Key {
  char text[N];
  constexpr Key(const char (&k)[N]) { std::copy_n(k, N, text); }
};
template <Key key> std::optional<double> counter_of(const RunResult& r) {
  return counter(r, key.text);
}
// L1's bytes from or to L2 (the memory chart's links): their own counter, else 32 bytes a sector
// of L2's count (kL1BytesFromSectors).
template <Key bytes> std::optional<double> measured_l1_bytes(const RunResult& r) {
  if (const std::optional<double> counted = counter(r, bytes.text))
    return counted;
  for (const auto& [key, sectors] : kL1BytesFromSectors)
    if (key == bytes.text)
      if (const std::optional<double> counted = counter(r, sectors))
        return 32 * *counted;
  return std::nullopt;
}
template <MemorySpace space, AccessOp op, Sum field>
std::optional<double> model_total(const RunResult& r) {
  return site_total(r, space, op, field);
}

constexpr std::string_view kSiteModel =
    "the access model's sum over the kernel's sites, every warp's addresses evaluated";

const std::array kFigures = {
    // Timings
    Figure{.key = "median_time",
           .display = "median time",
           .unit = "ms",
           .panel = Panel::timings,
           .format = FigureFormat::duration,
           .decimals = 4,
           .meaning = "Median of the cold samples (L2 flushed before each), at the SM clock NVML "
                      "read as they ran. As in nvbench, a sample under 75 % of the default clock "
                      "is throttled and left out, so a slow run says why.",
           .better = Better::lower,
           .sweep = true,
           .measured = timing_of<&TimingStats::median_time>,
           .note = sm_clock_note},
    Figure{.key = "min_time",
           .display = "min",
           .unit = "ms",
           .panel = Panel::timings,
           .format = FigureFormat::duration,
           .decimals = 4,
           .meaning = "The fastest cold sample.",
           .measured = timing_of<&TimingStats::min_time>},
    Figure{.key = "noise",
           .display = "noise",
           .unit = "%",
           .panel = Panel::timings,
           .format = FigureFormat::percent,
           .decimals = 2,
           .meaning = "Relative standard deviation of the samples; sampling stops under 0.5 %.",
           .measured = noise_percent,
           .note = noise_note},
    Figure{.key = "samples",
           .display = "samples",
           .unit = "",
           .panel = Panel::timings,
           .meaning = "Timed launches the median is taken over.",
           .measured = samples},
    Figure{.key = "throughput",
           .display = "throughput",
           .unit = "GB/s",
           .panel = Panel::timings,
           .format = FigureFormat::bandwidth,
           .decimals = 1,
           .meaning = "The bytes the kernel must move over its median time.",
           .ideal = "the device's peak DRAM bandwidth",
           .better = Better::higher,
           .sweep = true,
           .measured =
               [](const RunResult& r) { return r.timing ? std::optional(r.gbps()) : std::nullopt; },
           .note = bytes_moved_note},
    Figure{.key = "share_of_peak",
           .display = "share of DRAM peak",
           .unit = "%",
           .panel = Panel::timings,
           .format = FigureFormat::percent,
           .decimals = 1,
           .meaning =
               "The launch's DRAM bytes over its median time, over the device's peak DRAM "
               "bandwidth: the memory speed of light, as the Roofline panel places the launch. "
               "The bytes are the DRAM counters' where the run measured them, else the model's, "
               "else the bytes the kernel must move; the value says which. A kernel of high "
               "arithmetic intensity is judged by its share of FP32 peak instead.",
           .ideal = "100 %",
           .better = Better::higher,
           .measured = share_of_peak,
           .note = peak_bandwidth_note},
    Figure{.key = "compute",
           .display = "compute",
           .unit = "GFLOP/s",
           .panel = Panel::timings,
           .format = FigureFormat::bandwidth,
           .decimals = 1,
           .meaning = "Floating-point operations over the median time.",
           .measured = compute},
    Figure{.key = "compute_share_of_peak",
           .display = "share of FP32 peak",
           .unit = "%",
           .panel = Panel::timings,
           .format = FigureFormat::percent,
           .decimals = 1,
           .meaning =
               "Compute over the device's FP32 peak: the compute speed of light. The peak is "
               "SMs x FP32 results per clock per SM (the CUDA Best Practices Guide's "
               "arithmetic throughput table: 64 on 7.x and 8.0, 128 from 8.6 on) x 2 FLOP "
               "for a fused multiply-add x the SM clock; tensor cores are not counted.",
           .ideal = "100 %",
           .better = Better::higher,
           .measured = compute_share_of_peak,
           .note = fp32_peak_note},
    // A batch of launches' energy (`--energy`, model/energy.h)
    Figure{.key = "energy_per_launch",
           .display = "energy per launch",
           .unit = "J",
           .panel = Panel::timings,
           .format = FigureFormat::energy,
           .meaning = "The mean power NVML's total-energy counter gives over at least 0.3 s of "
                      "back-to-back launches (L2 warm, no flush between), times a launch's time "
                      "in them.",
           .better = Better::lower,
           .sweep = true,
           .measured = energy_per_launch,
           .note = energy_note},
    Figure{.key = "mean_power",
           .display = "mean power",
           .unit = "W",
           .panel = Panel::timings,
           .format = FigureFormat::ratio,
           .decimals = 0,
           .meaning = "NVML's energy counter's difference between two of its steps, the GPU busy "
                      "with the launches throughout, over the time between; beside it, the mean "
                      "of NVML's instantaneous power read meanwhile.",
           .sweep = true,
           .measured = mean_power,
           .note = sampled_power_note},
    Figure{.key = "energy_efficiency",
           .display = "GFLOP per joule",
           .unit = "GFLOP/J",
           .panel = Panel::timings,
           .format = FigureFormat::ratio,
           .decimals = 2,
           .meaning = "The kernel's floating-point operations over its energy per launch.",
           .better = Better::higher,
           .sweep = true,
           .measured = energy_efficiency},
    // Against a pinned baseline (the Timings panel's comparison, and a sidecar's)
    Figure{.key = "baseline_median",
           .display = "baseline median",
           .unit = "ms",
           .panel = Panel::timings,
           .format = FigureFormat::duration,
           .decimals = 4,
           .meaning = "The pinned baseline's median time"},
    Figure{.key = "time_change",
           .display = "change",
           .unit = "%",
           .panel = Panel::timings,
           .format = FigureFormat::percent,
           .decimals = 1,
           .meaning = "The latest median against the baseline's: negative is faster",
           .better = Better::lower},
    Figure{.key = "speed_up",
           .display = "speed-up",
           .unit = "x",
           .panel = Panel::timings,
           .format = FigureFormat::ratio,
           .decimals = 2,
           .meaning = "The baseline's median over the latest: above 1 the latest is faster",
           .better = Better::higher},
    Figure{.key = "bytes_moved",
           .display = "bytes moved",
           .unit = "bytes",
           .panel = Panel::timings,
           .format = FigureFormat::bytes,
           .meaning = "The fewest bytes the kernel must move: every input read once, every output "
                      "written once.",
           .predicted = bytes_moved},
    Figure{.key = "arithmetic",
           .display = "arithmetic",
           .unit = "GFLOP",
           .panel = Panel::timings,
           .format = FigureFormat::ratio,
           .decimals = 3,
           .meaning = "Floating-point operations the launch performs.",
           .predicted = arithmetic},
    Figure{.key = "arithmetic_intensity",
           .display = "arithmetic intensity, minimum bytes",
           .unit = "FLOP/byte",
           .panel = Panel::timings,
           .format = FigureFormat::ratio,
           .decimals = 2,
           .meaning = "Floating-point operations per byte the launch must move at least (its bytes "
                      "moved): under the device's FLOP/s over its DRAM bandwidth (about 20 for "
                      "FP32 on the H100), no run of it can be compute-bound. The Roofline panel "
                      "divides by the DRAM bytes measured (or modelled), which a kernel that reads "
                      "its data again exceeds.",
           .better = Better::higher,
           .sweep = true,
           .predicted = arithmetic_intensity},
    Figure{.key = "time_at_peak_bytes",
           .display = "bytes moved at peak bandwidth",
           .unit = "ms",
           .panel = Panel::timings,
           .format = FigureFormat::duration,
           .decimals = 4,
           .meaning = "bytes moved / the arch's peak DRAM bandwidth: no run can be faster while "
                      "memory-bound.",
           .predicted = time_at_peak_bytes},
    Figure{
        .key = "dram_bytes",
        .display = "DRAM bytes, modelled",
        .unit = "bytes",
        .panel = Panel::timings,
        .format = FigureFormat::bytes,
        .meaning =
            "The bytes DRAM moves for the model's accesses: each load request reads whole 64-byte "
            "segments (no load finds another warp's data in L2), and stores write each 32-byte "
            "sector once (L2 merges the warps' writes).",
        .predicted = modelled_dram_bytes,
        .note = modelled_dram_bytes_note,
        .sites = SiteSpaces::global,
        .site_predicted = [](const SitePrediction& s) { return double(s.dram_bytes); },
        .site_store = [](SitePrediction& s, std::int64_t v) { s.dram_bytes = v; }},
    Figure{.key = "modelled_time",
           .display = "modelled time at peak",
           .unit = "ms",
           .panel = Panel::timings,
           .format = FigureFormat::duration,
           .decimals = 4,
           .meaning =
               "The longest of three floors for the launch as written: the model's DRAM bytes over "
               "the peak DRAM bandwidth, its shared-memory wavefronts over what the SMs serve (one "
               "a cycle each at the SM clock), and the kernel's floating-point operations over the "
               "FP32 peak. A model, not a measurement: what a sweep colours by where nothing was "
               "timed; it knows no reuse between warps through L2, no latency and no instruction "
               "beyond the memory accesses and the arithmetic counted.",
           .model = "DRAM bytes (64-byte segments read, 32-byte sectors written) and shared "
                    "wavefronts from the access model, over the preset's bandwidth and SM clock; "
                    "the kernel's FLOPs over its FP32 peak",
           .better = Better::lower,
           .sweep = true,
           .predicted = modelled_time_at_peak,
           .note = modelled_time_note,
           .header = "modelled time"},
    Figure{.key = "profiled_range_time",
           .display = "profiled range time",
           .unit = "ns",
           .panel = Panel::timings,
           .meaning = "GPU time of the profiler's range around the launch (CUPTI's "
                      "gpu__time_duration over the "
                      "range): 14 to 42 us more than the kernel alone on the H100. Not the "
                      "kernel's time: that "
                      "is the median time (ncu's gpu__time_duration times the kernel alone).",
           .better = Better::lower,
           .counter = true},
    Figure{.key = "sm_active_cycles",
           .display = "SM active cycles",
           .unit = "cycles",
           .panel = Panel::timings,
           .meaning = "Cycles in which an SM had at least one warp resident, averaged over SMs",
           .counter = true},
    // Occupancy
    Figure{
        .key = "theoretical_occupancy",
        .display = "theoretical occupancy",
        .unit = "%",
        .panel = Panel::occupancy,
        .format = FigureFormat::percent,
        .decimals = 1,
        .meaning =
            "Resident warps per SM over the SM's maximum, from the toolkit's occupancy calculator.",
        .model = "the occupancy calculator over the kernel's registers, shared memory and block",
        .ideal = "100 %",
        .better = Better::higher,
        .sweep = true,
        .predicted = theoretical_occupancy,
        .header = "occupancy"},
    Figure{.key = "achieved_occupancy",
           .display = "achieved occupancy",
           .unit = "%",
           .panel = Panel::occupancy,
           .format = FigureFormat::percent,
           .decimals = 1,
           .meaning =
               "Warps active per cycle over the SM's maximum, from the hardware counters: below "
               "theoretical when warps finish unevenly or the last wave is partial.",
           .model = "the theoretical occupancy: the most it can reach",
           .ideal = "the theoretical occupancy",
           .better = Better::higher,
           .counter = true,
           .sweep = true,
           .predicted = theoretical_occupancy,
           .measured = counter_of<"achieved_occupancy">,
           .reason = achieved_occupancy_reason},
    Figure{.key = "active_warps",
           .display = "active warps per SM",
           .unit = "warps",
           .panel = Panel::occupancy,
           .format = FigureFormat::ratio,
           .decimals = 1,
           .meaning = "Resident warps per active cycle, averaged over SMs",
           .better = Better::higher,
           .counter = true},
    Figure{.key = "blocks_per_sm",
           .display = "blocks per SM",
           .panel = Panel::occupancy,
           .meaning = "Blocks of this launch one SM holds at once.",
           .model = "the occupancy calculator: the fewest blocks any resource allows",
           .better = Better::higher,
           .predicted = of_occupancy<&OccupancyResult::blocks_per_sm>},
    Figure{.key = "warps_per_sm",
           .display = "warps per SM",
           .unit = "",
           .panel = Panel::occupancy,
           .meaning = "Resident warps per SM, of the SM's maximum.",
           .model = "blocks per SM x warps per block",
           .better = Better::higher,
           .predicted = of_occupancy<&OccupancyResult::warps_per_sm>,
           .note = most_warps_note},
    Figure{.key = "shared_memory_per_block",
           .display = "shared memory per block",
           .unit = "B",
           .panel = Panel::occupancy,
           .format = FigureFormat::bytes,
           .meaning = "Shared memory the SM sets aside for each block: the kernel's static and "
                      "dynamic shared memory rounded up to the allocation unit, with the 1 KiB "
                      "the system reserves per block.",
           .model = "the occupancy calculator's allocation",
           .better = Better::lower,
           .predicted = of_occupancy<&OccupancyResult::allocated_shared_memory_per_block>,
           .note = reserved_shared_note,
           .header = "shared/block"},
    Figure{.key = "runtime_blocks_per_sm",
           .display = "runtime blocks per SM",
           .unit = "",
           .panel = Panel::occupancy,
           .meaning = "cudaOccupancyMaxActiveBlocksPerMultiprocessor on the device",
           .ideal = "the model's blocks per SM",
           .better = Better::higher,
           .measured =
               [](const RunResult& r) {
                 return r.runtime_blocks_per_sm >= 0
                            ? std::optional(double(r.runtime_blocks_per_sm))
                            : std::nullopt;
               }},
    Figure{
        .key = "registers",
        .display = "registers per thread",
        .unit = "",
        .panel = Panel::occupancy,
        .meaning =
            "Registers each thread holds, from cudaFuncGetAttributes or the build's ptxas report.",
        .better = Better::lower,
        .sweep = true,
        .measured =
            [](const RunResult& r) {
              return r.attributes ? std::optional(double(r.attributes->registers)) : std::nullopt;
            },
        .note = attributes_source_note,
        .header = "registers"},
    Figure{.key = "local_memory",
           .display = "local memory per thread",
           .unit = "B",
           .panel = Panel::occupancy,
           .format = FigureFormat::bytes,
           .meaning = "Local memory each thread holds: what its registers cannot hold is spilled "
                      "there, and its arrays indexed at run time live there.",
           .ideal = "0 B",
           .better = Better::lower,
           .measured =
               [](const RunResult& r) {
                 return r.attributes ? std::optional(double(r.attributes->local_bytes))
                                     : std::nullopt;
               },
           .header = "local/thread"},
    // How the grid falls into waves of blocks over the SMs: a part of its own.
    Figure{.key = "grid_blocks",
           .display = "grid",
           .unit = "blocks",
           .panel = Panel::occupancy,
           .meaning = "Blocks the launch's grid holds.",
           .predicted = of_waves<&Waves::grid_blocks>,
           .part = "waves"},
    Figure{.key = "blocks_per_wave",
           .display = "blocks per wave",
           .unit = "",
           .panel = Panel::occupancy,
           .meaning = "SMs x blocks per SM: one full wave",
           .predicted = of_waves<&Waves::blocks_per_wave>,
           .part = "waves"},
    Figure{.key = "waves",
           .display = "waves",
           .unit = "",
           .panel = Panel::occupancy,
           .format = FigureFormat::ratio,
           .decimals = 2,
           .meaning = "The grid over one wave's blocks.",
           .predicted = of_waves<&Waves::waves>,
           .note = full_waves_note,
           .part = "waves"},
    Figure{.key = "tail_blocks",
           .display = "tail",
           .unit = "blocks",
           .panel = Panel::occupancy,
           .meaning = "Blocks in the last, partly filled wave: it leaves SMs idle while it runs.",
           .ideal = "0 blocks",
           .better = Better::lower,
           .predicted = of_waves<&Waves::tail_blocks>,
           .note = tail_note,
           .part = "waves"},
    // Global memory
    Figure{.key = "sectors_per_request",
           .display = "sectors per request",
           .unit = "",
           .panel = Panel::global_memory,
           .format = FigureFormat::ratio,
           .decimals = 2,
           .meaning =
               "32-byte sectors each global request touches, at the site that touches the most per "
               "request (measured: the worse of the loads and the stores).",
           .model = kSiteModel,
           .ideal = "the sectors the lanes' bytes need when packed",
           .better = Better::lower,
           .sweep = true,
           .predicted =
               [](const RunResult& r) { return per_request(r, global, &SitePrediction::sectors); },
           .measured = measured_worst_sectors_per_request,
           .ideal_value =
               [](const RunResult& r) {
                 return per_request(r, global, &SitePrediction::ideal_sectors);
               },
           .header = "sectors/req",
           .sites = SiteSpaces::global,
           .site_predicted = [](const SitePrediction& s) { return s.sectors_per_request(); },
           .site_measured = [](const SiteMeasurement& m) -> std::optional<double> {
             return m.sectors / m.executed;
           },
           .site_ideal =
               [](const SitePrediction& s) {
                 return s.requests ? double(s.ideal_sectors) / s.requests : 0;
               },
           .warp_global =
               [](const GlobalAccess& a) {
                 return a.requests ? double(a.sectors) / a.requests : 0.0;
               }},
    Figure{.key = "global_load_instructions",
           .display = "global load instructions",
           .unit = "warp instructions",
           .panel = Panel::global_memory,
           .meaning =
               "LDG instructions executed by warps; on Volta and later each is one request to L1",
           .model = kSiteModel,
           .counter = true,
           .predicted = model_total<global, load, &SitePrediction::requests>,
           .measured = counter_of<"global_load_instructions">,
           .reason = instruction_reason},
    Figure{.key = "global_store_instructions",
           .display = "global store instructions",
           .unit = "warp instructions",
           .panel = Panel::global_memory,
           .meaning = "STG instructions executed by warps; each is one request to L1",
           .model = kSiteModel,
           .counter = true,
           .predicted = model_total<global, store, &SitePrediction::requests>,
           .measured = counter_of<"global_store_instructions">,
           .reason = instruction_reason},
    Figure{.key = "global_load_requests",
           .display = "global load requests",
           .unit = "requests",
           .panel = Panel::global_memory,
           .meaning = "Requests the LSU pipe sent to L1 for global loads",
           .model = kSiteModel,
           .counter = true,
           .predicted = model_total<global, load, &SitePrediction::requests>,
           .measured = counter_of<"global_load_requests">,
           .reason = instruction_reason},
    Figure{.key = "global_store_requests",
           .display = "global store requests",
           .unit = "requests",
           .panel = Panel::global_memory,
           .meaning = "Requests the LSU pipe sent to L1 for global stores",
           .model = kSiteModel,
           .counter = true,
           .predicted = model_total<global, store, &SitePrediction::requests>,
           .measured = counter_of<"global_store_requests">,
           .reason = instruction_reason},
    Figure{.key = "global_load_sectors",
           .display = "global load sectors",
           .unit = "sectors",
           .panel = Panel::global_memory,
           .meaning = "32-byte sectors global loads touched in L1",
           .model = kSiteModel,
           .ideal = "the sectors the lanes' bytes need when packed",
           .better = Better::lower,
           .counter = true,
           .predicted = model_total<global, load, &SitePrediction::sectors>,
           .measured = counter_of<"global_load_sectors">,
           .ideal_value = model_total<global, load, &SitePrediction::ideal_sectors>,
           .reason = global_sector_reason},
    Figure{.key = "global_store_sectors",
           .display = "global store sectors",
           .unit = "sectors",
           .panel = Panel::global_memory,
           .meaning = "32-byte sectors global stores touched in L1",
           .model = kSiteModel,
           .ideal = "the sectors the lanes' bytes need when packed",
           .better = Better::lower,
           .counter = true,
           .predicted = model_total<global, store, &SitePrediction::sectors>,
           .measured = counter_of<"global_store_sectors">,
           .ideal_value = model_total<global, store, &SitePrediction::ideal_sectors>,
           .reason = global_sector_reason},
    Figure{.key = "dram_read_bytes",
           .display = "DRAM bytes read",
           .unit = "bytes",
           .panel = Panel::global_memory,
           .format = FigureFormat::bytes,
           .meaning = "Bytes read from device memory (after L2)",
           .model = "the 64-byte segments of each global load request, no load finding another "
                    "warp's data in L2",
           .ideal = "the bytes moved",
           .better = Better::lower,
           .counter = true,
           .predicted = predicted_dram_read,
           .measured = counter_of<"dram_read_bytes">,
           .reason = dram_read_reason},
    Figure{.key = "dram_write_bytes",
           .display = "DRAM bytes written",
           .unit = "bytes",
           .panel = Panel::global_memory,
           .format = FigureFormat::bytes,
           .meaning = "Bytes written to device memory (after L2)",
           .model = "the 32-byte sectors global stores write, each once",
           .ideal = "the bytes moved",
           .better = Better::lower,
           .counter = true,
           .predicted = predicted_dram_write,
           .measured = counter_of<"dram_write_bytes">,
           .reason = dram_write_reason},
    Figure{.key = "l2_read_sectors_from_l1",
           .display = "L2 sectors read by L1",
           .unit = "sectors",
           .panel = Panel::global_memory,
           .meaning = "Sectors L1 read from L2: global load misses in L1",
           .better = Better::lower,
           .counter = true},
    Figure{.key = "l2_write_sectors_from_l1",
           .display = "L2 sectors written by L1",
           .unit = "sectors",
           .panel = Panel::global_memory,
           .meaning = "Sectors L1 wrote to L2: global stores pass through",
           .better = Better::lower,
           .counter = true},
    Figure{.key = "fp32_add_instructions",
           .display = "FADD thread instructions",
           .unit = "thread instructions",
           .panel = Panel::roofline,
           .meaning = "FP32 adds the threads executed with their predicate on (one FLOP each)",
           .counter = true},
    Figure{.key = "fp32_mul_instructions",
           .display = "FMUL thread instructions",
           .unit = "thread instructions",
           .panel = Panel::roofline,
           .meaning =
               "FP32 multiplies the threads executed with their predicate on (one FLOP each)",
           .counter = true},
    Figure{.key = "fp32_fma_instructions",
           .display = "FFMA thread instructions",
           .unit = "thread instructions",
           .panel = Panel::roofline,
           .meaning =
               "FP32 fused multiply-adds the threads executed with their predicate on (two FLOP "
               "each)",
           .counter = true},
    Figure{.key = "fp32_operations",
           .display = "FP32 operations",
           .unit = "FLOP",
           .panel = Panel::roofline,
           .meaning = "FADD + FMUL + 2 x FFMA thread instructions, as Nsight Compute's roofline "
                      "counts FLOPs, beside the kernel's count of its arithmetic",
           .model = "the kernel's count of its floating-point operations",
           .from_counters = true,
           .predicted = kernel_flops,
           .measured = measured_fp32_operations,
           .reason = fp32_operation_reason},
    Figure{.key = "dram_traffic",
           .display = "DRAM bytes",
           .unit = "bytes",
           .panel = Panel::roofline,
           .format = FigureFormat::bytes,
           .meaning = "Bytes read from and written to device memory, beside the model's",
           .model = "the modelled DRAM bytes of the Timings panel",
           .from_counters = true,
           .predicted = modelled_dram_traffic,
           .measured = measured_dram_traffic,
           .reason = dram_traffic_reason},
    Figure{.key = "l2_traffic",
           .display = "L2 bytes from L1",
           .unit = "bytes",
           .panel = Panel::roofline,
           .format = FigureFormat::bytes,
           .meaning = "Bytes L1 read from and wrote to L2 for global accesses, beside the model's",
           .model = "32 bytes for each global sector of the access model",
           .from_counters = true,
           .predicted = modelled_l2_traffic,
           .measured = measured_l2_traffic,
           .reason = l2_traffic_reason,
           .note = l2_traffic_note},
    // Memory chart: the links ncu's Memory Workload Analysis chart draws (memory_chart.h)
    Figure{.key = "local_load_instructions",
           .display = "local load instructions",
           .unit = "warp instructions",
           .panel = Panel::memory,
           .meaning = "LDL instructions executed by warps: reads of a thread's local memory "
                      "(spilled registers, arrays indexed at run time)",
           .model = "none where the kernel has no local bytes (cudaFuncGetAttributes)",
           .better = Better::lower,
           .counter = true,
           .predicted = no_local_traffic,
           .measured = counter_of<"local_load_instructions">,
           .reason = local_traffic_reason},
    Figure{.key = "local_store_instructions",
           .display = "local store instructions",
           .unit = "warp instructions",
           .panel = Panel::memory,
           .meaning = "STL instructions executed by warps: writes of a thread's local memory",
           .model = "none where the kernel has no local bytes (cudaFuncGetAttributes)",
           .better = Better::lower,
           .counter = true,
           .predicted = no_local_traffic,
           .measured = counter_of<"local_store_instructions">,
           .reason = local_traffic_reason},
    Figure{.key = "local_load_requests",
           .display = "local load requests",
           .unit = "requests",
           .panel = Panel::memory,
           .meaning = "Requests the LSU pipe sent to L1 for local loads",
           .model = "none where the kernel has no local bytes (cudaFuncGetAttributes)",
           .better = Better::lower,
           .counter = true,
           .predicted = no_local_traffic,
           .measured = counter_of<"local_load_requests">,
           .reason = local_traffic_reason},
    Figure{.key = "local_store_requests",
           .display = "local store requests",
           .unit = "requests",
           .panel = Panel::memory,
           .meaning = "Requests the LSU pipe sent to L1 for local stores",
           .model = "none where the kernel has no local bytes (cudaFuncGetAttributes)",
           .better = Better::lower,
           .counter = true,
           .predicted = no_local_traffic,
           .measured = counter_of<"local_store_requests">,
           .reason = local_traffic_reason},
    Figure{.key = "l1_hit_rate",
           .display = "L1 hit rate",
           .unit = "%",
           .panel = Panel::memory,
           .format = FigureFormat::percent,
           .decimals = 1,
           .meaning = "Sectors L1/TEX found in the cache, of all it looked up",
           .better = Better::higher,
           .counter = true,
           .measured = counter_of<"l1_hit_rate">},
    Figure{.key = "l1_read_bytes_from_l2",
           .display = "L1 bytes read from L2",
           .unit = "bytes",
           .panel = Panel::memory,
           .format = FigureFormat::bytes,
           .meaning = "Bytes L2 sent to L1/TEX: the sectors of loads that missed in L1",
           .model = "32 bytes for each sector of the model's global loads (nothing kept in L1)",
           .better = Better::lower,
           .counter = true,
           .predicted = predicted_l1_read_bytes,
           .measured = measured_l1_bytes<"l1_read_bytes_from_l2">,
           .reason = l1_read_reason},
    Figure{.key = "l1_write_bytes_to_l2",
           .display = "L1 bytes written to L2",
           .unit = "bytes",
           .panel = Panel::memory,
           .format = FigureFormat::bytes,
           .meaning = "Bytes L1/TEX sent to L2: global stores and atomics pass through",
           .model = "32 bytes for each sector of the model's global stores and atomics",
           .better = Better::lower,
           .counter = true,
           .predicted = predicted_l1_write_bytes,
           .measured = measured_l1_bytes<"l1_write_bytes_to_l2">,
           .reason = l1_write_reason},
    Figure{.key = "l2_hit_rate",
           .display = "L2 hit rate",
           .unit = "%",
           .panel = Panel::memory,
           .format = FigureFormat::percent,
           .decimals = 1,
           .meaning = "Sectors L2 found in the cache, of all it looked up (reads and writes)",
           .better = Better::higher,
           .counter = true,
           .measured = counter_of<"l2_hit_rate">},
    Figure{.key = "shared_utilisation",
           .display = "shared memory pipe utilisation",
           .unit = "%",
           .panel = Panel::memory,
           .format = FigureFormat::percent,
           .decimals = 1,
           .meaning = "Shared-memory wavefronts over the most the SMs could have run in the launch",
           .counter = true,
           .measured = counter_of<"shared_utilisation">},
    Figure{.key = "l1_read_from_l2_utilisation",
           .display = "L2 to L1 bandwidth used",
           .unit = "%",
           .panel = Panel::memory,
           .format = FigureFormat::percent,
           .decimals = 1,
           .meaning = "Bytes L2 sent to L1/TEX over the most the link could carry in the launch",
           .counter = true,
           .measured = counter_of<"l1_read_from_l2_utilisation">},
    Figure{.key = "l1_write_to_l2_utilisation",
           .display = "L1 to L2 bandwidth used",
           .unit = "%",
           .panel = Panel::memory,
           .format = FigureFormat::percent,
           .decimals = 1,
           .meaning = "Bytes L1/TEX sent to L2 over the most the link could carry in the launch",
           .counter = true,
           .measured = counter_of<"l1_write_to_l2_utilisation">},
    Figure{.key = "l2_utilisation",
           .display = "L2 throughput for L1/TEX",
           .unit = "%",
           .panel = Panel::memory,
           .format = FigureFormat::percent,
           .decimals = 1,
           .meaning = "Sectors L1/TEX asked of the L2 slices over the most they could serve in the "
                      "launch",
           .counter = true,
           .measured = counter_of<"l2_utilisation">},
    Figure{.key = "dram_read_utilisation",
           .display = "DRAM read bandwidth used",
           .unit = "%",
           .panel = Panel::memory,
           .format = FigureFormat::percent,
           .decimals = 1,
           .meaning = "Bytes read from DRAM over the most it could deliver in the launch",
           .counter = true,
           .measured = counter_of<"dram_read_utilisation">},
    Figure{.key = "dram_write_utilisation",
           .display = "DRAM write bandwidth used",
           .unit = "%",
           .panel = Panel::memory,
           .format = FigureFormat::percent,
           .decimals = 1,
           .meaning = "Bytes written to DRAM over the most it could take in the launch",
           .counter = true,
           .measured = counter_of<"dram_write_utilisation">},
    // Shared memory
    Figure{.key = "wavefronts_per_request",
           .display = "wavefronts per request",
           .unit = "",
           .panel = Panel::shared_memory,
           .format = FigureFormat::ratio,
           .decimals = 2,
           .meaning =
               "Shared-memory passes each request needs at the site that needs the most: 1 is "
               "conflict-free, n is an n-way bank conflict.",
           .model = kSiteModel,
           .ideal = "the wavefronts the access width needs with no bank conflict",
           .better = Better::lower,
           .sweep = true,
           .predicted =
               [](const RunResult& r) {
                 return per_request(r, shared, &SitePrediction::wavefronts);
               },
           .ideal_value =
               [](const RunResult& r) {
                 return per_request(r, shared, &SitePrediction::ideal_wavefronts);
               },
           .header = "wavefronts/req",
           .sites = SiteSpaces::shared,
           .site_predicted = [](const SitePrediction& s) { return s.wavefronts_per_request(); },
           .site_measured = [](const SiteMeasurement& m) -> std::optional<double> {
             return m.wavefronts / m.executed;
           },
           .site_ideal =
               [](const SitePrediction& s) {
                 return s.requests ? double(s.ideal_wavefronts) / s.requests : 0;
               },
           .warp_shared =
               [](const SharedAccess& a) {
                 return a.requests ? double(a.wavefronts) / a.requests : 0.0;
               }},
    Figure{.key = "shared_load_instructions",
           .display = "shared load instructions",
           .unit = "warp instructions",
           .panel = Panel::shared_memory,
           .meaning = "LDS instructions executed by warps",
           .model = kSiteModel,
           .counter = true,
           .predicted = model_total<shared, load, &SitePrediction::requests>,
           .measured = counter_of<"shared_load_instructions">,
           .reason = shared_instruction_reason},
    Figure{.key = "shared_store_instructions",
           .display = "shared store instructions",
           .unit = "warp instructions",
           .panel = Panel::shared_memory,
           .meaning = "STS instructions executed by warps",
           .model = kSiteModel,
           .counter = true,
           .predicted = model_total<shared, store, &SitePrediction::requests>,
           .measured = counter_of<"shared_store_instructions">,
           .reason = shared_instruction_reason},
    Figure{.key = "shared_load_wavefronts",
           .display = "shared load wavefronts",
           .unit = "wavefronts",
           .panel = Panel::shared_memory,
           .meaning =
               "Passes of the shared-memory pipeline for loads: one per request without conflicts",
           .model = kSiteModel,
           .ideal = "one per request (wider accesses need 2 or 4)",
           .better = Better::lower,
           .counter = true,
           .predicted = model_total<shared, load, &SitePrediction::wavefronts>,
           .measured = counter_of<"shared_load_wavefronts">,
           .ideal_value = model_total<shared, load, &SitePrediction::ideal_wavefronts>,
           .reason = [](const RunResult& r, double m,
                        double) { return shared_wavefront_reason(r, load, m); }},
    Figure{.key = "shared_store_wavefronts",
           .display = "shared store wavefronts",
           .unit = "wavefronts",
           .panel = Panel::shared_memory,
           .meaning =
               "Passes of the shared-memory pipeline for stores: one per request without conflicts",
           .model = kSiteModel,
           .ideal = "one per request (wider accesses need 2 or 4)",
           .better = Better::lower,
           .counter = true,
           .predicted = model_total<shared, store, &SitePrediction::wavefronts>,
           .measured = counter_of<"shared_store_wavefronts">,
           .ideal_value = model_total<shared, store, &SitePrediction::ideal_wavefronts>,
           .reason = [](const RunResult& r, double m,
                        double) { return shared_wavefront_reason(r, store, m); }},
    Figure{.key = "shared_load_bank_conflicts",
           .display = "shared load bank conflicts",
           .unit = "wavefronts",
           .panel = Panel::shared_memory,
           .meaning = "Extra wavefronts shared loads needed because lanes hit the same bank",
           .model = "the wavefronts beyond the conflict-free ones, per site",
           .ideal = "0",
           .better = Better::lower,
           .counter = true,
           .predicted = model_total<shared, load, &SitePrediction::excess_wavefronts>,
           .measured = counter_of<"shared_load_bank_conflicts">,
           .reason = bank_conflict_reason},
    Figure{.key = "shared_store_bank_conflicts",
           .display = "shared store bank conflicts",
           .unit = "wavefronts",
           .panel = Panel::shared_memory,
           .meaning = "Extra wavefronts shared stores needed because lanes hit the same bank",
           .model = "the wavefronts beyond the conflict-free ones, per site",
           .ideal = "0",
           .better = Better::lower,
           .counter = true,
           .predicted = model_total<shared, store, &SitePrediction::excess_wavefronts>,
           .measured = counter_of<"shared_store_bank_conflicts">,
           .reason = bank_conflict_reason},
    // One line of a person's kernel file over the launch, as its per-line pass measured it.
    Figure{.key = "line_instructions",
           .display = "instructions",
           .unit = "instructions",
           .panel = Panel::source,
           .meaning = "Warp-level instructions issued on this line of a kernel file over the "
                      "launch, of every kind (Nsight Compute's Instructions Executed on its source "
                      "page)"},
    // One access site over the launch (the site tables) or one warp's access (the memory maps);
    // their keys are the fields of a site in `warplens model --json` and of a map in a sidecar.
    Figure{.key = "requests",
           .display = "requests",
           .unit = "requests",
           .panel = Panel::counters,
           .meaning = "Warp-level instructions at this site over the whole launch",
           .model = kSiteModel,
           .sites = SiteSpaces::both,
           .site_predicted = [](const SitePrediction& s) { return double(s.requests); },
           .site_store = [](SitePrediction& s, std::int64_t v) { s.requests = v; },
           .site_measured = [](const SiteMeasurement& m) -> std::optional<double> {
             return m.executed;
           },
           .warp_global = [](const GlobalAccess& a) { return double(a.requests); },
           .warp_shared = [](const SharedAccess& a) { return double(a.requests); }},
    Figure{.key = "width",
           .display = "width",
           .unit = "B",
           .panel = Panel::counters,
           .meaning = "Bytes each lane loads or stores at this site",
           .sites = SiteSpaces::both,
           .site_predicted = [](const SitePrediction& s) { return double(s.width); },
           .site_store = [](SitePrediction& s, std::int64_t v) { s.width = static_cast<int>(v); },
           .site_bounds = {1, 1024}},
    Figure{.key = "sectors",
           .display = "sectors",
           .unit = "sectors",
           .panel = Panel::global_memory,
           .meaning = "32-byte sectors the site's requests touch (one warp's, in the warp map)",
           .model = kSiteModel,
           .ideal = "ideal sectors",
           .better = Better::lower,
           .sites = SiteSpaces::global,
           .site_predicted = [](const SitePrediction& s) { return double(s.sectors); },
           .site_store = [](SitePrediction& s, std::int64_t v) { s.sectors = v; },
           .site_measured = [](const SiteMeasurement& m) -> std::optional<double> {
             return m.sectors;
           },
           .warp_global = [](const GlobalAccess& a) { return double(a.sectors); }},
    Figure{.key = "ideal_sectors",
           .display = "ideal sectors",
           .unit = "sectors",
           .panel = Panel::global_memory,
           .meaning = "The sectors the lanes' bytes would need packed side by side",
           .sites = SiteSpaces::global,
           .site_predicted = [](const SitePrediction& s) { return double(s.ideal_sectors); },
           .site_store = [](SitePrediction& s, std::int64_t v) { s.ideal_sectors = v; },
           .warp_global = [](const GlobalAccess& a) { return double(a.ideal_sectors); }},
    Figure{.key = "lines",
           .display = "lines",
           .unit = "128-byte lines",
           .panel = Panel::global_memory,
           .meaning = "128-byte cache lines one warp's access touches",
           .warp_global = [](const GlobalAccess& a) { return double(a.lines); }},
    Figure{.key = "bytes_used",
           .display = "bytes used",
           .unit = "bytes",
           .panel = Panel::global_memory,
           .format = FigureFormat::bytes,
           .meaning = "Bytes the lanes ask for",
           .sites = SiteSpaces::global,
           .site_predicted = [](const SitePrediction& s) { return double(s.bytes_used); },
           .site_store = [](SitePrediction& s, std::int64_t v) { s.bytes_used = v; },
           .warp_global = [](const GlobalAccess& a) { return double(a.bytes_used); }},
    Figure{.key = "bytes_fetched",
           .display = "bytes fetched",
           .unit = "bytes",
           .panel = Panel::global_memory,
           .format = FigureFormat::bytes,
           .meaning = "Bytes of the sectors touched: what the memory system moves for the lanes",
           .ideal = "bytes used",
           .better = Better::lower,
           .sites = SiteSpaces::global,
           .site_predicted = [](const SitePrediction& s) { return double(s.bytes_fetched); },
           .site_store = [](SitePrediction& s, std::int64_t v) { s.bytes_fetched = v; },
           .warp_global = [](const GlobalAccess& a) { return double(a.bytes_fetched); }},
    Figure{.key = "used_of_fetched",
           .display = "used / fetched",
           .unit = "%",
           .panel = Panel::global_memory,
           .format = FigureFormat::percent,
           .decimals = 1,
           .meaning = "Bytes used over bytes fetched: the share of the traffic the lanes need",
           .ideal = "100 %",
           .better = Better::higher,
           .sites = SiteSpaces::global,
           .site_predicted =
               [](const SitePrediction& s) {
                 return s.bytes_fetched ? 100.0 * double(s.bytes_used) / double(s.bytes_fetched)
                                        : 0;
               },
           .warp_global =
               [](const GlobalAccess& a) {
                 return a.bytes_fetched ? 100.0 * a.bytes_used / a.bytes_fetched : 0.0;
               }},
    Figure{.key = "wavefronts",
           .display = "wavefronts",
           .unit = "wavefronts",
           .panel = Panel::shared_memory,
           .meaning =
               "Shared-memory passes the site's requests need (one warp's, in the bank grid)",
           .model = kSiteModel,
           .ideal = "ideal wavefronts",
           .better = Better::lower,
           .sites = SiteSpaces::shared,
           .site_predicted = [](const SitePrediction& s) { return double(s.wavefronts); },
           .site_store = [](SitePrediction& s, std::int64_t v) { s.wavefronts = v; },
           .site_measured = [](const SiteMeasurement& m) -> std::optional<double> {
             return m.wavefronts;
           },
           .warp_shared = [](const SharedAccess& a) { return double(a.wavefronts); }},
    Figure{.key = "ideal_wavefronts",
           .display = "ideal wavefronts",
           .unit = "wavefronts",
           .panel = Panel::shared_memory,
           .meaning = "The passes the access width needs with no bank conflict",
           .sites = SiteSpaces::shared,
           .site_predicted = [](const SitePrediction& s) { return double(s.ideal_wavefronts); },
           .site_store = [](SitePrediction& s, std::int64_t v) { s.ideal_wavefronts = v; },
           .warp_shared = [](const SharedAccess& a) { return double(a.ideal_wavefronts); }},
    Figure{.key = "excess_wavefronts",
           .display = "excess wavefronts",
           .unit = "wavefronts",
           .panel = Panel::shared_memory,
           .meaning = "Wavefronts beyond the ideal: what CUPTI counts as bank conflicts",
           .ideal = "0",
           .better = Better::lower,
           .header = "excess",
           .sites = SiteSpaces::shared,
           .site_predicted = [](const SitePrediction& s) { return double(s.excess_wavefronts); },
           .site_store = [](SitePrediction& s, std::int64_t v) { s.excess_wavefronts = v; },
           .warp_shared = [](const SharedAccess& a) { return double(a.excess_wavefronts); }},
    Figure{.key = "conflict_degree",
           .display = "bank conflict degree",
           .unit = "-way",
           .panel = Panel::shared_memory,
           .meaning = "The most distinct words one bank serves in one request: an n-way conflict "
                      "needs n passes",
           .ideal = "1",
           .better = Better::lower,
           .header = "worst",
           .sites = SiteSpaces::shared,
           .site_predicted = [](const SitePrediction& s) { return double(s.conflict_degree); },
           .site_store = [](SitePrediction& s,
                            std::int64_t v) { s.conflict_degree = static_cast<int>(v); },
           .site_bounds = {0, std::numeric_limits<int>::max()},
           .warp_shared = [](const SharedAccess& a) { return double(a.conflict_degree); }},
    Figure{.key = "lanes",
           .display = "lanes",
           .unit = "lanes",
           .panel = Panel::divergence,
           .meaning = "Lanes that made the site's accesses, summed over its warp-level "
                      "instructions: 32 each where no lane is off",
           .model = kSiteModel,
           .sites = SiteSpaces::both,
           .site_predicted = [](const SitePrediction& s) { return s.lanes_known(); },
           .site_store = [](SitePrediction& s, std::int64_t v) { s.lanes = v; }},
    Figure{.key = "lanes_per_request",
           .display = "lanes per request",
           .unit = "of 32 lanes",
           .panel = Panel::divergence,
           .format = FigureFormat::ratio,
           .decimals = 1,
           .meaning = "Active lanes per warp-level instruction at this site: fewer than 32 where a "
                      "branch, a guard or a part-full warp turned lanes off (a divergent branch "
                      "runs each side with part of the warp)",
           .model = kSiteModel,
           .ideal = "32",
           .better = Better::higher,
           .sites = SiteSpaces::both,
           .site_predicted = [](const SitePrediction& s) { return s.lanes_per_request(); }},
    Figure{.key = "active_lanes",
           .display = "active lanes",
           .unit = "of 32 lanes",
           .panel = Panel::divergence,
           .meaning = "Lanes of the warp that make the access (the others are off: a branch, a "
                      "guard or a partial warp)",
           .ideal = "32",
           .better = Better::higher,
           .warp_lanes = [](const WarpAccess& a) { return double(std::popcount(a.active_mask)); }},
    // Divergence
    Figure{.key = "lanes_per_instruction",
           .display = "lanes per instruction",
           .unit = "lanes",
           .panel = Panel::divergence,
           .format = FigureFormat::ratio,
           .decimals = 1,
           .meaning = "Thread instructions over warp instructions, over the whole launch: 32 when "
                      "no lane ever idles",
           .ideal = "32",
           .better = Better::higher,
           .measured = lanes_per_instruction},
    Figure{.key = "warp_instructions",
           .display = "warp instructions",
           .unit = "warp instructions",
           .panel = Panel::divergence,
           .meaning = "Instructions executed, counted once per warp",
           .counter = true},
    Figure{
        .key =
            "thread_instructions",
        .display = "thread instructions",
        .unit = "thread instructions",
        .panel = Panel::divergence,
        .meaning =
            "Instructions executed, counted once per active lane: 32 x warp instructions when no "
            "lane is ever off",
        .ideal = "32 per warp instruction",
        .better = Better::higher,
        .counter = true},
};

} // namespace

bool runs_on_tensor_cores(const RunResult& r) {
  const KernelDesc* kernel = find_kernel(r.kernel_id);
  return kernel && kernel->tensor_cores;
}

namespace {

// Whether the launch's bytes_moved is the fewest it must move (a bundled kernel's, a kernel file's
// `bytes`), not a kernel file's guess of each buffer once.
bool bytes_are_a_floor(const RunResult& r) {
  const KernelDesc* kernel = find_kernel(r.kernel_id);
  return !kernel || kernel->bytes_are_a_floor;
}

} // namespace

std::optional<ModelledTime> modelled_time(const RunResult& r) {
  ModelledTime t;
  bool global_sites = false;
  for (const SitePrediction& site : r.prediction.sites) {
    global_sites = global_sites || site.space == global;
    (site.space == global ? t.dram_bytes : t.wavefronts) +=
        static_cast<double>(site.space == global ? site.dram_bytes : site.wavefronts);
  }
  // Where no access is predicted (a library call), the bytes the kernel must move are the DRAM
  // floor: a time from its arithmetic alone would be many times too fast. The same where part of
  // a kernel file's code is not predicted (its notes say which) and what is falls short of them.
  if (!global_sites || (partly_predicted(r) && t.dram_bytes < static_cast<double>(r.bytes_moved))) {
    t.dram_bytes = static_cast<double>(r.bytes_moved);
    t.dram_from_bytes_moved = true;
    t.partly_predicted = global_sites;
  } else if (bytes_are_a_floor(r) && static_cast<double>(r.bytes_moved) > t.dram_bytes * 1.01) {
    // The bytes it must move are a floor the kernel cannot beat, whatever its accesses show: a
    // modelled time under "bytes moved at peak bandwidth" would contradict it on the same panel.
    t.predicted_dram_bytes = t.dram_bytes;
    t.dram_bytes = static_cast<double>(r.bytes_moved);
    t.dram_from_bytes_moved = true;
  }
  const double dram_peak = r.arch.dram_bandwidth_gbps * 1e9;
  const double wavefronts_per_second = r.arch.sm_count * r.arch.sm_clock_mhz * 1e6;
  if (dram_peak > 0)
    t.dram_ms = t.dram_bytes / dram_peak * 1e3;
  if (wavefronts_per_second > 0)
    t.shared_ms = t.wavefronts / wavefronts_per_second * 1e3;
  t.flops = r.flops;
  if (const double fp32_peak = fp32_peak_over(r) * 1e9; fp32_peak > 0)
    t.compute_ms = t.flops / fp32_peak * 1e3;
  if (t.ms() <= 0)
    return std::nullopt;
  return t;
}

std::optional<double> share_of_dram_peak(const RunResult& r, double bytes) {
  if (!r.timing || r.timing->median_time <= 0 || r.arch.dram_bandwidth_gbps <= 0)
    return std::nullopt;
  return 100 * bytes / (r.timing->median_time * 1e-3) / 1e9 / r.arch.dram_bandwidth_gbps;
}

DramBytes dram_bytes_of(const RunResult& r) {
  if (const std::optional<double> measured = measured_dram_traffic(r); measured && *measured > 0)
    return {*measured, r.recorded_on.empty() ? "the DRAM counters" : "the recorded DRAM counters",
            true};
  const std::optional<ModelledTime> t = modelled_time(r);
  const double modelled = t ? t->dram_bytes : static_cast<double>(r.bytes_moved);
  return {modelled, t && !t->dram_from_bytes_moved ? "the model" : "the bytes it must move", false};
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

namespace {

// "1.50x" and "32-way" read as one word; every other unit follows after a space.
std::string with_unit(const std::string& number, const std::string& unit) {
  return number + (unit.empty() || unit == "x" || unit.starts_with('-') ? unit : " " + unit);
}

} // namespace

std::string figure_text(const Figure& f, double value) {
  const std::string unit(f.unit);
  switch (f.format) {
  case FigureFormat::duration:
    return with_unit(duration_number(value, f.decimals), unit);
  case FigureFormat::bytes:
    return format_bytes(value);
  case FigureFormat::count: // grouped as a whole number where one holds it (llround's range)
    return with_unit(
        std::fabs(value) < 9e18 ? format_count(std::llround(value)) : format("%.3g", value), unit);
  case FigureFormat::percent:
    return format_percent(value, f.decimals);
  case FigureFormat::energy:
    return format_joules(value);
  case FigureFormat::bandwidth:
  case FigureFormat::ratio:
    break;
  }
  return with_unit(format_number(value, f.decimals), unit);
}

std::optional<std::string> figure_text(const Figure& f, const RunResult& r) {
  const std::optional<double> value = figure_value(f, r);
  if (!value)
    return std::nullopt;
  return figure_text(f, *value) + (f.note ? f.note(r) : "");
}

std::string figure_csv(const Figure& f, double value) {
  if (std::isnan(value)) // not known: an empty cell
    return "";
  return f.format == FigureFormat::count ? format("%.0f", value) : format("%.9g", value);
}

std::span<const Figure* const> launch_figures() {
  static const std::vector<const Figure*> launch = [] {
    std::vector<const Figure*> rows;
    for (const Figure& f : kFigures)
      if (!f.counter && !f.from_counters && (f.predicted || f.measured))
        rows.push_back(&f);
    return rows;
  }();
  return launch;
}

std::span<const Figure* const> site_figures() {
  static const std::vector<const Figure*> site = [] {
    std::vector<const Figure*> rows;
    for (const Figure& f : kFigures)
      if (f.site_predicted)
        rows.push_back(&f);
    return rows;
  }();
  return site;
}

bool site_has(const Figure& f, MemorySpace space) {
  return f.sites == SiteSpaces::both ||
         f.sites == (space == MemorySpace::global ? SiteSpaces::global : SiteSpaces::shared);
}

std::vector<const Figure*> site_figures(MemorySpace space) {
  std::vector<const Figure*> rows;
  for (const Figure* f : site_figures())
    if (site_has(*f, space))
      rows.push_back(f);
  return rows;
}

std::optional<double> site_measured_value(const Figure& f, const RunResult& r, std::size_t site) {
  if (!f.site_measured || !r.site_counts || !r.site_counts->available ||
      site >= r.site_counts->sites.size())
    return std::nullopt;
  const SiteMeasurement& m = r.site_counts->sites[site];
  if (m.executed <= 0 || !m.measured_with.empty())
    return std::nullopt;
  return f.site_measured(m);
}

nlohmann::json warp_figures_json(const WarpAccess& access, MemorySpace space) {
  nlohmann::json figures = nlohmann::json::object();
  const bool any_lane = access.active_mask != 0;
  const GlobalAccess global =
      space == MemorySpace::global && any_lane ? analyse_global(access) : GlobalAccess{};
  const SharedAccess shared =
      space == MemorySpace::shared && any_lane ? analyse_shared(access) : SharedAccess{};
  for (const Figure& f : kFigures) {
    if (f.warp_lanes)
      figures[std::string(f.key)] = figure_json(f, f.warp_lanes(access));
    else if (f.warp_global && space == MemorySpace::global && any_lane)
      figures[std::string(f.key)] = figure_json(f, f.warp_global(global));
    else if (f.warp_shared && space == MemorySpace::shared && any_lane)
      figures[std::string(f.key)] = figure_json(f, f.warp_shared(shared));
  }
  return figures;
}

nlohmann::json figure_json(const Figure& f, double value) {
  if (std::isnan(value)) // not known: a result made before the model kept it
    return nullptr;
  const bool whole = f.format == FigureFormat::count || f.format == FigureFormat::bytes;
  if (whole && std::fabs(value) < 9e18 && value == std::round(value))
    return static_cast<std::int64_t>(value);
  return value;
}

nlohmann::json launch_figures_json(const RunResult& r) {
  nlohmann::json figures = nlohmann::json::object();
  for (const Figure* f : launch_figures())
    if (const std::optional<double> value = figure_value(*f, r); value && std::isfinite(*value))
      figures[std::string(f->key)] = *value;
  return figures;
}

std::string launch_figure_headers() {
  std::string headers;
  for (const Figure* f : launch_figures()) // appended, not "," + key: GCC 12's -Wrestrict
    headers.append(",").append(f->key);
  return headers;
}

std::string launch_figure_cells(const RunResult& r) {
  std::string cells;
  for (const Figure* f : launch_figures()) {
    const std::optional<double> value = figure_value(*f, r);
    cells.append(",").append(value ? figure_csv(*f, *value) : std::string());
  }
  return cells;
}

std::string_view figure_header(const Figure& f) { return f.header.empty() ? f.display : f.header; }

std::string figure_label(const Figure& f) {
  std::string label(f.display);
  if (!f.unit.empty())
    label += " (" + std::string(f.unit) + ")";
  return label;
}

} // namespace wl
