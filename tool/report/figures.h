#pragma once
// Every figure WarpLens shows, defined once: its key, display name, unit, meaning, the panel that
// shows it, how the model predicts it, what is ideal and which way is better, how to read its
// value from a result, and the known reasons a measurement differs from the prediction. The CLI
// printers, JSON and CSV, the counter comparison, the panels, the sweep's "colour by" and the
// baseline columns all read this table. The CUPTI metric names behind the counter figures, per
// chip, are data (assets/metrics.json, keyed by the same keys), checked against the chip when
// the profiler opens; everything else about a counter is here.

#include "model/access.h"
#include "model/run_result.h"
#include "report/panel_table.h"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace wl {

enum class Better { lower, higher, neither };

// How a figure's value is written for people, by the one formatter (figure_text): the panels,
// the CLI's tables and the sidecar's texts. CSV and JSON carry the plain number in the figure's
// unit.
enum class FigureFormat {
  duration,  // a time in its unit, `decimals` after the point: "0.0123 ms"
  bytes,     // binary units: "48 KiB", "1.1 GiB"
  bandwidth, // a rate in its unit: "2,981.4 GB/s", "1,204.1 GFLOP/s"
  percent,   // 0 to 100: "75.0 %"
  count,     // a whole number, its digits grouped: "1,048,576 sectors"
  ratio,     // a quotient or an amount in its unit: "2.50 sectors", "1.50x", "0.268 GFLOP"
  energy,    // joules in the unit that suits: "41.2 mJ", "3.10 µJ"
};

// How a figure's value is read from one launch's result; nullopt where the result has none.
using FigureReader = std::optional<double> (*)(const RunResult&);
// Why a measured value may differ from the model's, from the run's other figures; "" if unknown.
using FigureReason = std::string (*)(const RunResult&, double measured, double predicted);
// Words a value is shown with, from the run's other figures (" of 3,352 GB/s"); "" for none.
using FigureNote = std::string (*)(const RunResult&);

// The sites a figure of one access site belongs to, by their memory space.
enum class SiteSpaces { none, global, shared, both };
// A site's figure as the model predicts it.
using SitePredicted = double (*)(const SitePrediction&);
// A site's figure as the per-site pass (`--per-site`) measured it, where it measures it.
using SiteMeasured = std::optional<double> (*)(const SiteMeasurement&);
// One warp's access as the memory maps and the Index playground show it.
using WarpGlobal = double (*)(const GlobalAccess&);
using WarpShared = double (*)(const SharedAccess&);
using WarpLanes = double (*)(const WarpAccess&); // of either space: which lanes take part
// A site figure the model keeps (not one it derives from others): how a result read back from
// JSON sets it, and the values it may take there.
using SiteStore = void (*)(SitePrediction&, std::int64_t);
struct SiteBounds {
  std::int64_t least = 0, most = std::numeric_limits<std::int64_t>::max();
};

// A row of the table: designated initialisers only, so a row says what each value is.
struct Figure {
  std::string_view key = {};     // "global_load_sectors": the counter's key in metrics.json too
  std::string_view display = {}; // "Global load sectors": every label, header and column says this
  std::string_view unit = {};    // "sectors"; "" for a pure count or text
  Panel panel = Panel::counters; // the panel that shows it (panel_table.h)
  FigureFormat format = FigureFormat::count;
  int decimals = 0;              // after the point, for every format but bytes and count
  std::string_view meaning = {}; // one line, for tooltips and the manual
  std::string_view model = {};   // how the model predicts it; "" when it does not
  std::string_view ideal = {};   // what is ideal, in words; "" when nothing is
  Better better = Better::neither;
  bool counter = false; // measured by a CUPTI metric of assets/metrics.json
  // Measured from several counters (FLOPs from FADD, FMUL and FFMA): a row of the counter
  // comparison beside the model's value, not a figure of the launch as a whole.
  bool from_counters = false;
  bool sweep = false;                 // offered by a sweep's "colour by"
  FigureReader predicted = nullptr;   // the model's value
  FigureReader measured = nullptr;    // the device's value (counters, timing, attributes)
  FigureReader ideal_value = nullptr; // the ideal for this launch, where it has one
  FigureReason reason = nullptr;      // known reasons for a measured-vs-model difference
  FigureNote note = nullptr;          // words shown after the value
  std::string_view header = {}; // a shorter column header where tables are narrow; "" = display
  // A table of its own inside the panel ("waves": how the grid falls into waves); "" = the main.
  std::string_view part = {};
  // A figure of one access site too: of which sites, the model's value and the measured one.
  SiteSpaces sites = SiteSpaces::none;
  SitePredicted site_predicted = nullptr;
  SiteStore site_store = nullptr;
  SiteBounds site_bounds = {};
  SiteMeasured site_measured = nullptr;
  SitePredicted site_ideal = nullptr; // the site's ideal value, where it has one
  // A figure of one warp's access too (a memory map's, the playground's), by its space.
  WarpGlobal warp_global = nullptr;
  WarpShared warp_shared = nullptr;
  WarpLanes warp_lanes = nullptr;
};

std::span<const Figure> all_figures();

// The fastest the launch can run by the model's traffic and its arithmetic, and what bounds it.
struct ModelledTime {
  double dram_bytes = 0, dram_ms = 0; // the model's DRAM bytes, over the peak bandwidth
  // No access of the kernel is predicted (a library call), or part of a kernel file's code is not
  // (cp.async, a loop past the budget: its notes) and the predicted bytes fall short of what it
  // must move: dram_bytes are the bytes it must move (RunResult::bytes_moved), a floor.
  bool dram_from_bytes_moved = false;
  bool partly_predicted = false; // the second case: some accesses predicted, others not
  // Every access predicted, but their DRAM bytes fall short of the bytes it must move (a kernel
  // file's declared `bytes`): those bytes are the floor, and these the model's own.
  double predicted_dram_bytes = 0;
  // The shared wavefronts over what the SMs serve, one a cycle each: 0 where the arch has no clock.
  double wavefronts = 0, shared_ms = 0;
  // The kernel's floating-point operations over the arch's FP32 peak: 0 where either is unknown.
  double flops = 0, compute_ms = 0;
  double ms() const { return std::max({dram_ms, shared_ms, compute_ms}); }
  const char* bound() const {
    return compute_ms >= std::max(dram_ms, shared_ms) && compute_ms > 0 ? "FP32 arithmetic"
           : shared_ms > dram_ms                                        ? "shared memory"
                                                                        : "DRAM";
  }
};
// nullopt where the launch moves nothing the model counts, or the arch lacks the peaks.
std::optional<ModelledTime> modelled_time(const RunResult& result);

// The DRAM bytes the launch's share of DRAM peak and its roofline point divide by, and whose they
// are: the DRAM counters' where the run measured them, else the model's, else the bytes it must
// move. One definition, so the Timings and Roofline panels never disagree.
struct DramBytes {
  double bytes = 0;
  std::string source; // "the DRAM counters", "the model", "the bytes it must move"
  bool measured = false;
};
DramBytes dram_bytes_of(const RunResult& result);
// Whether the launch's kernel runs its multiply-adds on the tensor cores
// (KernelDesc::tensor_cores): the FP32 peak then bounds nothing, and neither the modelled time nor
// the roofline use it.
bool runs_on_tensor_cores(const RunResult& result);

// The site of a memory space with the most sectors (global) or wavefronts (shared) per request:
// the site "sectors per request" and "wavefronts per request" are of. nullptr where none has a
// request.
const SitePrediction* worst_site(const RunResult& result, MemorySpace space);
// `bytes` over the median time, in % of the preset's DRAM bandwidth (the Timings panel's share of
// DRAM peak, a DRAM link's share in the memory chart); nullopt without a timing or a bandwidth.
std::optional<double> share_of_dram_peak(const RunResult& result, double bytes);

// The figure of a key; nullptr when there is none.
const Figure* find_figure(std::string_view key);

// L1's bytes from and to L2 where the run lacks their own counters: 32 bytes a sector of L2's
// count of L1's sectors (the default set's, and an older recording's), equal to them on the H200.
inline constexpr std::array<std::pair<std::string_view, std::string_view>, 2> kL1BytesFromSectors =
    {{{"l1_read_bytes_from_l2", "l2_read_sectors_from_l1"},
      {"l1_write_bytes_to_l2", "l2_write_sectors_from_l1"}}};
// The figure of a key the code names; a key missing from the table is a programming error.
const Figure& figure(std::string_view key);

// Its value in a result: measured where the result has it; else, for a figure that is not a
// counter, the model's (a counter figure's prediction is what the comparison sets beside it).
std::optional<double> figure_value(const Figure& figure, const RunResult& result);
// The value written for people, as the figure's format says, with its unit: "0.0123 ms".
std::string figure_text(const Figure& figure, double value);
// The value and its note, from a result: "99.1 % of 3,352 GB/s"; nullopt where it has no value.
std::optional<std::string> figure_text(const Figure& figure, const RunResult& result);
// The plain number a CSV cell holds: whole for a count, else 9 significant digits.
std::string figure_csv(const Figure& figure, double value);

// The figures of one launch as a whole, in table order: every row that is no counter (those
// have their comparison) and has a reader. The CLI's figure table, run_json's "figures", both CSV
// writers' launch columns and the panels that list figures all take them from here, so a row
// added to the table appears in each of them, under its key and written by figure_text.
std::span<const Figure* const> launch_figures();
// Its launch figures with a value in this result, each once, as "key": value.
nlohmann::json launch_figures_json(const RunResult& result);
// The CSV's launch columns: ",median_time,min_time,..." (a comma before each key), and one row's
// cells in the same order, empty where the result has no value.
std::string launch_figure_headers();
std::string launch_figure_cells(const RunResult& result);

// The figures of one access site, in table order: of every site, or of a space's sites. A site's
// JSON (`warplens model --json`'s "sites"), the CSV's site columns and the lessons' site figures
// all take them from here, so a row with a site reader appears in each of them under its key.
std::span<const Figure* const> site_figures();
std::vector<const Figure*> site_figures(MemorySpace space);
// Whether a site of this space has the figure.
bool site_has(const Figure& figure, MemorySpace space);
// The per-site pass's value of one site, where the pass measured that site on its own (a site
// measured with others shares its line's sums, which are not its own); else nullopt.
std::optional<double> site_measured_value(const Figure& figure, const RunResult& result,
                                          std::size_t site);
// The figures of one warp's access of a space, each "key": value, in table order: a memory map's
// and the playground's in a sidecar, and what a playground lesson may ask. The lanes' figures
// always; the space's where a lane takes part (a warp with none makes no request).
nlohmann::json warp_figures_json(const WarpAccess& access, MemorySpace space);
// A figure's value in JSON: a whole number for a count, else the number as it is.
nlohmann::json figure_json(const Figure& figure, double value);

// "median time (ms)": the display name with the unit, for axes, headers and lists.
std::string figure_label(const Figure& figure);
// The column header of a figure: its short header where it has one, else its display name.
std::string_view figure_header(const Figure& figure);

} // namespace wl
