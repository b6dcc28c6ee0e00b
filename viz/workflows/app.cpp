#include "workflows/app.h"

#include "base/error.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "io/assets.h"
#include "model/block_text.h"
#include "registry.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <utility>

namespace wl::viz {

namespace {

bool same_request(const KernelRequest& a, const KernelRequest& b) {
  return a.kernel == b.kernel && a.params == b.params && a.block == b.block;
}

// A result measured on a GPU ("device:0") belongs to the launch whatever arch the models are set
// to; a model result belongs to the arch it modelled.
bool same_launch(const RunResult& result, const KernelRequest& request,
                 const std::string& arch_id) {
  const bool measured_on_device = result.arch.id.starts_with("device");
  return result.kernel_id == request.kernel->id && result.params == request.params &&
         result.launch.block == request.block && (measured_on_device || result.arch.id == arch_id);
}

// "block 16x16, stride=1": what tells one launch of a kernel from another.
std::string launch_label(const RunResult& result) {
  std::string label = "block " + format_block(result.launch.block);
  if (const KernelDesc* kernel = find_kernel(result.kernel_id); kernel && !result.params.empty())
    label += ", " + format_params(*kernel, result.params);
  return label;
}

// Whether the kernel takes some block of `threads` threads (a 2D kernel's 16x16 for 256).
bool kernel_takes_threads(const KernelDesc& kernel, const Params& params, int threads) {
  if (!kernel.check_block)
    return true;
  for (int x = 1; x <= threads; ++x) {
    if (threads % x != 0)
      continue;
    const int rest = threads / x;
    for (int y = 1; y <= rest; ++y)
      if (rest % y == 0 && kernel.check_block(BlockShape{x, y, rest / y}, params).empty())
        return true;
  }
  return false;
}

// The block-size curve keeps the thread counts the kernel allows: a peak at a size it refuses
// would point the reader at a launch that cannot run.
void keep_allowed_block_sizes(ImpactCurves& curves, const RunResult& result) {
  const KernelDesc* kernel = find_kernel(result.kernel_id);
  if (!kernel)
    return;
  std::erase_if(curves.block_size, [&](const CurvePoint& p) {
    return !kernel_takes_threads(*kernel, result.params, static_cast<int>(p.x));
  });
}

// The curves describe the resources of the shown result, so they are computed once per result.
std::optional<ImpactCurves> curves_for(const RunResult& result) {
  if (!result.attributes || !result.occupancy)
    return std::nullopt;
  OccupancyRequest request;
  request.block = result.launch.block;
  request.registers_per_thread = result.attributes->registers;
  request.static_smem = result.attributes->static_shared_bytes;
  request.dynamic_smem = result.dynamic_smem;
  try {
    ImpactCurves curves = impact_curves(result.arch, request);
    keep_allowed_block_sizes(curves, result);
    return curves;
  } catch (const Error&) {
    return std::nullopt;
  }
}

} // namespace

Layout default_layout() {
  Layout layout;
  for (const PanelName& row : kPanelTable)
    layout.tile[static_cast<int>(row.panel)] = row.first_tile;
  return layout;
}

const KernelDesc* Choices::kernel() const { return find_kernel(kernel_id); }

bool App::select_kernel(const std::string& id) {
  const KernelDesc* desc = find_kernel(id);
  if (!desc)
    return false;
  if (id != choices.kernel_id &&
      !sweep.running) { // another kernel's sweep would read as this one's
    if (sweep.data)
      messages.status = "The sweep of " + sweep.data->kernel_id + " was closed with its kernel";
    sweep.data.reset();
    sweep.problem.clear();
  }
  if (sweep.variants && kernel_family(id) != sweep.variants->sweep.family)
    sweep.variants.reset(); // another family's ladder would read as this one's
  if (id != choices.kernel_id && kernel() && choices.block_field_problem.empty())
    choices.left_launches[choices.kernel_id] =
        Choices::KernelLaunch{choices.params, choices.block_sides};
  choices.kernel_id = id;
  choices.params.clear();
  choices.param_typed.clear();
  choices.params_being_typed.clear();
  for (const ParamSpec& spec : desc->params)
    choices.params[spec.name] = spec.default_value;
  choices.set_block(desc->default_block);
  if (const auto left = choices.left_launches.find(id); left != choices.left_launches.end()) {
    for (const auto& [name, value] : left->second.params)
      if (choices.params.contains(name))
        choices.params[name] = value;
    const auto& [x, y, z] = left->second.block_sides;
    choices.set_block(BlockShape{x, y, z});
  }
  choices.global_map = choices.shared_map = choices.divergence_map =
      MapChoice{}; // another kernel's sites and loops
  if (!sweep.sides_typed)
    choose_sweep_sides();
  else if (!typed_sides_allow_a_block()) { // typed for another kernel, and none of them runs here
    choose_sweep_sides();
    sweep.sides_typed = false;
    messages.status = "The sweep's sides typed for the last kernel allow no block of " + id +
                      ": they are " + sweep.x_sides.data() + " x " + sweep.y_sides.data() + " now";
  }
  if (!choices.params.contains(sweep.param)) // another kernel's parameter
    sweep.param.clear();
  if (sweep.against == id ||
      kernel_family(sweep.against) != kernel_family(id)) // no longer a B to this A
    sweep.against.clear();
  return true;
}

bool Choices::select_arch(const std::string& id_or_alias) {
  for (std::size_t i = 0; i < arches.size(); ++i) {
    const Arch& a = arches[i];
    if (a.id == id_or_alias ||
        std::find(a.aliases.begin(), a.aliases.end(), id_or_alias) != a.aliases.end()) {
      arch_index = static_cast<int>(i);
      return true;
    }
  }
  return false;
}

void Choices::set_block(const BlockShape& shape) {
  block_sides = {shape.x, shape.y, shape.z};
  const std::string text = format_block(shape);
  write_field(text, block_field);
  block_field_problem.clear();
  block_note.clear();
}

void Choices::set_param(const std::string& name, std::int64_t value) {
  const KernelDesc* desc = kernel();
  const auto allows_block = [&] {
    return block_field_problem.empty() && desc->check_block(block(), params).empty();
  };
  const bool allowed_before = desc && allows_block();
  params[name] = value;
  block_note = desc ? follow_built_combination(*desc, name) : "";
  if (!allowed_before || allows_block())
    return;
  try {
    check_kernel_params(*desc, params); // a value out of range is refused, not followed
  } catch (const Error&) {
    return;
  }
  const std::vector<BlockShape> allowed = allowed_presets(*desc, params);
  if (allowed.empty())
    return;
  const std::string before = format_block(block());
  const std::string followed = block_note;
  set_block(allowed.front());
  block_note = (followed.empty() ? "" : followed + "; ") + "block " + before + " became " +
               format_block(allowed.front()) + ": " + name + " " + std::to_string(value) +
               " does not allow " + before;
}

std::string Choices::follow_built_combination(const KernelDesc& desc, const std::string& changed) {
  if (!desc.nearest_params)
    return "";
  const Params before = params;
  params = desc.nearest_params(params, changed);
  std::string moved;
  for (const auto& [name, value] : params)
    if (name != changed && before.count(name) && before.at(name) != value)
      moved += (moved.empty() ? "" : ", ") + name + " " + std::to_string(before.at(name)) +
               " became " + std::to_string(value);
  if (moved.empty())
    return "";
  return moved + ": " + changed + " " + std::to_string(params.at(changed)) +
         " is built with these (" + desc.id + " is built for a table of combinations)";
}

void Choices::param_field_edited(const std::string& name, const std::string& text) {
  param_typed[name] = text;
  params_being_typed.insert(name);
}

void Choices::param_field_committed(const std::string& name) {
  params_being_typed.erase(name);
  const auto typed = param_typed.find(name);
  if (typed == param_typed.end())
    return;
  const auto [value, problem] = read_whole_number(typed->second);
  if (!problem.empty())
    return; // kept as typed and named under Run until fixed
  param_typed.erase(typed);
  set_param(name, value);
}

void Choices::block_field_committed() {
  block_note.clear(); // the person typed a block: no longer the one a parameter moved to
  try {
    const BlockShape shape = parse_block(block_field.data());
    block_sides = {shape.x, shape.y, shape.z};
    block_field_problem.clear();
  } catch (const Error& e) {
    block_field_problem = e.what();
  }
}

std::string Choices::parameters_refusal() const {
  for (const auto& [name, text] : param_typed) {
    if (params_being_typed.count(name))
      continue; // still being typed: the value on screen is the applied one until Enter
    return kernel_id + ": " + name + " '" + clip(text, 40) + "' " +
           read_whole_number(text).problem + "; allowed " +
           allowed_values(kernel_param(*kernel(), name));
  }
  try {
    check_kernel_params(*kernel(), params);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string Choices::block_refusal() const {
  if (!block_field_problem.empty())
    return block_field_problem;
  for (int side : block_sides)
    if (side < 1)
      return "block " + std::to_string(block_sides[0]) + "x" + std::to_string(block_sides[1]) +
             "x" + std::to_string(block_sides[2]) + ": every side must be at least 1";
  try {
    check_kernel_block(KernelRequest{kernel(), params, block()});
    check_block_fits(arch(), block());
    check_kernel_arch(*kernel(), arch());
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

Choices::Refusal Choices::refusal(Refusal::Where where) const {
  using Where = Refusal::Where;
  if (!kernel())
    return {where == Where::launch ? "no kernel chosen" : "", Where::launch};
  if (where != Where::block)
    if (std::string text = parameters_refusal(); !text.empty())
      return {std::move(text), Where::parameters};
  if (where != Where::parameters)
    if (std::string text = block_refusal(); !text.empty())
      return {std::move(text), Where::block};
  return {};
}

std::optional<KernelRequest> Choices::current_request() const {
  if (!request_problem().empty())
    return std::nullopt;
  return KernelRequest{kernel(), params, block()};
}

bool App::run(bool live) {
  const std::string problem = request_problem();
  if (!problem.empty()) {
    results.last_error = problem;
    return false;
  }
  results.last_submitted = current_request();
  results.last_submitted_arch = arch().id;
  if (source)
    source->submit(*results.last_submitted, arch(),
                   RunKind{.live = live,
                           .per_site = !live && choices.measure_per_site,
                           .stalls = !live && choices.measure_stalls,
                           .energy = !live && choices.measure_energy,
                           .memory_chart = !live && choices.measure_memory_chart});
  results.awaiting_run = !live;
  results.last_error.clear();
  return true;
}

void App::run_if_live() {
  if (!choices.live)
    return;
  const std::optional<KernelRequest> request = current_request();
  if (request && (!results.last_submitted || !same_request(*request, *results.last_submitted) ||
                  results.last_submitted_arch != arch().id))
    run(true);
}

void App::follow_edits() {
  if (!models)
    return;
  const std::optional<KernelRequest> request = current_request();
  if (!request || (results.last_modelled && same_request(*request, *results.last_modelled) &&
                   results.last_modelled_arch == arch().id))
    return;
  results.last_modelled = request;
  results.last_modelled_arch = arch().id;
  results.model_error.clear(); // the refusal was the previous launch's
  models->submit(*request, arch(), RunKind{.live = true});
}

std::string App::unsettled_by() const {
  if (file.compile && file.compile->busy())
    return "the compile of " + file.path.filename().string();
  if (source && source->busy())
    return "an answer (" + source->mode() + ")";
  if (models && models->busy())
    return "the models";
  if (sweep.running)
    return "the sweep";
  if (tune_running())
    return "the tune";
  if (kernel_file_broken())
    return ""; // the save's problem is on screen: nothing runs until a save compiles
  const std::optional<KernelRequest> request = current_request();
  if (!request || !results.model_error.empty())
    return ""; // an invalid launch is explained, not computed
  // With Live on, the run of the launch on screen too (unless it failed: that is on screen).
  if (choices.live && latest_is_stale() && results.last_error.empty())
    return "the run of the launch on screen";
  const RunResult* model = model_view();
  return model && same_launch(*model, *request, arch().id) ? ""
                                                           : "the model of the launch on screen";
}

const LaunchPrediction& App::prediction_on_screen() const {
  static const LaunchPrediction none;
  return model_is_current() ? model_view()->prediction : none;
}

std::vector<SiteView> App::sites_on_screen() const {
  if (!kernel())
    return {};
  return site_views(*kernel(), make_launch(*kernel(), choices.params, block(), arch().sm_count),
                    prediction_on_screen());
}

bool App::model_is_current() const {
  const std::optional<KernelRequest> request = current_request();
  const RunResult* model = model_view();
  return request && model && same_launch(*model, *request, arch().id);
}

const RunResult* App::model_view() const {
  if (results.modelled)
    return &*results.modelled;
  return results.latest ? &*results.latest : nullptr;
}

const RunResult* App::result_on_screen() const {
  if (results.latest && !latest_is_stale() && results.last_error.empty())
    return &*results.latest;
  return model_is_current() ? model_view() : nullptr;
}

bool App::latest_is_stale() const {
  if (!results.latest)
    return false;
  if (kernel_file_broken())
    return true;
  const std::optional<KernelRequest> request = current_request();
  return !request || !same_launch(*results.latest, *request, arch().id);
}

std::string App::stale_note() const {
  if (!results.latest)
    return "";
  std::string note = "from " + results.latest->kernel_id + ", " + launch_label(*results.latest);
  if (kernel_file_broken())
    return note + ", the last version of " + file.path.filename().string() +
           " that compiled: its last save does not (the Source panel shows where)";
  if (results.latest->arch.id != arch().id && !results.latest->arch.id.starts_with("device"))
    note += " on " + results.latest->arch.id;
  const std::string problem = request_problem();
  if (!problem.empty())
    return note + ": the launch on screen cannot run as it stands (the Launch panel says why)";
  return note +
         (results.latest->recorded_on.empty()
              ? ": press F5 to measure the launch on screen"
              : ": press F5 for the launch on screen (the recording's figures, if it has it)");
}

void App::show_panel(Panel panel) {
  open(panel) = true;
  choices.layout.shown[static_cast<int>(choices.layout.tile[static_cast<int>(panel)])] =
      static_cast<int>(panel);
}

void App::poll_source() {
  if (models && models != source)
    while (std::optional<SourceUpdate> update = models->poll()) {
      results.model_error = update->error;
      if (update->result) {
        results.curves = curves_for(*update->result); // the curves follow the resources on screen
        results.modelled = std::move(update->result);
        ++results.arrivals;
      } else {
        results.last_error = update->error;
      }
    }
  if (!source)
    return;
  while (std::optional<SourceUpdate> update = source->poll()) {
    if ((update->sweep || update->for_sweep) && tune_running()) {
      take_tune_point(std::move(update->sweep), update->error);
    } else if (update->sweep && sweep.second_half) {
      sweep.first_half = std::move(update->sweep); // the A half: now the B half
      source->submit_sweep(sweep.second_half->request, sweep.second_half->grid, arch());
      sweep.second_half.reset();
    } else if (update->sweep) {
      if (sweep.first_half) { // the B half of an A/B sweep
        sweep.first_half->against = SweepSeries{update->sweep->kernel_id, update->sweep->points};
        update->sweep = std::move(sweep.first_half);
        sweep.first_half.reset();
      }
      take_sweep(std::move(*update->sweep));
      sweep.running = false;
      if (!sweep.data->measured) // Measure sweep answered with the models: say so where it shows
        messages.status = "Measure sweep: the models' figures; nothing was measured (no GPU here)";
    } else if (update->for_sweep) {
      sweep.problem = update->error;
      sweep.running = false;
      sweep.first_half.reset();
      sweep.second_half.reset();
    } else if (update->result && update->timed_part) {
      show_timed_part(std::move(*update->result));
    } else if (update->result) {
      show(std::move(*update->result));
    } else {
      results.last_error = update->error;
    }
  }
}

void App::show(RunResult result) {
  if (!result.timing && sweep.data) // a loaded measured sweep first: the person opened it
    fill_from_sweep(result, *sweep.data);
  if (!result.timing && sweep.variants)
    fill_from_variants(result, *sweep.variants);
  if (const RecordingSlot& recorded = recordings.of(result.arch.id); !result.timing && recorded)
    recorded->fill(result);
  if (!models)
    results.curves = curves_for(result);
  if (result.timing && result.recorded_on.empty()) { // runs timed here; a replayed recording
    results.history.push_back(result);               // is one run however often it is shown
    while (results.history.size() > Results::kHistoryLength)
      results.history.pop_front();
  }
  results.latest = std::move(result);
  ++results.arrivals;
  results.latest_counting = false;
  results.last_error.clear();
  if (results.awaiting_run) { // F5 answered: the status line says what it brought, whichever panel
                              // is read
    results.awaiting_run = false;
    messages.status =
        !results.latest->timing ? "Run: model figures only: " + untimed_reason()
        : !results.latest->recorded_on.empty()
            ? "Run: the recording's figures of this launch (" + results.latest->recorded_on + ")"
            : format("Run measured: median %.4f ms", results.latest->timing->median_time);
  }
}

void App::show_timed_part(RunResult part) {
  if (!models)
    results.curves = curves_for(part);
  results.latest = std::move(part);
  ++results.arrivals;
  results.latest_counting = true;
  results.last_error.clear();
  if (results.awaiting_run) // the whole result's status follows it
    messages.status = format("Run timed: median %.4f ms; now measuring its counters",
                             results.latest->timing->median_time);
}

std::string App::untimed_reason() const {
  const RecordingSlot& recording = this->recording();
  if (kernel() && kernel()->kind == KernelKind::run_time) {
    if (const std::string other = recording ? recording->other_text_of(choices.kernel_id) : "";
        !other.empty())
      return "nothing runs on a GPU here, and " + other + ".";
    if (recording && recording->sources.contains(choices.kernel_id))
      return "nothing runs on a GPU here, and the recording has no run of this launch (it has "
             "the kernel at its default parameters and block).";
    return "nothing runs on a GPU here, and the recording has no run of " + choices.kernel_id +
           " (`warplens record FILE.cu --out R.json` on a GPU makes one; open it with "
           "--recording R.json).";
  }
  if (!recording)
    return recording.problem().empty()
               ? "nothing runs on a GPU here and no recording is loaded."
               : "nothing runs on a GPU here and the recording could not be read: " +
                     recording.problem();
  if (recording->arch != arch().id)
    return "nothing runs on a GPU here, and the recording is of " + recording->arch + ", not " +
           arch().id + ".";
  const bool kernel_recorded =
      std::any_of(recording->runs.begin(), recording->runs.end(),
                  [&](const RunResult& run) { return run.kernel_id == choices.kernel_id; });
  if (!kernel_recorded && recordings.chosen() == &recording) // the person chose what it holds
    return "nothing runs on a GPU here, and the recording (" + recording->label() +
           ") has no run of " + choices.kernel_id + ": it was not recorded.";
  if (!kernel_recorded)
    return "nothing runs on a GPU here, and the recording (" + recording->label() +
           ") has no run of " + choices.kernel_id + ": the kernel is newer than the recording.";
  return "nothing runs on a GPU here, and the recording has no run of this launch (it has each "
         "kernel at its default parameters, with its default block and presets).";
}

namespace {

// The launch on screen shown again, as a Run shows it: the chosen recording's figures replace
// the last ones (a worker's measurement has its own and keeps them).
void show_again(App& app) {
  app.results.last_modelled.reset();
  if (!app.source) // none yet: the session's first run shows it
    return;
  app.results.last_submitted.reset();
  app.run_at_start();
}

} // namespace

bool App::open_recording(const std::string& path) {
  try {
    recordings.choose(path);
  } catch (const Error& e) {
    file.recording_problem = e.what();
    messages.status = file.recording_problem;
    return false;
  }
  file.recording_problem.clear();
  const Recording& chosen = *recordings.chosen()->get();
  if (chosen.arch != arch().id)
    choices.select_arch(chosen.arch);
  // The field names the file in use (none where its path is longer than the field holds).
  write_field(path.size() < file.recording_typed.size() ? path : "", file.recording_typed);
  show_again(*this);
  // The label names the file; its whole path is in File > Open a recording's field.
  messages.status = "Model mode shows the figures " + chosen.label() + ": " +
                    std::to_string(chosen.runs.size()) + " runs, for " + chosen.arch;
  return true;
}

void App::use_bundled_recordings() {
  recordings.use_bundled();
  file.recording_problem.clear();
  file.recording_typed.fill('\0'); // the field names no file that is in use
  show_again(*this);
  messages.status = "Model mode shows the bundled recordings again";
}

std::vector<double> App::recent_medians() const {
  std::vector<double> medians;
  for (const RunResult& run : results.history)
    if (run.timing && run.kernel_id == choices.kernel_id)
      medians.push_back(run.timing->median_time);
  return medians;
}

bool App::pin_baseline() {
  // Only a result of the launch on screen: pinning an older one would compare a run with itself.
  if (!results.latest || latest_is_stale()) {
    results.last_error =
        "nothing to pin yet: the launch on screen has not been run (F5, or wait for Live)";
    return false;
  }
  results.baseline = results.latest;
  return true;
}

std::string App::baseline_label() const {
  return results.baseline ? results.baseline->kernel_id + ", " + launch_label(*results.baseline)
                          : "";
}

void note_save(App& app, const std::string& line) {
  app.messages.last_save = line;
  ++app.messages.saves;
}

std::string saved_note(const std::filesystem::path& file, const std::string& fallback) {
  return "saved '" + file.string() + "'" + (fallback.empty() ? "" : " (" + fallback + ")");
}

App make_app(const std::string& kernel_id, const std::string& arch_id) {
  App app;
  for (const PanelName& row : kPanelTable)
    app.open(row.panel) = row.open_at_start;
  app.choices.layout = default_layout();
  app.choices.arches = load_arch_presets(assets_dir() / "arch");
  if (app.choices.arches.empty())
    throw UsageError("no architecture presets in " + (assets_dir() / "arch").string());
  if (!app.choices.select_arch(
          arch_id)) { // a preset file: find_arch loads it, or names the known ids
    app.choices.arches.push_back(find_arch(app.choices.arches, arch_id));
    app.choices.arch_index = static_cast<int>(app.choices.arches.size()) - 1;
  }
  app.recordings.load_folder(assets_dir() / "recordings", "h100");
  const std::string id = kernel_id.empty() ? "matmul/tiled" : kernel_id;
  if (!app.select_kernel(id))
    resolve_kernel_request(id, {}, "", ""); // throws, naming the choices
  return app;
}

} // namespace wl::viz
