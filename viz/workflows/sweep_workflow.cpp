// The Sweep panel's workflow: the sides a first sweep takes, a side list turned into a grid, a
// sweep sent to the source (an A/B sweep in two halves) or made by the models here, and a sweep
// that came back shown with a figure that varies across it.
#include "base/error.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "model/model_kernel.h"
#include "registry.h"
#include "workflows/app.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

namespace wl::viz {

namespace {

// Values as a field takes them: "32:1024:32" when evenly spaced (three or more), else a list.
void write_values(const std::vector<std::int64_t>& v, std::array<char, kSweepSidesCapacity>& into) {
  if (v.size() >= 3 && evenly_spaced(v))
    write_field(std::to_string(v.front()) + ":" + std::to_string(v.back()) + ":" +
                    std::to_string(v[1] - v[0]),
                into);
  else
    write_field(v.empty() ? "1" : joined(v, ","), into);
}

void write_values(const std::set<int>& sides, std::array<char, kSweepSidesCapacity>& into) {
  write_values(std::vector<std::int64_t>(sides.begin(), sides.end()), into);
}

} // namespace

bool App::typed_sides_allow_a_block() const {
  try {
    for (const BlockShape& shape : sweep_grid_chosen().shapes)
      if (kernel()->check_block(shape, choices.params).empty())
        return true;
  } catch (const Error&) {
    return true; // sides that do not parse are the field's to explain, not replaced here
  }
  return false;
}

namespace {

// How many of these shapes the kernel allows with these parameters.
int allowed_count(const KernelDesc& kernel, const Params& params, const std::set<int>& xs,
                  const std::set<int>& ys) {
  int allowed = 0;
  for (const int x : xs)
    for (const int y : ys)
      allowed += kernel.check_block(BlockShape{x, y, 1}, params).empty() ? 1 : 0;
  return allowed;
}

} // namespace

void App::choose_sweep_sides() {
  const KernelDesc* desc = kernel();
  if (!desc)
    return;
  // The launch on screen is always one of the points, so the sweep says where it stands.
  const BlockShape shown = block();
  std::set<int> xs, ys{shown.y};
  if (shown.y == 1 && desc->block_rank == 1) { // a row of 32:1024:32
    for (int x = 32; x <= 1024; x += 32)
      xs.insert(x);
    ys = {1};
  } else { // a 2D kernel: a heatmap of x by y around the launch
    xs = {8, 16, 32, 64, 128, 256};
    ys = {1, 2, 4, 8, 16, 32};
  }
  xs.insert(shown.x);
  ys.insert(shown.y);
  // A first sweep mostly of struck-out shapes would show little: the shapes the kernel offers.
  if (2 * allowed_count(*desc, choices.params, xs, ys) < static_cast<int>(xs.size() * ys.size())) {
    xs = {shown.x};
    ys = {shown.y};
    for (const BlockShape& shape : allowed_presets(*desc, choices.params)) {
      xs.insert(shape.x);
      ys.insert(shape.y);
    }
  }
  write_values(xs, sweep.x_sides);
  write_values(ys, sweep.y_sides);
}

void App::show_sweep_sides(const SweepData& data) {
  std::set<int> xs, ys;
  for (const SweepPoint& point : data.points) {
    xs.insert(point.block.x);
    ys.insert(point.block.y);
  }
  write_values(xs, sweep.x_sides);
  write_values(ys, sweep.y_sides);
  sweep.against = data.against ? data.against->kernel_id : "";
  sweep.param.clear();
  for (const std::string& axis : varying_axes(data.points))
    if (!axis.starts_with("block.") && choices.params.contains(axis)) { // the first swept parameter
      sweep.param = axis;
      write_values(axis_values(data.points, axis), sweep.param_values);
      break;
    }
}

SweepGrid App::sweep_grid_chosen() const {
  if (!kernel())
    throw UsageError("no kernel chosen");
  SweepGrid grid{sweep_shapes(parse_side_list(sweep.x_sides.data(), "block x"),
                              parse_side_list(sweep.y_sides.data(), "block y"), {1}),
                 {}};
  if (!sweep.param.empty()) {
    const std::string values = sweep.param_values.data();
    grid.param_axes.push_back(parse_param_values(
        *kernel(), sweep.param, values, sweep.param + " values '" + clip(values, 40) + "'"));
  }
  param_sets(choices.params, grid); // too many points, said before anything is made
  return grid;
}

KernelRequest App::against_request() const {
  const KernelDesc* against = find_kernel(sweep.against);
  if (!against)
    throw UsageError("against '" + clip(sweep.against, 40) + "' is not a bundled kernel");
  std::vector<std::string> swept;
  if (!sweep.param.empty())
    swept.push_back(sweep.param);
  return KernelRequest{against, params_for_against(*against, choices.params, swept),
                       against->default_block};
}

void App::model_sweep_now() {
  sweep.problem.clear();
  try {
    const SweepGrid grid = sweep_grid_chosen();
    SweepData data = viz::model_sweep(*kernel(), choices.params, grid, arch());
    if (!sweep.against.empty()) {
      const KernelRequest b = against_request();
      data.against =
          SweepSeries{b.kernel->id, viz::model_sweep(*b.kernel, b.params, grid, arch()).points};
    }
    take_sweep(std::move(data));
  } catch (const Error& e) {
    sweep.problem = e.what();
  }
}

void App::model_variants_now() {
  sweep.problem.clear();
  const KernelDesc* shown = kernel();
  if (!shown)
    return;
  const auto by_the_models = [on = arch()](const KernelRequest& request) {
    return model_kernel(request, on, kSweepModelBudget);
  };
  try {
    sweep.variants =
        ShownVariants{run_variant_sweep(kernel_family(shown->id), size_text(*shown, choices.params),
                                        by_the_models),
                      "model, " + arch().id};
  } catch (const Error& e) {
    sweep.problem = e.what();
  }
}

void App::take_sweep(SweepData data) {
  sweep.variants.reset(); // the block sweep asked for replaces the ladder
  sweep.data = std::move(data);
  if (sweep.metric_chosen)
    return;
  const std::vector<SweepMetric> offered = offered_metrics(*sweep.data);
  const auto varies = [&](SweepMetric metric) {
    std::optional<double> first;
    for (const SweepPoint& p : sweep.data->points)
      if (const std::optional<double> v =
              p.result ? figure_value(*metric, *p.result) : std::nullopt) {
        if (first && std::fabs(*v - *first) > 1e-9 * std::max(1.0, std::fabs(*first)))
          return true;
        first = first.value_or(*v);
      }
    return false;
  };
  if (std::find(offered.begin(), offered.end(), sweep.metric) != offered.end() &&
      varies(sweep.metric))
    return;
  // The figures a sweep is most often made for first (the time, the lessons' per-request
  // figures), then the table's order.
  std::vector<SweepMetric> preferred;
  for (const char* key : {"median_time", "sectors_per_request", "wavefronts_per_request"})
    if (const SweepMetric m = sweep_metric(key);
        std::find(offered.begin(), offered.end(), m) != offered.end())
      preferred.push_back(m);
  preferred.insert(preferred.end(), offered.begin(), offered.end());
  const auto moving = std::find_if(preferred.begin(), preferred.end(), varies);
  if (moving != preferred.end())
    sweep.metric = *moving;
}

void App::measure_sweep() {
  sweep.problem.clear();
  if (!source)
    return;
  if (tune_running()) { // its answers come through the same channel as the tune's points
    sweep.problem = "A tune is being measured (Tune panel): stop it, or wait for it, first.";
    return;
  }
  try {
    const SweepGrid grid = sweep_grid_chosen();
    sweep.first_half.reset();
    sweep.second_half.reset();
    if (!sweep.against.empty()) // a B without the swept parameter is refused before A runs
      sweep.second_half = SweepWorkflow::Half{against_request(), grid};
    source->submit_sweep(KernelRequest{kernel(), choices.params, block()}, grid, arch());
    sweep.running = true;
  } catch (const Error& e) {
    sweep.problem = e.what();
  }
}

} // namespace wl::viz
