#pragma once
// The state of the GUI that outlives a frame, in parts: what the person chose (Choices), what came
// back (Results), the Sweep panel's workflow, the status line's messages, and one frame's scratch.
// Panels read it and change the choices; results arrive only through `App::show`, as values, from
// a ResultSource (the models on a background thread, or the worker process through WorkerSource).
// Nothing here touches CUDA, GLFW or OpenGL.

#include "lesson/lesson.h"
#include "lesson/lesson_judge.h"
#include "model/arch.h"
#include "model/index_expression.h"
#include "model/kernel_request.h"
#include "model/occupancy.h"
#include "model/run_result.h"
#include "report/panel_table.h"
#include "workflows/kernel_file_compile.h"
#include "workflows/kernel_file_watch.h"
#include "workflows/recording.h"
#include "workflows/sweep_view.h"
#include "workflows/tune_view.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace wl::viz {

enum class Theme { dark, light };

// The tiles of the layout: the left column, and right of it a row of two over a bottom row.

// Where the panels sit: the splitters' positions (fractions of the space they divide), each
// panel's tile, and the tab shown in each tile. Remembered between sessions.
struct Layout {
  float left_width = 0.27f;                   // the left column's share of the window's width
  float top_height = 0.58f;                   // the top row's share of the right side's height
  float top_split = 0.48f;                    // the top row's left tile's share of its width
  std::array<Tile, kAllPanels.size()> tile{}; // per panel, in kAllPanels order
  std::array<int, kTileCount> shown{-1, -1, -1,
                                    -1}; // per tile, the panel whose tab is shown (-1: the first)
};
// Every panel back in its first tile, the splitters in their first places.
Layout default_layout();

// Which warp a memory map draws: the n-th site of its memory space, a block of the grid, a warp of
// the block and an iteration of the site's loop (brought into range when drawn).
struct MapChoice {
  int site = -1; // -1: the site whose first warp wastes most (most excess sectors or wavefronts)
  std::array<int, 3> block{0, 0, 0};
  int warp = 0;
  std::int64_t iteration = 0;
};

// A text field's buffer holding `text` (cut to fit), as the field shows it.
template <std::size_t N> void write_field(const std::string& text, std::array<char, N>& field) {
  field.fill('\0');
  std::copy_n(text.begin(), std::min(text.size(), N - 1), field.begin());
}

// What a source hands back: a result, a sweep, or the one-line reason there is none.
struct SourceUpdate {
  std::optional<RunResult> result{};
  std::string error{};
  std::optional<SweepData> sweep{}; // the answer to submit_sweep
  bool for_sweep = false;           // the error answers submit_sweep
  // `result` is a Run's timed part: its timing, verification and resources, while its counters
  // are still being measured (the whole result follows).
  bool timed_part = false;
};

// How a submitted launch is measured. A `live` request follows an edit in live mode: a source
// that measures keeps it brief (a short timing budget, no counters) so the panels follow the
// edits; the Run button asks for the full measurement, `per_site` adds the per-site pass (a
// pass of SASS metrics of its own, each memory instruction placed on its site's line) and
// `stalls` the PC-sampling pass (where the warps waited, per line) and `energy` a batch of
// launches for NVML's energy counter.
struct RunKind {
  bool live = false;
  bool per_site = false;
  bool stalls = false;
  bool energy = false;
  bool memory_chart = false;
};

// Where results come from. `submit` never blocks (the newest request wins); `poll` returns what
// arrived since the last call. The GUI calls both once per frame at most.
class ResultSource {
public:
  virtual ~ResultSource() = default;
  virtual void submit(const KernelRequest& request, const Arch& arch, RunKind kind) = 0;
  virtual std::optional<SourceUpdate> poll() = 0;
  virtual bool busy() const = 0;
  virtual std::string mode() const = 0; // the status line's first part: which mode and why
  // A sweep of one kernel over many shapes and parameter values: measured where the source
  // measures, modelled where it models; the answer comes through poll. Progress as (points done,
  // of all); cancel stops it.
  virtual void submit_sweep(const KernelRequest& request, const SweepGrid& grid,
                            const Arch& arch) = 0;
  virtual std::pair<int, int> sweep_progress() const { return {0, 0}; }
  virtual void cancel_sweep() {}
};

// A screenshot the frame asked for; the front-end saves it after rendering.
struct ScreenshotRequest {
  std::optional<Panel> panel; // none: the whole window
  std::string path;           // empty: a timestamped name in the current folder
  int frames_drawn = 0;       // of a panel's picture: taken on the kPanelPictureFrames-th
};

// A panel is drawn alone for its picture (layout.cpp); its tables size their columns over the
// first frames, so the picture is taken on the third frame so drawn.
inline constexpr int kPanelPictureFrames = 3;

// The Sweep panel's text fields (sides, parameter values) hold this many characters with the
// terminating zero; --sweep-x and --sweep-y are refused beyond it.
inline constexpr std::size_t kSweepSidesCapacity = 256;

// A panel's window on screen, for cropping a screenshot to it.
struct PanelRect {
  float x = 0, y = 0, width = 0, height = 0;
  bool visible = false;
  float content_height = 0; // drawn alone for a picture: the height its content needs
};

// What the person chose: the launch on screen (kernel, parameters, block, arch) with its fields as
// typed, how it is run (live, per site), and how it is shown (theme, scale, open panels, layout,
// the maps' warps, the screenshot folder); most of it is kept in the settings between sessions.
// Its methods read and change the launch alone; those that also close a sweep or start a run are
// the App's.
// The index playground's fields as typed (panel_playground.cpp): an index expression and its
// swizzle, the element size, global or shared, the block and the warp.
// The text fields hold more than the model takes, so a long index is refused with its length, not
// cut short without a word.
struct PlaygroundChoice {
  std::array<char, 4 * kLongestIndexExpression> expression{"threadIdx.x"};
  std::array<char, 4 * kLongestIndexExpression> swizzle{};
  int element_bytes = 4;
  bool shared = false;
  std::array<char, 32> block{"32"}; // "X", "XxY" or "XxYxZ", as the Launch panel's block
  int warp = 0;
};

struct Choices {
  std::string kernel_id;
  Params params;
  std::array<int, 3> block_sides{1, 1, 1}; // the block of the launch; `block()` once valid
  std::array<char, 32> block_field{};      // the block as typed ("16x8"); set_block writes both
  std::string block_field_problem;         // why the typed block does not parse ("" when it does)
  // A parameter's field while it differs from its value: typed and not yet applied (Enter or
  // leaving the field applies it), or applied and refused because it is not a whole number.
  std::map<std::string, std::string> param_typed;
  std::set<std::string> params_being_typed; // fields whose text waits for Enter
  // The launch last shown of each kernel left this session: switching back to it restores its
  // parameters and block rather than the defaults (an edit is never lost by a look elsewhere).
  struct KernelLaunch {
    Params params;
    std::array<int, 3> block_sides;
  };
  std::map<std::string, KernelLaunch> left_launches;
  std::string block_note; // why the block (or another parameter) changed when one was chosen
  std::vector<Arch> arches;
  int arch_index = 0;

  bool live = true; // the panels follow each edit from the first start
  // The next Run (F5) measures each site too (the Source panel's "Measure per site"): a pass of
  // its own, so it is asked for, never made by a live edit.
  bool measure_per_site = false;
  // The next Run also samples where the warps wait (the Source panel's "Sample stalls").
  bool measure_stalls = false;
  // The next Run also measures the launch's energy (the Timings panel's "Measure energy").
  bool measure_energy = false;
  // The next Run also counts the memory chart's links (the Memory chart panel's "Count the
  // chart's links"): more counter passes, so asked for.
  bool measure_memory_chart = false;
  bool source_whole_file = false; // the Source panel shows the whole family file, not the kernel's
  Theme theme = Theme::dark;
  float ui_scale = 1; // fonts and spacing: 1 at 96 dpi; Ctrl+= / Ctrl+- / Ctrl+0
  // The command line chose the launch (--kernel, --param, --block, --sweep-json) or the arch
  // (--arch, --recording): the saved settings' choice of them gives way.
  bool launch_from_command_line = false, arch_from_command_line = false;
  bool ui_scale_remembered = false; // from the settings; else the window takes the monitor's
  std::array<bool, kAllPanels.size()> panel_open{};
  Layout layout;
  MapChoice global_map, shared_map, divergence_map; // divergence: its block and warp
  PlaygroundChoice playground;
  std::filesystem::path
      screenshot_dir;            // where F12 and Export put files (settings; default: pictures)
  bool settings_writable = true; // false when the settings file could not be moved aside, or
                                 // its folder cannot be made (a missing HOME)
  // Keys of settings.json WarpLens does not know (a newer version's, a typo), at the top or in an
  // object it reads ("panels"), each by its JSON pointer ("/kernal", "/panels/bogus") with its
  // value as JSON text: written back unchanged, so saving loses none of them.
  std::map<std::string, std::string> unknown_settings;

  const KernelDesc* kernel() const;
  const Arch& arch() const { return arches.at(arch_index); }
  BlockShape block() const { return {block_sides[0], block_sides[1], block_sides[2]}; }
  bool select_arch(const std::string& id_or_alias);
  void set_block(const BlockShape& block);
  // A parameter the person chose. Where the kernel is built for combinations of its parameters,
  // the others follow to the nearest combination built with the new value; when the new values
  // refuse the block the old ones allowed (tile 32 and block 16x16), the block follows to the
  // first shape allowed now. `block_note` says what followed, beside the block.
  void set_param(const std::string& name, std::int64_t value);
  // The parameters moved to the kernel's nearest built combination keeping `changed`; what moved,
  // in words ("" when nothing did).
  std::string follow_built_combination(const KernelDesc& desc, const std::string& changed);
  std::string parameters_refusal() const; // of the parameter fields ("" when they are fine)
  std::string block_refusal() const;      // of the block, for the parameters applied
  // The block field was left or Enter pressed in it: a shape that parses becomes the block; else
  // the reason is kept and nothing is sent until it is fixed. Keystrokes alone change nothing, so
  // a half-typed "64x" or the "1" of "1e999" never reaches the panels.
  void block_field_committed();
  // A parameter's field was edited: the text is kept as typed until the field is committed (Enter
  // or leaving it); then a whole number becomes the parameter (its range is checked with the
  // request) and other text stays as typed and refused, never clamped or dropped.
  void param_field_edited(const std::string& name, const std::string& text);
  void param_field_committed(const std::string& name);

  // Why the current choices make no valid request ("" when they do), and the group of controls it
  // belongs to, so the Launch panel shows it beside them rather than out of sight.
  struct Refusal {
    enum class Where { launch, parameters, block };
    std::string text;
    Where where = Where::launch;
  };
  // The first refusal of the whole request (launch), or of one group of controls, so that a bad
  // parameter and a bad block are both shown, each beside its fields.
  Refusal refusal(Refusal::Where where = Refusal::Where::launch) const;
  std::string request_problem() const { return refusal().text; }
  std::optional<KernelRequest> current_request() const;
};

// What came back: `modelled` follows every edit (the models, on the models' thread); `latest` is
// the last Run or live edit: measured by the worker, or in model mode the models with the
// recording's timings and counters. And what was last sent, so an unchanged launch is not sent
// again.
struct Results {
  std::optional<RunResult> modelled;
  std::optional<RunResult> latest;
  // Results that came (modelled, a Run's timed part, a whole Run), each counted once: what
  // follows each new one (an exercise's judge) keys on it.
  std::uint64_t arrivals = 0;
  std::optional<ImpactCurves> curves; // for the latest result's kernel resources
  std::deque<RunResult> history;      // the runs timed here, newest last
  static constexpr std::size_t kHistoryLength = 32;
  std::optional<RunResult> baseline; // a pinned run every panel compares the latest with
  std::string last_error;            // the source's last refusal or failure
  // The models' refusal of the last launch they were given (cleared by their next answer): the
  // launch is then explained, not awaited.
  std::string model_error;
  bool awaiting_run = false; // F5 was pressed and its answer has not come: it sets `status`
  // `latest` is a Run's timed part: its counters are being measured, and the whole result follows.
  bool latest_counting = false;
  std::optional<KernelRequest> last_modelled;
  std::string last_modelled_arch;
  std::optional<KernelRequest> last_submitted; // what live mode compares against
  std::string last_submitted_arch;
};

// The Sweep panel's workflow: the sides to sweep, the figure that colours the cells, the last
// sweep, and the halves of an A/B sweep in flight.
struct SweepWorkflow {
  std::array<char, kSweepSidesCapacity> x_sides{"32:1024:32"},
      y_sides{"1"};  // as `sweep --block-x/--block-y` take them
  std::string param; // a kernel parameter swept with the sides; "" for none
  std::array<char, kSweepSidesCapacity>
      param_values{}; // its values, as `sweep --param-range NAME=` takes them
  SweepMetric metric = sweep_metric("theoretical_occupancy");
  SweepMetric second = nullptr; // a 1D sweep's second line, on a y axis of its own; or none
  bool metric_chosen = false;   // the person chose `metric`; else each sweep shows one that varies
  // The slice shown of a sweep along more than two axes: a held axis's value ("tile" = 32).
  std::map<std::string, std::int64_t> held_at;
  std::optional<SweepData> data;
  // Every variant of the family at one size, the ladder at a glance: shown instead of `data`
  // while set (Every variant, or a file of `warplens sweep FAMILY --variants --json`).
  std::optional<ShownVariants> variants;
  std::string problem;      // why the last sweep could not be made
  bool running = false;     // a sweep sent to the source has not answered yet
  bool sides_typed = false; // the person wrote the sides: a kernel switch keeps them
  // A/B: another kernel of the family swept over the same points ("" for none), and, while the
  // worker measures it, the first kernel's half of the sweep.
  std::string against;
  std::optional<SweepData> first_half;
  // The B half as Measure sweep made it, sent when the A half comes: fields edited meanwhile
  // do not change what is measured.
  struct Half {
    KernelRequest request;
    SweepGrid grid;
  };
  std::optional<Half> second_half;
};

// What the status line says besides the results: a transient message, and each save a person
// asked for (a screenshot, an export) in one line: "saved 'PATH'" with why it went there when the
// pictures folder was not the desktop's, or why it was not saved and where it was kept. `saves`
// counts them: a script prints those its clicks and keys made.
struct Messages {
  std::string status; // a saved screenshot, a settings problem, what F5 brought
  std::string last_save;
  int saves = 0;
  std::string last_screenshot_path;
  std::string last_saved_path; // a screenshot's or an export's, shown with a copy button
};

// What one frame leaves for the next or for the front-end: the screenshot it asked for, the
// panels' places, their text while a screenshot is taken, the teaching note's outlines, a quit.
struct FrameScratch {
  std::optional<ScreenshotRequest> screenshot;
  std::array<PanelRect, kAllPanels.size()> panel_rects{};
  // The text each panel drew in the last frame, while a screenshot is being taken: what a person
  // reads in the picture, for its sidecar (not kept in other frames: it costs a copy of every
  // line).
  std::array<std::string, kAllPanels.size()> panel_text{};
  std::string status_line_text;   // likewise, the status line's
  std::vector<Panel> highlighted; // panels the teaching note points at, outlined while it is read
  bool quit_requested = false;    // Ctrl+Q or View > Quit: the window closes after this frame
  // Seconds from the process's start to the first frame that drew a figure measured now (not
  // recorded): how long a person waited for the first measured figures, for the sidecar.
  std::optional<double> first_measured_figures_at = std::nullopt;
};

// A person's kernel file on screen (viz/workflows/kernel_file_workflow.cpp): the file, the watch on
// its folder, and what its last save did. While a save does not compile, the last version that did
// stays registered and on screen, its figures marked stale, with the problem and its line shown.
struct OpenedFile {
  std::filesystem::path path;     // empty: none opened
  std::string hash;               // of the text whose kernels are registered
  std::vector<std::string> lines; // the text as last read (the broken one, after a bad save)
  std::string problem;            // the last save's first problem; "" when it compiled
  int problem_line = 0;           // the file's line it names; 0 when none
  std::shared_ptr<KernelFileWatch> watch;
  std::function<void()> wake;                 // wakes a sleeping window when a save is seen
  std::vector<std::string> recent;            // files opened, newest first (kept in the settings)
  std::array<char, 1024> path_typed{};        // File > Open's field
  std::string open_problem;                   // why the last file asked for could not be opened
  std::array<char, 1024> recording_typed{};   // File > Open a recording's field
  std::string recording_problem;              // why the recording asked for could not be used
  double last_reload_ms = 0;                  // reading, describing and compiling the last save
  std::shared_ptr<KernelFileCompile> compile; // the saves' compiles, off the frame thread

  bool open() const { return !path.empty(); }
};

// How far a learner got in one lesson: the step they were on and the steps they answered right
// (kept in the settings, by the lesson's id, so a learner can leave and come back).
struct LessonProgress {
  int step = 0;
  std::set<int> done;      // step indices answered right
  std::set<int> first_try; // of those, the ones whose last asking was answered right at once
  // Seconds the lesson was open in the GUI; a wait of over a minute between two frames (the
  // window left alone) counts a minute.
  double seconds = 0;
  // How each step in `done` was met: on the models' figures (model mode, a recording's), on a
  // GPU's measurement (by the GPU's name), or both at different times. A teacher's report shows
  // both.
  std::set<int> right_modelled;
  std::map<int, std::string> right_measured;
  std::set<int> missed; // steps answered wrong at least once (`warplens lesson try` counts on it)

  // A right answer to `step`, judged on figures measured by `measured_on` ("" for the models').
  void met(int step, const std::string& measured_on);
  // A judged try from outside the GUI (`warplens lesson try`): met at the first try where the step
  // was neither done nor missed before.
  void tried(int step, bool right, const std::string& measured_on);
};

// The key of a lesson's progress: a bundled lesson is known by its file's name
// ("03-coalescing"), so its progress survives a move of the install; a teacher's by its whole
// path.
std::string lesson_id(const std::filesystem::path& file);

// A lesson being followed (viz/workflows/lesson_workflow.cpp): the lesson, the step on screen and
// what the learner typed or chose, how many tries, and what the last Check said. While a number or
// choice question is open, the panels that would show its answer are veiled.
struct LessonWorkflow {
  std::optional<Lesson> lesson;
  std::string id; // the progress key: a bundled lesson's name ("03-coalescing"), else its path
  // Asked for before the settings were read (--lesson, or the lesson open when the last session
  // ended): opened at the first frame, at the step its progress says.
  std::string pending;
  int step = 0;
  std::array<char, 64> typed{}; // a number question's field
  std::string chosen;           // a choice question's choice
  int tries = 0;                // wrong answers to this step's question
  std::optional<LessonVerdict> verdict;
  // The result an exercise's copy was last judged on (Results::arrivals): each result that comes
  // after a save (and each measurement after a model) is judged once, as Check would.
  std::uint64_t exercise_judged = 0;
  std::string exercise_text_judged; // the hash of the copy's text judged last (App::file.hash)
  // Verdicts made (a check, a save judged, an answer shown), and the last the panel scrolled into
  // sight: each new one once, so the person scrolls where they like afterwards.
  std::uint64_t verdicts_made = 0, verdict_scrolled = 0;
  std::chrono::steady_clock::time_point counted_until{}; // the open lesson's time, counted to here
  // Where an exercise's copies go when not the learner's own folder: a scripted session's scratch
  // folder (a script never changes the user's files unless WARPLENS_EXERCISES names a folder).
  std::filesystem::path exercises_dir;
  std::string preset_asked; // --arch's preset, where given (App::lesson_preset)
  bool revealed = false;    // answered right or shown: the panels show the answer
  std::string problem;      // why the lesson, a step's launch or a check could not be used
  std::map<std::string, LessonProgress> progress;
  std::array<char, 1024> path_typed{}; // the panel's "open a lesson file" field
  struct Listed {
    std::filesystem::path file;
    std::string title;
    std::shared_ptr<const Lesson> lesson; // null where it does not read
  };
  std::vector<Listed> catalog; // the bundled lessons, read when first listed

  const LessonStep* current() const {
    return lesson && step >= 0 && step < static_cast<int>(lesson->steps.size())
               ? &lesson->steps[static_cast<std::size_t>(step)]
               : nullptr;
  }
};

// The state of the GUI that outlives a frame, in its parts, and the workflows that join them: a
// kernel switch closes another kernel's sweep, a run sends the choices to the source and its
// answer becomes the results.
struct App {
  Choices choices;
  Results results;
  SweepWorkflow sweep;
  TuneWorkflow tune;
  LessonWorkflow lessons;
  Messages messages;
  FrameScratch frame;
  OpenedFile file;

  // Where results come from.
  ResultSource* source = nullptr;
  ResultSource* models = nullptr; // the models of every edit, for `modelled` (none: `latest`)
  RecordingShelf recordings;      // fill model results' timings and counters

  // The recording of the preset on screen (the H100's where it has none).
  const RecordingSlot& recording() const { return recordings.of(arch().id); }
  // A recording a person chose (--recording, File > Open a recording): read and checked, its
  // preset put on screen, and the launch on screen shown again with its figures. False, with
  // the reason in file.recording_problem and on the status line, when it cannot be used (the
  // recordings in use stay).
  bool open_recording(const std::string& path);
  void use_bundled_recordings(); // forgets the one chosen, and shows the launch again

  const KernelDesc* kernel() const { return choices.kernel(); }
  const Arch& arch() const { return choices.arch(); }
  BlockShape block() const { return choices.block(); }
  std::string request_problem() const { return choices.request_problem(); }
  std::optional<KernelRequest> current_request() const { return choices.current_request(); }

  // Picks a kernel (its default parameters and block, or those it had when left); false if the id
  // is unknown. Another kernel's sweep closes; sides typed for it stay where they still allow a
  // block.
  bool select_kernel(const std::string& id);

  // The medians of the kernel on screen's runs in `history`, oldest first: other kernels' times are
  // not comparable. What the Timings panel and a screenshot's sidecar list.
  std::vector<double> recent_medians() const;
  // Why a run brought the model's figures alone: with no GPU, timings and counters come only from
  // the bundled recording. Said under Run and on the status line.
  std::string untimed_reason() const;

  // Sends the current request to the source; refuses (and says why in `last_error`) an invalid one.
  bool run(bool live = false);
  // The run a session starts with: as run(), without a status line about what it brought.
  bool run_at_start() {
    const bool sent = run();
    results.awaiting_run = false;
    return sent;
  }
  // Live mode: sends the current request when it changed and is valid.
  void run_if_live();
  // Sends the launch on screen to the models when it changed, so model figures follow every edit.
  void follow_edits();
  // Takes what the sources have produced, once per frame.
  void poll_source();
  // What is still being computed ("the compile of mine.cu", "the models"), or "" when nothing is
  // and the model figures (with Live on, the run's too, unless it failed) are those of the launch
  // on screen.
  std::string unsettled_by() const;
  bool settled() const { return unsettled_by().empty(); }

  // The model figures of the launch on screen (or, before the models answer, the latest result).
  const RunResult* model_view() const;
  // The model's prediction of the launch on screen, or an empty one while the models compute it;
  // and its sites as the panels list them (a kernel file's are its lines the prediction found).
  const LaunchPrediction& prediction_on_screen() const;
  std::vector<SiteView> sites_on_screen() const;
  // True when the model figures are those of the launch on screen (false for a moment after an
  // edit, while the models compute).
  bool model_is_current() const;
  // The figures of the launch on screen, as a lesson's answers and the roofline read them: its
  // latest run (measured, or the recording's), else the models' figures of it; null while
  // neither is there yet.
  const RunResult* result_on_screen() const;
  // Whether the source on screen measures (a worker on a GPU), not model mode.
  bool source_measures() const { return source && !source->mode().starts_with("model mode"); }
  // True when `latest` is of another launch than the one on screen: its measured figures are
  // then shown greyed with `stale_note`.
  bool latest_is_stale() const;
  std::string stale_note() const; // "from block 16x16, stride=1: press F5 to measure this launch"
  // Opens a panel with its tab shown, or closes it.
  void set_open(Panel panel, bool open_it) {
    if (open_it)
      show_panel(panel);
    else
      open(panel) = false;
  }
  // Opens a panel and shows its tab.
  void show_panel(Panel panel);
  // A result arrives: it becomes the latest and joins the history. A model result takes the
  // timing and counters of the same launch from a loaded measured sweep, else from the recording,
  // when they have them.
  void show(RunResult result);
  // A Run's timed part arrives: the latest until the whole result comes, not a run of the
  // history (the whole result is).
  void show_timed_part(RunResult part);

  // Pins the latest result as the baseline (false when there is none yet); a baseline may be
  // another variant of the family (naive against tiled, padded against unpadded).
  bool pin_baseline();
  // "softmax/naive 256, n=1048576": what the baseline is, for the panels.
  std::string baseline_label() const;

  // The sweep workflow (sweep_workflow.cpp).
  // Sides a first sweep of the kernel on screen can use, the launch on screen among them:
  // 32:1024:32 x 1 for a 1D kernel, 8 to 256 x 1 to 32 for a 2D one, where it allows at least
  // half of those shapes, else the sides of the shapes it offers (transpose/smem: 32 x 4,8,16,32).
  void choose_sweep_sides();
  // A sweep that came back: shown, coloured by a figure that varies across it unless the person
  // chose one (a parameter sweep opened on a flat occupancy line).
  void take_sweep(SweepData data);
  // Whether the sides as typed hold a block the kernel on screen allows.
  bool typed_sides_allow_a_block() const;
  // The sides (swept parameter, A/B variant) of a sweep that was loaded or measured, so the fields
  // say what the chart shows.
  void show_sweep_sides(const SweepData& data);
  // Sweeps the current kernel over the sweep's sides with the models (no GPU), replacing the last
  // sweep; a bad side list leaves the reason in sweep.problem.
  void model_sweep_now();
  // The shapes of the sweep's side lists and the swept parameter's values; throws UsageError for a
  // bad list.
  SweepGrid sweep_grid_chosen() const;
  // Sends the sweep to the source (measured on the worker's GPU, or modelled where there is none);
  // an A/B sweep sends the second kernel's when the first's has come.
  void measure_sweep();
  // Every variant of the kernel's family at the size on screen, from the models on the arch (no
  // GPU), shown in the Sweep panel; a refusal leaves the reason in sweep.problem.
  void model_variants_now();
  // The A/B sweep's second kernel and its parameters: those on screen it has. Throws UsageError
  // when it lacks the swept parameter.
  KernelRequest against_request() const;

  // The tune workflow (tune_workflow.cpp).
  // Starts a tune of the kernel on screen over its default grid (tune/tune_space.h), modelled on
  // the preset, with the chosen strategy and budget: where the source measures, its first point
  // is sent; in model mode the model's ranking alone. A refusal leaves the reason in tune.problem.
  void start_tune();
  // Sends the search's next point, or ends the tune where the budget is spent or none is left.
  void advance_tune();
  // The answer to the point sent (a sweep of one launch, or the error that came instead): its
  // cost to the search, then the next point.
  void take_tune_point(std::optional<SweepData> data, const std::string& error);
  // Ends the tune once the point being measured has come.
  void stop_tune();
  bool tune_running() const;
  // Puts a point of the tune's space on screen: its kernel, parameters and block.
  void open_tune_point(std::size_t point);

  // The kernel file workflow (kernel_file_workflow.cpp).
  // Opens a person's kernel file ("mine.cu" or "mine.cu:kernel"): its kernels join the catalog,
  // the one named (or the first) goes on screen, and its folder is watched for saves. False, with
  // the reason on the status line and in file.open_problem, when it cannot be used (the file on
  // screen stays).
  bool open_kernel_file(const std::string& text);
  // Once per frame: a save seen by the watch is read and compiled on the compile thread; once it
  // has been, if it compiled, its kernels replace the last version's and the launch on screen
  // follows them (the models, and with Live on a run); if not, the problem is shown and the last
  // version stays.
  void follow_kernel_file();
  void take_saved_kernel_file(SavedKernelFile saved);
  // What File > Open offers for the path typed so far: the .cu files and folders in its folder
  // whose names start with its last part (at most 8, folders ending in '/').
  std::vector<std::string> kernel_file_completions() const;
  // The lines of the file the kernel on screen comes from, as last read; null for a bundled one.
  const std::vector<std::string>* kernel_file_lines() const;
  // Whether the kernel on screen is of the opened file and its last save does not compile: its
  // figures are then the last version's, and marked stale.
  bool kernel_file_broken() const;

  // The lesson workflow (lesson_workflow.cpp).
  // Opens a lesson by name or path at the step its progress says; false, with the reason in
  // lessons.problem, when it cannot be read (the lesson on screen stays).
  bool open_lesson(const std::string& name_or_path);
  void close_lesson();
  // Puts step `index` on screen: its launch (kernel, parameters, block, preset) or its
  // playground, its panel in front and outlined; a step answered right before is shown answered
  // unless `ask_again`.
  void go_to_step(int index, bool ask_again = false);
  // Once per frame: a lesson asked for before the settings were read is opened.
  void follow_lesson();
  // An exercise step's copy judged against its goal when a save (or a measurement) changed it.
  void judge_exercise_if_saved();
  // The open lesson's time, each frame (LessonProgress::seconds).
  void count_lesson_time();
  // Judges the answer typed or chosen (or, for an `until` step, the launch or playground as the
  // learner left it) against the figures on screen.
  // `a_try`: whether a miss counts as a try (an exercise's copy judged as its step opens, before
  // any save, is not one).
  void check_lesson_answer(bool a_try = true);
  // Shows the answer without one from the learner: a question's figure, or an `until` step's
  // solution put on screen.
  void reveal_lesson_answer();
  // Whether the panel would show the answer to the open question (it is veiled until answered).
  bool lesson_veils(Panel panel) const;
  // The preset the person chose for this session, "" for none: a recording's they opened, else
  // --arch's. A step that names no preset of its own runs on it in place of the lesson's, so a
  // lab's recording answers there.
  std::string lesson_preset() const;

  PanelRect& rect(Panel panel) { return frame.panel_rects[static_cast<int>(panel)]; }
  bool& open(Panel panel) { return choices.panel_open[static_cast<int>(panel)]; }
};

// Notes a save for Messages::last_save: `line` as the status line gives it.
void note_save(App& app, const std::string& line);
// "saved 'PATH'", and "(WHY)" where it went elsewhere than the desktop's pictures folder.
std::string saved_note(const std::filesystem::path& file, const std::string& fallback);

// Presets from assets/arch (h100 selected), the recording in assets/recordings (read at its first
// use; a problem with it is said where a timing is missing), and the given kernel (matmul/tiled
// when empty). Throws UsageError when the presets are missing or the kernel is unknown.
App make_app(const std::string& kernel_id = "", const std::string& arch_id = "h100");

} // namespace wl::viz
