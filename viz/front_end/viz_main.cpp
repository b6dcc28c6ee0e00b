#include "front_end/viz_main.h"

#include "base/error.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "front_end/front_end.h"
#include "front_end/screenshot.h"
#include "io/assets.h"
#include "kernel_file/compile.h"
#include "kernel_file/file_kernel.h"
#include "model/arch.h"
#include "model/block_text.h"
#include "registry.h"
#include "workflows/model_source.h"
#include "workflows/settings.h"
#include "workflows/worker_source.h"

#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <optional>
#include <thread>

#include <unistd.h>

namespace wl::viz {

namespace {

// What the options say on their own, refused before anything is loaded or opened (the presets and
// recordings take a moment, a window longer).
void check_gui_options(const GuiOptions& options) {
  // A script saves with its own `screenshot` lines and sets its launch step by step.
  for (const auto& [given, option] :
       {std::pair{&options.screenshot, "--screenshot"}, std::pair{&options.panel, "--panel"},
        std::pair{&options.baseline, "--baseline"}})
    if (!options.script.empty() && !given->empty())
      throw UsageError(std::string(option) + " '" + clip(*given, 40) +
                       "' is not used with --script: a script's `screenshot FILE [PANEL]` lines "
                       "save its pictures and `click \"Pin as baseline (B)\"` pins one; leave " +
                       option + " out");
  if (!options.sweep_json.empty() && !options.sweep_x.empty())
    throw UsageError("give either --sweep-json FILE (a measured sweep) or --sweep-x LIST (a model "
                     "sweep), not both");
  if (options.sweep_x.empty() && !options.sweep_y.empty())
    throw UsageError("--sweep-y '" + clip(options.sweep_y, 40) +
                     "' needs --sweep-x, the block x sides to sweep with it");
  for (const auto& [text, option] :
       {std::pair{&options.sweep_x, "--sweep-x"}, std::pair{&options.sweep_y, "--sweep-y"}})
    if (text->size() >= kSweepSidesCapacity)
      throw UsageError(std::string(option) + " '" + clip(*text, 40) + "' is too long: at most " +
                       std::to_string(kSweepSidesCapacity - 1) + " characters");
}

// `--arch device[:N]` names this machine's GPU, which the GUI's models never read: model mode has
// no GPU, and in GPU mode the worker measures on its own GPU whichever preset the models use.
void check_gui_arch(const GuiOptions& options) {
  if (options.arch != "device" && !options.arch.starts_with("device:"))
    return;
  const std::string why =
      options.model_only ? "model mode uses no GPU, and device names this machine's GPU"
                         : "the GUI's models take a preset; the worker measures on its own GPU";
  throw UsageError("--arch " + clip(options.arch, 40) + ": " + why + "; choose a preset (" +
                   preset_ids(load_arch_presets(assets_dir() / "arch")) +
                   ") or a path to a .json preset");
}

// A person's kernel file, given as --kernel-file, as the argument, or where --kernel goes.
std::string kernel_file_asked(const GuiOptions& options) {
  if (!options.kernel_file.empty() && !options.kernel_id.empty())
    throw UsageError("give --kernel or a kernel file, not both (--kernel " +
                     clip(options.kernel_id, 40) + ", file '" + clip(options.kernel_file, 60) +
                     "')");
  return !options.kernel_file.empty()             ? options.kernel_file
         : names_a_kernel_file(options.kernel_id) ? options.kernel_id
                                                  : "";
}

// A variant sweep file: its family's kernel on screen (--kernel's where it is one of them, else
// the first variant that ran) at the file's size, and the ladder in the Sweep panel.
void show_variants_from_file(App& app, const GuiOptions& options, ShownVariants variants) {
  const VariantSweep& sweep = variants.sweep;
  std::string shown = options.kernel_id;
  if (!shown.empty() && kernel_family(shown) != sweep.family)
    throw UsageError("--kernel " + clip(shown, 40) + " is not of the family of --sweep-json '" +
                     clip(options.sweep_json, 60) + "' (" + sweep.family +
                     "); leave --kernel out or give one of its variants");
  for (const VariantPoint& p : sweep.variants)
    if (shown.empty() && p.result)
      shown = p.kernel_id;
  if (!shown.empty() && app.select_kernel(shown))
    for (const auto& [name, value] : sweep.size)
      if (app.choices.params.contains(name))
        app.choices.set_param(name, value);
  app.sweep.variants = std::move(variants);
  app.show_panel(Panel::sweep);
}

// --recording: read and checked before anything is shown; with --arch, the two must agree (the
// recording answers for its own preset alone).
void use_recording_asked(App& app, const GuiOptions& options) {
  const std::string arch_before = app.arch().id;
  if (!app.open_recording(options.recording))
    throw UsageError("--recording " + app.file.recording_problem);
  const std::string& recorded = app.recordings.chosen()->get()->arch;
  if (!options.arch.empty() && recorded != arch_before)
    throw UsageError("--recording " + clip(options.recording, 60) + " is of preset " + recorded +
                     ", and --arch asks for " + arch_before + "; leave --arch out or give " +
                     recorded);
}

// `wake`: what wakes a sleeping window when an opened file is saved (the headless GUI has none).
App app_from(const GuiOptions& options, std::function<void()> wake = {}) {
  check_gui_options(options);
  check_gui_arch(options);
  const std::string file = kernel_file_asked(options);
  App app =
      make_app(file.empty() ? options.kernel_id : "", options.arch.empty() ? "h100" : options.arch);
  app.file.wake = std::move(wake);
  if (!options.arch.empty())
    app.lessons.preset_asked = app.arch().id;
  if (!options.recording.empty())
    use_recording_asked(app, options);
  // A script leaves the user's files alone: an exercise's copies go to a scratch folder, unless
  // WARPLENS_EXERCISES names the folder to use.
  if (!options.exercises_dir.empty())
    app.lessons.exercises_dir = options.exercises_dir;
  else if (!options.script.empty() && !std::getenv("WARPLENS_EXERCISES"))
    app.lessons.exercises_dir = std::filesystem::temp_directory_path() /
                                ("warplens-exercises-" + std::to_string(::getpid()));
  if (!file.empty() && !app.open_kernel_file(file))
    throw UsageError(app.file.open_problem);
  if (!options.lesson.empty() && !app.open_lesson(options.lesson))
    throw UsageError("--lesson " + clip(options.lesson, 60) + ": " + app.lessons.problem);
  app.choices.launch_from_command_line = !options.kernel_id.empty() || !file.empty() ||
                                         !options.params.empty() || !options.block.empty() ||
                                         !options.sweep_json.empty() || !options.lesson.empty();
  app.choices.arch_from_command_line = !options.arch.empty() || !options.recording.empty();
  if (!options.params.empty()) { // checked as `warplens run --param` checks them, and without
    // --block the block follows them as run's does (bn=128 of async_copy: 128 threads)
    const KernelRequest request =
        resolve_kernel_request(app.choices.kernel_id, options.params, "", options.block);
    app.choices.params = request.params;
    app.choices.set_block(request.block);
  }
  if (!options.block.empty())
    app.choices.set_block(parse_block(options.block));
  std::variant<SweepData, ShownVariants> loaded;
  if (!options.sweep_json.empty())
    loaded = load_any_sweep(options.sweep_json);
  if (ShownVariants* variants = std::get_if<ShownVariants>(&loaded))
    show_variants_from_file(app, options, std::move(*variants));
  else if (!options.sweep_json.empty()) { // the sweep's kernel on screen
    SweepData data = std::move(std::get<SweepData>(loaded));
    if (!options.kernel_id.empty() && !data.kernel_id.empty() &&
        app.choices.kernel_id != data.kernel_id)
      throw UsageError("--kernel " + app.choices.kernel_id +
                       " is not the kernel of --sweep-json '" + clip(options.sweep_json, 60) +
                       "' (" + data.kernel_id + "); leave --kernel out or give that one");
    if (!data.kernel_id.empty())
      app.select_kernel(data.kernel_id);
    // Coloured by a figure that varies across it, the median first where it was measured: a
    // sweep by the models has no median, and its arithmetic intensity never varies.
    app.take_sweep(std::move(data));
    app.show_sweep_sides(*app.sweep.data);
    app.show_panel(Panel::sweep);
  }
  if (!options.sweep_x.empty()) {
    const auto copy = [](const std::string& text, std::array<char, kSweepSidesCapacity>& into) {
      std::copy(text.begin(), text.end(), into.begin()); // fits: check_gui_options
      into[text.size()] = '\0';
    };
    copy(options.sweep_x, app.sweep.x_sides);
    if (!options.sweep_y.empty())
      copy(options.sweep_y, app.sweep.y_sides);
    app.model_sweep_now();
    if (!app.sweep.problem.empty())
      throw UsageError(app.sweep.problem);
    app.show_panel(Panel::sweep);
  }
  return app;
}

bool has_display() {
  const char* x11 = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  return (x11 && *x11) || (wayland && *wayland);
}

// The fallback when there is no screen: the same view, saved where the user can find it.
int write_default_view(const GuiOptions& options, const std::string& why) {
  GuiOptions headless = options;
  headless.panel.clear();
  std::cout << "warplens: no window (" << why << "); writing the default view instead\n";
  return run_headless_screenshot(headless);
}

WorkerSourceOptions worker_options(const GuiOptions& options,
                                   std::function<void()> on_change = {}) {
  WorkerSourceOptions w;
  w.client.command = options.worker;
  w.engine = options.engine;
  w.client.on_change = std::move(on_change);
  return w;
}

// Waits for the answer to what the app sent, however it comes (a result, an error).
void wait_for_answer(App& app, WorkerSource& source) {
  using namespace std::chrono;
  const auto deadline = steady_clock::now() + seconds(120);
  for (app.poll_source(); source.busy();
       app.poll_source()) { // polling also turns to model mode when due
    if (steady_clock::now() > deadline)
      throw UsageError("no answer from the worker within 120 s: " + source.mode());
    std::this_thread::sleep_for(milliseconds(10));
  }
}

// The sources a GUI session reads: the worker (or the models alone with --model) for runs, and
// the models for every edit. Made before the App: the worker starts, says hello and makes its
// CUDA context while the App reads its presets and the bundled recording (0.3 s), and the first
// request then finds it ready.
struct Sources {
  std::optional<ModelSource> model;
  std::optional<WorkerSource> worker;
  ModelSource edits;

  explicit Sources(const GuiOptions& options, std::function<void()> on_change = {})
      : edits(on_change) {
    if (options.model_only)
      model.emplace(on_change);
    else if (options.worker.empty() && !options.no_local_worker.empty())
      model.emplace(on_change, options.no_local_worker);
    else
      worker.emplace(worker_options(options, on_change));
  }
  void serve(App& app) {
    app.source = model ? static_cast<ResultSource*>(&*model) : &*worker;
    app.models = &edits;
  }
};

// Runs what the app shows now and waits for it, however it comes.
void run_and_wait(App& app, Sources& sources) {
  if (!app.run_at_start())
    throw UsageError(app.results.last_error);
  if (sources.model) {
    sources.model->wait_idle();
    app.poll_source();
  } else {
    wait_for_answer(app, *sources.worker);
  }
  if (!app.results.last_error.empty())
    throw UsageError(app.results.last_error);
}

// What the script's reader needs to know, and its exit code.
int report(const ScriptPlayer& player, const ScriptOutcome& outcome) {
  for (const std::string& note : player.notes())
    std::cout << "warplens: " << note << "\n";
  if (!outcome.message.empty())
    (outcome.exit_code ? std::cerr : std::cout) << "warplens: " << outcome.message << "\n";
  return outcome.exit_code;
}

constexpr int kPanelPictureHeight = 1600;

int play_script(App& app, const GuiOptions& options, Script script) {
  ScriptPlayer player(std::move(script));
  app.run_at_start(); // measured while the OpenGL context is made
  HeadlessGui gui(app, options.width, options.height);
  return report(player, gui.play(player));
}

} // namespace

int run_headless_screenshot(const GuiOptions& options) {
  std::optional<Panel> panel;
  if (!options.panel.empty() && !(panel = parse_panel(options.panel)))
    throw UsageError("unknown panel '" + clip(options.panel) + "'" +
                     did_you_mean(options.panel, panel_keys()) + "; choose one of " +
                     panel_keys_listed());
  check_gui_options(options);
  check_gui_arch(options);
  // A script that cannot be read is refused before a worker starts (and has to be stopped again).
  std::optional<Script> script;
  if (!options.script.empty())
    script = load_script(options.script);
  Sources sources(options);
  App app = app_from(options);
  if (const std::string problem = app.request_problem(); !problem.empty())
    throw UsageError(problem);
  sources.serve(app);
  if (script)
    return play_script(app, options, std::move(*script));
  if (panel)
    app.show_panel(*panel);
  if (!options.baseline
           .empty()) { // the baseline first, at its defaults, then back to the chosen kernel
    App chosen = app;
    if (!app.select_kernel(options.baseline))
      resolve_kernel_request(options.baseline, {}, "", ""); // names the choices
    run_and_wait(app, sources);
    app.pin_baseline();
    app.choices.kernel_id = chosen.choices.kernel_id;
    app.choices.params = chosen.choices.params;
    app.choices.set_block(chosen.block());
  }
  run_and_wait(app, sources);
  // A panel's picture ends where the panel does (layout.cpp draws it alone, the full height), so
  // its window is tall enough for the longest panel, a 32-row bank grid under its tables.
  HeadlessGui gui(app, options.width,
                  panel ? std::max(options.height, kPanelPictureHeight) : options.height);
  gui.render(2); // windows and tables settle
  sources.edits.wait_idle();
  gui.render(2); // the models of the launch on screen have arrived
  app.frame.screenshot = ScreenshotRequest{panel, options.screenshot};
  gui.render(kPanelPictureFrames);
  if (app.messages.last_screenshot_path.empty())
    throw UsageError(app.messages.status);
  if (options.screenshot.empty()) // the pictures folder: said when it is not the desktop's
    if (const std::string why = pictures_folder().fallback_reason; !why.empty())
      std::cout << "warplens: " << why << "\n";
  if (const std::string taken =
          taken_name_note(options.screenshot, app.messages.last_screenshot_path);
      !taken.empty())
    std::cout << "warplens: " << taken << "; saved under a free name\n";
  std::cout << app.messages.last_screenshot_path << "\n";
  return 0;
}

int run_gui_command(const GuiOptions& options) {
  return options.headless ? run_headless_screenshot(options) : run_gui(options);
}

int run_gui(const GuiOptions& options) {
  check_gui_options(options);
  if (!has_display()) {
    if (!options.script.empty())
      throw UsageError(
          "no window for the script: $DISPLAY and $WAYLAND_DISPLAY are not set (add --headless)");
    return write_default_view(options, "$DISPLAY and $WAYLAND_DISPLAY are not set");
  }
  // NVRTC loaded meanwhile: a file opened later, or its first save, is compiled warm.
  std::thread(warm_up_compiler).detach();
  // A script that cannot be read is refused before a worker starts.
  std::optional<ScriptPlayer> player;
  if (!options.script.empty())
    player.emplace(load_script(options.script));
  check_gui_arch(options);
  Sources sources(options, wake_window);
  App app = app_from(options, wake_window);
  sources.serve(app);
  // A script starts from the defaults and leaves the user's settings alone.
  const std::filesystem::path config_dir = !options.config_dir.empty() ? options.config_dir
                                           : options.script.empty()    ? default_config_dir()
                                                                       : std::filesystem::path();
  // The window sends the first request once the saved settings are read.
  std::string problem;
  if (!run_window(app, config_dir, problem, player ? &*player : nullptr)) {
    if (player)
      throw UsageError("no window for the script: " + problem + " (add --headless)");
    return write_default_view(options, problem);
  }
  if (!player)
    return 0;
  return report(*player, *player->outcome());
}

std::vector<PendingCheck> gui_checks() {
  const auto one = [](SystemCheck (*check)()) { return [check] { return SystemChecks{check()}; }; };
  return {{"display", one(check_display), 5,
           "its X server does not answer: start it (or log in again with ssh -X), or use "
           "warplens --headless"},
          {"EGL", one(HeadlessGui::check_rendering), 15,
           "the EGL driver does not answer: warplens --headless cannot draw here"},
          {"settings", [] { return SystemChecks{check_settings(default_config_dir())}; }, 10,
           "its folder does not answer (a network folder?)"}};
}

} // namespace wl::viz
