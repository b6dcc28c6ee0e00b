#include "front_end/screenshot.h"

#include "base/error.h"
#include "base/file_output.h"
#include "base/json_input.h"
#include "drawing/controls.h"
#include "drawing/widgets.h"
#include "front_end/frame.h"
#include "kernel_file/file_kernel.h"
#include "model/block_text.h"
#include "panels/panels.h"
#include "report/roofline.h"
#include "report/run_report.h"
#include "workflows/memory_maps.h"
#include "workflows/save_folder.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>

#include <nlohmann/json.hpp>
#include <stb_image_write.h>

namespace wl::viz {

namespace {

using nlohmann::json;

// A person's kernel file on screen: which file and which text, and whether its last save compiled.
json kernel_file_json(const App& app) {
  const std::shared_ptr<const KernelFile> file =
      app.kernel() ? kernel_file_of(app.kernel()->id) : nullptr;
  if (!file)
    return nullptr;
  return {{"path", file->path.string()},
          {"hash", file->hash},
          {"last_save_problem", app.kernel_file_broken() ? app.file.problem : ""}};
}

json configuration(const App& app) {
  json panels = json::object();
  for (Panel panel : kAllPanels)
    panels[panel_name(panel)] = app.choices.panel_open[static_cast<int>(panel)];
  json out = {{"kernel", app.choices.kernel_id},
              {"params", app.choices.params},
              {"block", format_block(app.block())},
              {"arch", app.arch().id},
              {"live", app.choices.live},
              {"measure_per_site", app.choices.measure_per_site},
              {"measure_stalls", app.choices.measure_stalls},
              {"measure_energy", app.choices.measure_energy},
              {"measure_memory_chart", app.choices.measure_memory_chart},
              {"theme", app.choices.theme == Theme::light ? "light" : "dark"},
              {"mode", app.source ? app.source->mode() : "no result source"},
              {"panels_open", panels},
              {"status", app.messages.status},
              {"ui_scale", app.choices.ui_scale},
              {"request_problem", app.request_problem()},
              {"measured_is_stale", app.latest_is_stale()},
              {"stale_note", app.latest_is_stale() ? app.stale_note() : ""}};
  if (app.frame.first_measured_figures_at)
    out["first_measured_figures_seconds"] = *app.frame.first_measured_figures_at;
  if (const json file = kernel_file_json(app); !file.is_null())
    out["kernel_file"] = file;
  return out;
}

// The current point of each impact curve, as the Occupancy panel marks it.
json curve_points(const App& app) {
  if (!app.results.curves || !app.results.latest || !app.results.latest->attributes)
    return nullptr;
  const RunResult& r = *app.results.latest;
  auto at = [](const std::vector<CurvePoint>& points, std::int64_t x) -> json {
    const auto it =
        std::find_if(points.rbegin(), points.rend(), [&](const CurvePoint& p) { return p.x <= x; });
    if (it == points.rend())
      return nullptr;
    return {{"x", x},
            {"blocks_per_sm", it->blocks_per_sm},
            {"occupancy", it->occupancy},
            {"points", points.size()}};
  };
  return {{"block_size", at(app.results.curves->block_size, r.launch.block.threads())},
          {"registers", at(app.results.curves->registers, r.attributes->registers)},
          {"shared_memory", at(app.results.curves->shared_memory,
                               r.attributes->static_shared_bytes + r.dynamic_smem)}};
}

// The index playground's fields and what its drawing shows of them, or the one-line problem.
json playground_figures(const App& app) {
  const PlaygroundChoice& c = app.choices.playground;
  json figures = {{"index", c.expression.data()},     {"swizzle", c.swizzle.data()},
                  {"element_bytes", c.element_bytes}, {"space", c.shared ? "shared" : "global"},
                  {"block", c.block.data()},          {"warp", c.warp}};
  try {
    const PlaygroundWarp warp = evaluate_playground(playground_of(c));
    figures.update(
        warp_figures_json(warp.access, c.shared ? MemorySpace::shared : MemorySpace::global));
  } catch (const UsageError& e) {
    figures["problem"] = e.what();
  }
  return figures;
}

json map_figures(const App& app, MemorySpace space) {
  if (!app.request_problem().empty())
    return nullptr;
  const KernelDesc& kernel = *app.kernel();
  MapChoice choice = space == MemorySpace::global ? app.choices.global_map : app.choices.shared_map;
  const LaunchShape launch =
      make_launch(kernel, app.choices.params, app.block(), app.arch().sm_count);
  const std::optional<ChosenWarp> chosen =
      choose_warp(kernel, launch, app.prediction_on_screen(), space, choice,
                  app.arch().cc_major * 10 + app.arch().cc_minor);
  if (!chosen)
    return nullptr;
  json figures = {{"site", app.sites_on_screen()[static_cast<std::size_t>(chosen->site)].name},
                  {"block", {chosen->block.x, chosen->block.y, chosen->block.z}},
                  {"warp", chosen->warp},
                  {"iteration", chosen->iteration}};
  figures.update(warp_figures_json(chosen->access, space));
  return figures;
}

// An A/B sweep's figures as its heatmap prints them: per point the second kernel's figure over
// the first's and, for times, the verdict.
json ab_comparison(const SweepData& data, const ChartAxes& axes, SweepMetric metric) {
  json points = json::array();
  for (const SweepPoint& a : data.points) {
    const SweepPoint* b = point_at(data.against->points, a);
    json point = {{"point", point_name(a, axes)}};
    if (a.result && b && b->result) {
      const std::optional<double> va = figure_value(*metric, *a.result),
                                  vb = figure_value(*metric, *b->result);
      if (va && vb && *va > 0)
        point["ratio"] = *vb / *va;
      if (carries_noise(metric))
        point["verdict"] = verdict_word(compare_times(*a.result, *b->result).verdict);
    }
    points.push_back(std::move(point));
  }
  return {
      {"kernel", data.against->kernel_id},
      {"verdicts", verdict_counts(SweepSeries{data.kernel_id, data.points}, *data.against)},
      {"energy_verdicts", energy_counts(SweepSeries{data.kernel_id, data.points}, *data.against)},
      {"points", std::move(points)}};
}

// A variant sweep as its bars show it: per variant its time (measured or modelled), its share of
// the peer, or why it was refused; the peer and where the figures come from.
json variants_figures(const ShownVariants& shown) {
  json variants = json::array();
  for (const VariantPoint& p : shown.sweep.variants) {
    json v = {{"kernel", p.kernel_id}, {"title", p.title}, {"refused", p.refused}};
    if (p.result && p.result->timing)
      v["median_time"] = p.result->timing->median_time;
    else if (p.result)
      v["modelled_time"] = figure_value(figure("modelled_time"), *p.result).value_or(0);
    if (const std::optional<double> share = share_of_peer(shown.sweep, p))
      v["of_peer"] = *share;
    variants.push_back(std::move(v));
  }
  json peer = nullptr;
  if (shown.sweep.peer)
    peer = {{"name", shown.sweep.peer->name},
            {"median_time", shown.sweep.peer->median_time},
            {"source", shown.sweep.peer->source}};
  return {{"origin", shown.origin},
          {"family", shown.sweep.family},
          {"size", shown.sweep.size},
          {"peer", peer},
          {"variants", variants}};
}

json sweep_figures(const App& app) {
  json sweep = {{"x_sides", app.sweep.x_sides.data()},
                {"y_sides", app.sweep.y_sides.data()},
                {"metric", figure_label(*app.sweep.metric)},
                {"second", app.sweep.second ? figure_label(*app.sweep.second) : ""},
                {"param", app.sweep.param},
                {"param_values", app.sweep.param_values.data()},
                {"against", app.sweep.against},
                {"problem", app.sweep.problem},
                {"running", app.sweep.running}};
  if (app.sweep.variants)
    sweep["variants"] = variants_figures(*app.sweep.variants);
  if (!app.sweep.data)
    return sweep;
  const SweepData& data = *app.sweep.data;
  json offered = json::array();
  for (SweepMetric metric : offered_metrics(data))
    offered.push_back(figure_label(*metric));
  int allowed = 0;
  for (const SweepPoint& p : data.points)
    allowed += p.result ? 1 : 0;
  const ChartAxes axes = chart_axes(data);
  sweep.update(
      {{"kernel", data.kernel_id},
       {"axes",
        {{"x", axes.x}, {"y", axes.y}, {"held", axes.held}, {"held_at", app.sweep.held_at}}},
       {"origin", data.origin},
       {"measured", data.measured},
       {"points", data.points.size()},
       {"allowed", allowed},
       {"offered", offered}});
  if (data.against)
    sweep["comparison"] = ab_comparison(data, axes, app.sweep.metric);
  if (!data.devices.empty()) { // a per-device sweep: its GPUs, the sweep's own first
    json devices = json::array({series_device(data.points)});
    for (const SweepSeries& series : data.devices)
      devices.push_back(series_device(series.points));
    sweep["devices"] = devices;
  }
  return sweep;
}

// The controls a person can see and reach, by panel: what a script can click.
json controls_shown() {
  json controls = json::array();
  for (const Control& c : controls_on_screen())
    if (c.visible && !c.label.empty())
      controls.push_back({{"label", c.label},
                          {"panel", c.panel},
                          {"x", std::lround(c.click_x)},
                          {"y", std::lround(c.click_y)}});
  return controls;
}

// Figures the panels show that run_json does not carry (its "figures" hold the figure table's).
json derived_figures(const App& app) {
  json figures = json::object();
  figures["history_median_time"] = app.recent_medians(); // as the Timings panel lists them
  if (!app.results.latest)
    return figures;
  const RunResult& r = *app.results.latest;
  figures["achieved_occupancy"] = achieved_occupancy_text(r);
  figures["recorded_on"] = r.recorded_on;
  figures["counters_measured"] = !r.counters             ? "not collected"
                                 : r.counters->available ? "collected (result.counters)"
                                                         : "unavailable: " + r.counters->reason;
  figures["impact_curves_current"] = curve_points(app);
  return figures;
}

// The baseline comparison as the Timings and Occupancy panels show it.
json baseline_figures(const App& app) {
  if (!app.results.baseline || !app.results.latest)
    return nullptr;
  const RunResult &now = *app.results.latest, &then = *app.results.baseline;
  json figures = {{"label", app.baseline_label()}};
  if (now.timing && then.timing && now.timing->median_time > 0) {
    figures["speed_up"] = then.timing->median_time / now.timing->median_time;
    figures["time_change"] = change_text(now.timing->median_time, then.timing->median_time);
  }
  if (now.occupancy && then.occupancy)
    figures["theoretical_occupancy_change"] =
        change_text(100 * now.occupancy->occupancy, 100 * then.occupancy->occupancy, true);
  return figures;
}

// The words each panel in the picture shows, a line each as ImGui's log writes them, and the
// status line's.
json panel_texts(const App& app) {
  json texts = {{"status_line", app.frame.status_line_text}};
  for (Panel panel : kAllPanels)
    if (app.frame.panel_rects[static_cast<int>(panel)].visible)
      texts[panel_name(panel)] = app.frame.panel_text[static_cast<int>(panel)];
  return texts;
}

json tooltip_json() {
  const std::optional<Tooltip>& tip = tooltip_on_screen();
  if (!tip)
    return nullptr;
  return {{"text", tip->text},
          {"x0", std::lround(tip->rect.x0)},
          {"y0", std::lround(tip->rect.y0)},
          {"x1", std::lround(tip->rect.x1)},
          {"y1", std::lround(tip->rect.y1)}};
}

// The lesson on screen, for a slide's sidecar: which step, what it asks, what the learner was told,
// and the panels covered until the question is answered.
json lesson_state(const App& app) {
  const LessonStep* step = app.lessons.current();
  if (!step)
    return nullptr;
  json covered = json::array();
  for (Panel panel : kAllPanels)
    if (app.lesson_veils(panel))
      covered.push_back(panel_name(panel));
  // The lesson's questions answered right, and those right at the first try.
  std::array<int, 2> answered{};
  if (const auto found = app.lessons.progress.find(app.lessons.id);
      found != app.lessons.progress.end())
    answered = {app.lessons.lesson->answered_right(found->second.done),
                app.lessons.lesson->answered_right(found->second.first_try)};
  return {{"lesson", app.lessons.lesson->title},
          {"id", app.lessons.id},
          {"step", app.lessons.step + 1},
          {"steps", app.lessons.lesson->steps.size()},
          {"title", step->title},
          {"ask", step->ask},
          {"tries", app.lessons.tries}, // wrong answers to this step's question so far
          {"answered_right", answered[0]},
          {"first_try", answered[1]},
          {"verdict", app.lessons.verdict ? json(app.lessons.verdict->says) : json(nullptr)},
          {"right", app.lessons.verdict ? json(app.lessons.verdict->right) : json(nullptr)},
          {"revealed", app.lessons.revealed},
          {"covered", covered}};
}

// The Roofline panel's figures while it is open: the roofs, the launch's point (by DRAM and by L2
// bytes, with the counters' FLOPs where measured) and the verdict.
json roofline_figures(const App& app) {
  const RunResult* result = app.result_on_screen();
  if (!app.choices.panel_open[static_cast<int>(Panel::roofline)])
    return nullptr;
  if (!result)
    return app.request_problem().empty() ? json(nullptr) : json{{"problem", app.request_problem()}};
  const RooflineCeilings roofs = roofline_ceilings(result->arch);
  json figures = {{"dram_gbps", roofs.dram_gbps},
                  {"l2_gbps", roofs.l2_gbps},
                  {"fp32_gflops", roofs.fp32_gflops},
                  {"ridge", roofs.ridge()}};
  std::string why;
  const std::optional<RooflinePoint> point = roofline_point(*result, &why);
  if (!point) {
    figures["problem"] = why;
    return figures;
  }
  figures.update(
      {{"intensity", point->intensity()},
       {"dram_bytes", point->dram_bytes},
       {"bytes_source", point->bytes_source},
       {"l2_intensity", point->l2_intensity()},
       {"l2_measured", point->l2_measured},
       {"measured_flops", point->measured_flops ? json(*point->measured_flops) : json(nullptr)},
       {"modelled_gflops", point->modelled_gflops},
       {"bound_by", roofs.bound_by(*point)},
       {"tensor_cores", point->tensor_cores},
       {"gflops", point->timed ? json(point->gflops) : json(nullptr)},
       {"verdict", roofline_verdict(*point, roofs)}});
  return figures;
}

json shown_elsewhere(const App& app) {
  return {{"text", panel_texts(app)},
          {"cut_off", cut_off_on_screen()},
          {"shortened", shortened_on_screen()},
          {"tooltip", tooltip_json()},
          {"baseline_comparison", baseline_figures(app)},
          {"global_map", map_figures(app, MemorySpace::global)},
          {"shared_map", map_figures(app, MemorySpace::shared)},
          {"playground", app.choices.panel_open[static_cast<int>(Panel::playground)]
                             ? playground_figures(app)
                             : json(nullptr)},
          {"sweep", sweep_figures(app)},
          {"lesson", lesson_state(app)},
          {"roofline", roofline_figures(app)},
          {"controls", controls_shown()}};
}

// The PNG a name asks for: "shot.png" or "shot.PNG" as written, "shot" as "shot.png".
std::filesystem::path as_png(const std::filesystem::path& requested) {
  return lowercase(requested.extension().string()) == ".png"
             ? requested
             : std::filesystem::path(requested.string() + ".png");
}

// "shot.png" + "2" -> "shot-2.png"
std::filesystem::path with_suffix(const std::filesystem::path& path, const std::string& suffix) {
  std::string name = path.stem().string();
  name.append("-").append(suffix).append(path.extension().string());
  return path.parent_path() / name;
}

// A name is taken when the PNG or its sidecar exists; a name the file system refuses (too long, a
// folder that cannot be read) throws with the system's reason.
bool taken(const std::filesystem::path& png) {
  std::filesystem::path sidecar = png;
  sidecar.replace_extension(".json");
  for (const std::filesystem::path& file : {png, sidecar}) {
    std::error_code error;
    // A link counts as taken even when it points nowhere: writing through it would make a file
    // somewhere the user did not name.
    if (std::filesystem::exists(std::filesystem::symlink_status(file, error)))
      return true;
    if (error && error != std::errc::no_such_file_or_directory)
      throw UsageError("cannot save as " + clip(file.string(), 60) + ": " + error.message() +
                       "; give a folder you may write to");
  }
  return false;
}

// The PNG file's bytes, made in memory so the one safe writer writes them.
std::string png_bytes(const Image& image) {
  std::string bytes;
  const auto append = [](void* into, void* data, int size) {
    static_cast<std::string*>(into)->append(static_cast<const char*>(data),
                                            static_cast<std::size_t>(size));
  };
  if (!stbi_write_png_to_func(append, &bytes, image.width, image.height, 4, image.rgba.data(),
                              image.width * 4))
    throw UsageError("cannot encode the picture as PNG (out of memory?)");
  return bytes;
}

// `base`, or base-2, base-3, ...: the first name not taken; a name the file system refuses throws.
std::filesystem::path first_free(const std::filesystem::path& base) {
  std::filesystem::path path = base;
  for (int counter = 2; taken(path); ++counter) {
    if (counter > 1000)
      throw UsageError("no free file name like " + base.filename().string().substr(0, 80));
    path = with_suffix(base, std::to_string(counter));
  }
  return path;
}

} // namespace

Image crop(const Image& image, const PanelRect& rect) {
  const int x0 = std::clamp(static_cast<int>(rect.x), 0, image.width);
  const int y0 = std::clamp(static_cast<int>(rect.y), 0, image.height);
  const int x1 = std::clamp(static_cast<int>(rect.x + rect.width), x0, image.width);
  const int y1 = std::clamp(static_cast<int>(rect.y + rect.height), y0, image.height);
  Image part{x1 - x0, y1 - y0, {}};
  part.rgba.reserve(static_cast<std::size_t>(part.width) * part.height * 4);
  for (int y = y0; y < y1; ++y) {
    const auto row = image.rgba.begin() + (static_cast<std::ptrdiff_t>(y) * image.width + x0) * 4;
    part.rgba.insert(part.rgba.end(), row, row + static_cast<std::ptrdiff_t>(part.width) * 4);
  }
  return part;
}

std::filesystem::path free_screenshot_path(const std::filesystem::path& requested,
                                           std::optional<Panel> panel,
                                           const std::filesystem::path& default_dir) {
  std::error_code error;
  // A folder means "save into it"; no name means the default folder.
  const bool folder = requested.empty() || std::filesystem::is_directory(requested, error);
  if (!folder) {
    // A sidecar takes the name with .json, so a PNG never ends in .json itself.
    const std::filesystem::path png = as_png(requested);
    if (!taken(png))
      return png;
    return first_free(with_suffix(png, local_time("%Y%m%d-%H%M%S")));
  }
  std::string name = "warplens-" + local_time("%Y%m%d-%H%M%S");
  if (panel)
    name.append("-").append(panel_name(*panel));
  return first_free((requested.empty() ? default_dir : requested) / (name + ".png"));
}

std::string taken_name_note(const std::filesystem::path& requested, const std::string& saved) {
  std::error_code error;
  if (requested.empty() || std::filesystem::is_directory(requested, error))
    return "";
  const std::filesystem::path asked = as_png(requested);
  std::filesystem::path sidecar = asked;
  sidecar.replace_extension(".json");
  if (saved == asked.string())
    return "";
  // Appended: "'" + std::string trips GCC 12's -Wrestrict.
  return std::string("'")
      .append(asked.string())
      .append("' (or its sidecar '")
      .append(sidecar.filename().string())
      .append("') was taken");
}

json screenshot_sidecar(const App& app, std::optional<Panel> panel, int width, int height) {
  // A panel taller than the window is cut at its bottom: how much of it the picture holds.
  const int content_height =
      panel ? static_cast<int>(app.frame.panel_rects[static_cast<int>(*panel)].content_height)
            : height;
  return {{"screenshot",
           {{"panel", panel ? panel_name(*panel) : "window"},
            {"width", width},
            {"height", height},
            {"whole", content_height <= height + 1},
            {"content_height", std::max(content_height, height)},
            {"taken", local_time("%Y-%m-%dT%H:%M:%S%z")},
            {"font", loaded_font_name()}}},
          {"configuration", configuration(app)},
          {"result", app.results.latest ? run_json(*app.results.latest) : json(nullptr)},
          {"modelled", app.results.modelled ? run_json(*app.results.modelled) : json(nullptr)},
          {"baseline", app.results.baseline ? run_json(*app.results.baseline) : json(nullptr)},
          {"figures", derived_figures(app)},
          {"shown", shown_elsewhere(app)},
          {"error", app.results.last_error}};
}

// The sidecar of a picture kept aside goes beside it ($TMPDIR), said briefly: the line names the
// picture's copy already.
std::string figures_kept_too(const std::filesystem::path& name, const std::string& figures) {
  const KeptCopy copy = keep_aside(name, figures);
  return copy.path.empty() ? "; its figures " + copy.message : "; its figures beside it";
}

std::filesystem::path save_screenshot(const App& app, const Image& window,
                                      const ScreenshotRequest& request) {
  Image image = window;
  if (request.panel) {
    const PanelRect& rect = app.frame.panel_rects[static_cast<int>(*request.panel)];
    if (!rect.visible)
      throw UsageError(std::string("panel '") + panel_name(*request.panel) + "' is not open");
    image = crop(window, rect);
  }
  if (image.width <= 0 || image.height <= 0)
    throw UsageError("nothing to save: the image is empty");
  const std::string picture = png_bytes(image);
  const std::string figures =
      json_text(screenshot_sidecar(app, request.panel, image.width, image.height), 2) + "\n";
  std::filesystem::path png;
  try {
    png = free_screenshot_path(request.path, request.panel,
                               request.path.empty() ? folder_for_saving(app) : "");
    // A folder the person named must exist: a typo makes no new folders.
    if (std::error_code error;
        !png.parent_path().empty() && !std::filesystem::is_directory(png.parent_path(), error))
      throw UsageError("cannot write " + clip(png.string(), 120) + ": no folder " +
                       clip(png.parent_path().string(), 120) + "; give a folder that exists");
  } catch (const Error& e) { // no folder to save in: what was taken is kept, not lost
    const KeptCopy kept = keep_aside("screenshot.png", picture);
    if (!kept.path.empty())
      throw UsageError(std::string(e.what()) + "; the picture " + kept.message +
                       figures_kept_too("screenshot.json", figures));
    // Neither kept: the reason once (a TMPDIR that is no folder fails both alike).
    const KeptCopy figures_kept = keep_aside("screenshot.json", figures);
    throw UsageError(std::string(e.what()) + (figures_kept.message == kept.message
                                                  ? "; the picture and its figures " + kept.message
                                                  : "; the picture " + kept.message +
                                                        "; its figures " + figures_kept.message));
  }
  std::filesystem::path sidecar = png;
  sidecar.replace_extension(".json");
  // The name was free a moment ago; a file that takes it meanwhile is not overwritten. A write
  // that fails keeps its text aside and says where.
  const OutputRules rules{.replace_existing = false, .write_through_links = false};
  if (const std::string problem = write_file_safely(png, picture, rules); !problem.empty())
    throw UsageError(problem + figures_kept_too(sidecar.filename(), figures));
  if (const std::string problem = write_file_safely(sidecar, figures, rules); !problem.empty())
    throw UsageError(problem);
  return png;
}

} // namespace wl::viz
