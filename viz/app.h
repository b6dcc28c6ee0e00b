#pragma once
// The state of the GUI that outlives a frame: what the user chose (kernel, parameters, block,
// arch, live, theme, open panels, the maps' warps, the sweep's sides), what came back (the latest
// result, recent history, a pinned baseline, the last sweep), and the status line. Panels read it
// and change the choices; results arrive only through `App::show`, as values, from a
// ResultSource (the models on a background thread, or the worker process through WorkerSource).
// Nothing here touches CUDA, GLFW or OpenGL.

#include "arch.h"
#include "kernel_request.h"
#include "occupancy.h"
#include "recording.h"
#include "run_result.h"
#include "sweep_view.h"

#include <array>
#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace wl::viz {

enum class Panel { launch, occupancy, timings, counters, global_memory, shared_memory, divergence, sweep };
inline constexpr std::array kAllPanels = {Panel::launch,        Panel::occupancy,     Panel::timings,
                                          Panel::counters,      Panel::global_memory, Panel::shared_memory,
                                          Panel::divergence,    Panel::sweep};
const char *panel_name(Panel panel);  // "launch", "occupancy", ... (CLI --panel, file names)
// The panels a kernel's teaching note points at ("Bank grid: ...", "Timings: ..."), in panel order.
std::vector<Panel> panels_named_in(const std::string &note);
const char *panel_title(Panel panel); // "Launch", ... (the window title)
std::optional<Panel> parse_panel(const std::string &name);

enum class Theme { dark, light };

// Which warp a memory map draws: the n-th site of its memory space, a block of the grid, a warp of
// the block and an iteration of the site's loop (brought into range when drawn).
struct MapChoice {
  int site = -1; // -1: the site whose first warp wastes most (most excess sectors or wavefronts)
  std::array<int, 3> block{0, 0, 0};
  int warp = 0;
  std::int64_t iteration = 0;
};

// What a source hands back: a result, a sweep, or the one-line reason there is none.
struct SourceUpdate {
  std::optional<RunResult> result{};
  std::string error{};
  std::optional<SweepData> sweep{}; // the answer to submit_sweep
  bool for_sweep = false;         // the error answers submit_sweep
};

// Where results come from. `submit` never blocks (the newest request wins); `poll` returns what
// arrived since the last call. The GUI calls both once per frame at most. A `live` request
// follows an edit in live mode: a source that measures keeps it brief (a short timing budget, no
// counters) so the panels follow the edits; the Run button asks for the full measurement.
class ResultSource {
public:
  virtual ~ResultSource() = default;
  virtual void submit(const KernelRequest &request, const Arch &arch, bool live) = 0;
  virtual std::optional<SourceUpdate> poll() = 0;
  virtual bool busy() const = 0;
  virtual std::string mode() const = 0; // the status line's first part: which mode and why
  // A sweep of one kernel over many shapes: measured where the source measures, modelled where it
  // models; the answer comes through poll. Progress as (shapes done, of all); cancel stops it.
  virtual void submit_sweep(const KernelRequest &request, const std::vector<BlockShape> &shapes, const Arch &arch) = 0;
  virtual std::pair<int, int> sweep_progress() const { return {0, 0}; }
  virtual void cancel_sweep() {}
};

// A screenshot the frame asked for; the front-end saves it after rendering.
struct ScreenshotRequest {
  std::optional<Panel> panel; // none: the whole window
  std::string path;           // empty: a timestamped name in the current folder
};

// A panel's window on screen, for cropping a screenshot to it.
struct PanelRect {
  float x = 0, y = 0, width = 0, height = 0;
  bool visible = false;
};

struct App {
  // What the user chose.
  std::string kernel_id;
  Params params;
  std::array<int, 3> block_sides{1, 1, 1}; // the editor's fields; `block()` once valid
  std::vector<Arch> arches;
  int arch_index = 0;
  bool live = false;
  Theme theme = Theme::dark;
  std::array<bool, kAllPanels.size()> panel_open{true, true, true, true, false, false, false, false}; // rest on demand
  MapChoice global_map, shared_map, divergence_map; // divergence: its block and warp

  // What came back.
  std::optional<RunResult> latest;
  std::optional<ImpactCurves> curves; // for the latest result's kernel resources
  std::deque<RunResult> history;      // newest last
  std::optional<RunResult> baseline;  // a pinned run every panel compares the latest with
  std::vector<Panel> highlighted;     // panels the teaching note points at, outlined while it is read

  // The Sweep panel: the sides to sweep, the figure that colours the cells, and the last sweep.
  struct Sweep {
    std::array<char, 64> x_sides{"32:1024:32"}, y_sides{"1"}; // as `sweep --block-x/--block-y` take them
    SweepMetric metric = SweepMetric::theoretical_occupancy;
    std::optional<SweepData> data;
    std::string problem; // why the last sweep could not be made
    bool running = false; // a sweep sent to the source has not answered yet
  } sweep;
  std::string last_error;             // the source's last refusal or failure
  std::string status;                 // transient message: a saved screenshot, a settings problem

  // Frame plumbing.
  ResultSource *source = nullptr;
  std::shared_ptr<const Recording> recording; // fills model results' timings and counters
  std::optional<ScreenshotRequest> screenshot;
  std::string last_screenshot_path;
  std::array<PanelRect, kAllPanels.size()> panel_rects{};
  std::optional<KernelRequest> last_submitted; // what live mode compares against
  std::string last_submitted_arch;

  static constexpr std::size_t kHistoryLength = 32;

  const KernelDesc *kernel() const;
  const Arch &arch() const { return arches.at(arch_index); }
  BlockShape block() const { return {block_sides[0], block_sides[1], block_sides[2]}; }

  // Picks a kernel (its default parameters and block); false if the id is unknown.
  bool select_kernel(const std::string &id);
  bool select_arch(const std::string &id_or_alias);
  void set_block(const BlockShape &block);

  // "" when the current choices make a valid request, else the one-line reason.
  std::string request_problem() const;
  std::optional<KernelRequest> current_request() const;

  // Sends the current request to the source; refuses (and says why in `last_error`) an invalid one.
  bool run(bool live = false);
  // Live mode: sends the current request when it changed and is valid.
  void run_if_live();
  // Takes what the source has produced, once per frame.
  void poll_source();
  // A result arrives: it becomes the latest and joins the history. A model result takes the
  // recorded timing and counters of the same launch when the recording has them.
  void show(RunResult result);

  // Pins the latest result as the baseline (false when there is none yet); a baseline may be
  // another variant of the family (naive against tiled, padded against unpadded).
  bool pin_baseline();
  // Sweeps the current kernel over the sweep's sides with the models (no GPU), replacing the last
  // sweep; a bad side list leaves the reason in sweep.problem.
  void model_sweep_now();
  // The shapes of the sweep's side lists; throws UsageError for a bad list.
  std::vector<BlockShape> sweep_shapes_chosen() const;
  // Sends the sweep to the source (measured on the worker's GPU, or modelled where there is none).
  void measure_sweep();

  // "softmax/naive 256": what the baseline is, for the panels.
  std::string baseline_label() const;

  PanelRect &rect(Panel panel) { return panel_rects[static_cast<int>(panel)]; }
  bool &open(Panel panel) { return panel_open[static_cast<int>(panel)]; }
};

// Presets from assets/arch (h100 selected), the recording in assets/recordings (a problem with
// it goes to `status`), and the given kernel (matmul/tiled when empty). Throws UsageError when
// the presets are missing or the kernel is unknown.
App make_app(const std::string &kernel_id = "", const std::string &arch_id = "h100");

} // namespace wl::viz
