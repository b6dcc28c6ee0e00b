// `warplens tune`: the best launch of a kernel over its block shapes and tunables, found by a
// search that measures few points (tune/tune_search.h), remembered point by point in a cache,
// and explained against the default launch; `--apply` writes a kernel file's winner as its
// defaults. `--model` ranks the space by the models alone, with no GPU.

#include "base/error.h"
#include "base/file_output.h"
#include "base/json_input.h"
#include "base/text_file.h"
#include "base/text_format.h"
#include "base/text_hash.h"
#include "cli_commands.h"
#include "cli_numbers.h"
#include "kernel_file/file_kernel.h"
#include "model/block_text.h"
#include "model/kernel_request.h"
#include "registry.h"
#include "report/figures.h"
#include "sweep/sweep_fanout.h"
#include "tune/tune_apply.h"
#include "tune/tune_cache.h"
#include "tune/tune_report.h"
#include "tune/tune_run.h"
#include "tune/tune_workers.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>

#include <nlohmann/json.hpp>

#ifdef WARPLENS_LINKS_ENGINE
#include "engine/device.h"
#include "engine/engine.h"
#include "engine/sweep_run.h"
#endif

namespace wl {

namespace {

struct TuneOptions {
  std::string kernel, size;
  std::vector<std::string> params, param_ranges;
  std::string block, block_x, block_y, block_z;
  std::string strategy = "model", objective = "time";
  std::size_t budget = 0; // evaluations; 0: the strategy's default
  double budget_seconds = 0;
  std::uint64_t search_seed = 1;
  std::string cache;
  bool no_cache = false;
  std::size_t top = 5;
  bool json = false, apply = false, model = false;
  std::string arch = "h100";
  std::size_t max_shapes = kMaxSweepShapes;
  int workers = 0;                          // --workers N: one per local GPU
  std::vector<std::string> worker_commands; // --worker CMD, each a worker anywhere
  EngineOptions engine;

  bool on_workers() const { return workers > 0 || !worker_commands.empty(); }
};

// The grid: the shapes given (or the defaults), times each --param-range, or where none is given
// every parameter with a list of choices (a kernel file's tunables) that --param does not fix.
SweepGrid tune_grid(const TuneOptions& o, const KernelDesc& kernel, const KernelRequest& base) {
  if (!o.block.empty() && !o.block_x.empty())
    throw UsageError("give either --block (1D) or --block-x/--block-y/--block-z, not both");
  const auto sides = [&](const std::string& text, const char* option) {
    return text.empty() ? std::vector<int>{1} : parse_side_list(text, option, o.max_shapes);
  };
  SweepGrid grid;
  if (!o.block.empty())
    grid.shapes = sweep_shapes(sides(o.block, "--block"), {1}, {1}, o.max_shapes);
  else if (!o.block_x.empty())
    grid.shapes = sweep_shapes(sides(o.block_x, "--block-x"), sides(o.block_y, "--block-y"),
                               sides(o.block_z, "--block-z"), o.max_shapes);
  std::vector<std::string> fixed;
  for (const std::string& p : o.params)
    fixed.push_back(p.substr(0, p.find('=')));
  const SweepGrid defaults = default_tune_grid(kernel, base.block, fixed);
  if (grid.shapes.empty())
    grid.shapes = defaults.shapes;
  for (const std::string& text : o.param_ranges) {
    ParamAxis axis = parse_param_range(kernel, text, "--param-range", o.max_shapes);
    // The problem's size is what the launch computes, not how: "tuning" it finds the smallest.
    for (const ParamSpec& spec : kernel.params)
      if (spec.name == axis.name && spec.is_size)
        throw UsageError("--param-range '" + clip(text, 40) + "': " + axis.name +
                         " is the problem's size, not a tunable (the smallest would win); fix it "
                         "with --size or --param " +
                         axis.name + "=VALUE");
    if (std::find(fixed.begin(), fixed.end(), axis.name) != fixed.end())
      throw UsageError("--param and --param-range '" + clip(text, 40) + "' both set " + axis.name +
                       "; give it once");
    grid.param_axes.push_back(std::move(axis));
  }
  if (o.param_ranges.empty())
    grid.param_axes = defaults.param_axes;
  return grid;
}

// Where a tune's cache goes unless --cache names it: the user's cache folder, a file per kernel
// and GPU, so a tune run again resumes without being told.
std::filesystem::path default_cache(const TuneCacheIdentity& id) {
  const std::filesystem::path user = user_cache_folder();
  const std::filesystem::path root =
      user.empty() ? std::filesystem::temp_directory_path() / "warplens" : user;
  std::string name;
  for (const char c : id.kernel)
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  const std::string tag =
      text_hash(id.source_hash + "\n" + id.device + "\n" + id.driver + "\n" + id.measure)
          .substr(8, 8);
  return root / "tune" / (name + "-" + tag + ".jsonl");
}

std::string measure_of(const EngineOptions& engine) {
  std::string m = "timing";
  if (engine.energy)
    m += ",energy";
  if (!engine.metrics.empty())
    m += ",counters:" + engine.metrics;
  return m;
}

std::size_t default_budget(const TuneOptions& o, TuneStrategy strategy, const TuneSpace& space) {
  if (o.budget > 0)
    return o.budget;
  return strategy == TuneStrategy::grid ? 0 : std::max<std::size_t>(1, (space.valid() + 3) / 4);
}

// The model's ranking alone: no GPU, the best-ranked points beside the default launch.
void print_model_ranking(const TuneOptions& o, const Arch& arch, const TuneSpace& space) {
  const std::vector<std::size_t> ranked = model_ranking(space);
  if (o.json) {
    nlohmann::json points = nlohmann::json::array();
    for (std::size_t i = 0; i < std::min(o.top, ranked.size()); ++i)
      points.push_back(
          {{"label", tune_point_label(space, space.points[ranked[i]])},
           {"point", tune_point_key(space.points[ranked[i]])},
           {"modelled_time",
            figure_value(figure("modelled_time"), *space.points[ranked[i]].result).value_or(0)}});
    std::printf("%s\n", nlohmann::json{{"strategy", "model"},
                                       {"arch", arch.id},
                                       {"points", space.points.size()},
                                       {"allowed", space.valid()},
                                       {"axes", space.axes},
                                       {"ranking", points}}
                            .dump(1)
                            .c_str());
    return;
  }
  std::printf("the model's ranking on %s (%s) of %s (%s refused), no GPU: what `tune --strategy "
              "model` measures first\n",
              arch.id.c_str(), arch.name.c_str(), counted(space.valid(), "allowed point").c_str(),
              std::to_string(space.points.size() - space.valid()).c_str());
  for (std::size_t i = 0; i < std::min(o.top, ranked.size()); ++i) {
    const RunResult& r = *space.points[ranked[i]].result;
    const auto text = [&](std::string_view key) { // the value alone: its note is a paragraph
      const std::optional<double> value = figure_value(figure(key), r);
      return value ? figure_text(figure(key), *value) : std::string("-");
    };
    std::printf("%zu. %s: modelled %s, occupancy %s, %s sectors per request%s\n", i + 1,
                tune_point_label(space, space.points[ranked[i]]).c_str(),
                text("modelled_time").c_str(), text("theoretical_occupancy").c_str(),
                text("sectors_per_request").c_str(),
                ranked[i] == space.default_point ? " (the default launch)" : "");
  }
}

void print_progress(const TuneSpace& space, const TuneEvaluation& e, std::size_t index,
                    std::size_t budget, TuneObjective objective) {
  const std::string label = tune_point_label(space, space.points[e.point]);
  const std::string of = budget > 0 ? "/" + std::to_string(budget) : "";
  if (!e.cost) {
    std::fprintf(stderr, "[%zu%s] %s: %s\n", index, of.c_str(), label.c_str(),
                 !e.refused.empty() ? ("refused: " + e.refused).c_str()
                                    : "no figure to rank by (outputs wrong or not measured)");
    return;
  }
  const double shown = objective == TuneObjective::gflops_per_joule ? -*e.cost : *e.cost;
  std::fprintf(stderr, "[%zu%s] %s: %s%s\n", index, of.c_str(), label.c_str(),
               figure_text(figure(tune_objective_figure(objective)), shown).c_str(),
               e.from_cache ? " (from the cache)" : "");
}

// The winner's tunables and block written as the kernel file's defaults.
void apply_to_file(const KernelDesc& kernel, const std::string& text_at_start,
                   const SweepPoint& winner) {
  const auto file = kernel_file_of(kernel.id);
  TuneWinner w{.block = winner.block};
  for (const FileTunable& t : file->description.tunables)
    w.tunables.emplace_back(t.name, winner.params.at(t.name));
  const std::vector<std::string> changes = apply_winner(file->path, text_at_start, w);
  if (changes.empty())
    std::printf("--apply: %s already has the winner as its defaults\n",
                file->path.string().c_str());
  for (const std::string& change : changes)
    std::printf("--apply: %s %s\n", file->path.filename().string().c_str(), change.c_str());
}

#ifdef WARPLENS_LINKS_ENGINE
// Measures one point in this process, the session of its parameters kept for the next point.
TuneMeasure measure_here(const KernelDesc& kernel, const EngineOptions& engine,
                         const std::shared_ptr<SessionCache>& sessions) {
  return [&kernel, engine, sessions](const SweepPoint& modelled) {
    SweepRun run = run_sweep(kernel, modelled.params, SweepGrid{{modelled.block}, {}}, engine,
                             nullptr, sessions.get());
    return run.points.empty() ? SweepPoint{modelled.block, "the GPU measured nothing", std::nullopt,
                                           modelled.params}
                              : std::move(run.points.front());
  };
}

#endif

// Who measures the tune's points: this process's GPU, or the workers (then this WarpLens needs
// no CUDA of its own); the GPU the space is modelled on, and the GPU and driver its cache is named
// by.
struct TuneMeasurers {
  std::vector<TuneMeasure> measures;
  Arch arch;
  std::string device, driver;
  TuneWorkers workers; // kept for as long as their measures are used
};

TuneMeasurers tune_measurers(const TuneOptions& o, const KernelRequest& base) {
  TuneMeasurers m;
  if (o.on_workers()) {
    std::vector<std::string> commands;
    for (int device = 0; device < o.workers; ++device)
      commands.push_back(local_worker_command(device));
    for (const std::string& command : o.worker_commands) {
      if (command.find_first_not_of(" \t") == std::string::npos)
        throw UsageError("--worker: an empty command; give what starts a worker, e.g. \"ssh host "
                         "warplens worker\"");
      commands.push_back(command);
    }
    m.workers = start_tune_workers(commands, base, o.engine, [](const std::string& line) {
      std::fprintf(stderr, "%s\n", line.c_str());
    });
    m.measures = tune_worker_measures(m.workers, *base.kernel, o.engine);
    m.arch = m.workers.arch;
    m.device = m.workers.device;
    m.driver = m.workers.driver;
    return m;
  }
#ifdef WARPLENS_LINKS_ENGINE
  m.arch = arch_from_device(o.engine.device);
  m.device = device_label(m.arch);
  m.driver = driver_cuda_version_text();
  m.measures = {measure_here(*base.kernel, o.engine, std::make_shared<SessionCache>())};
#else
  needs_engine("warplens tune without --model or --worker", "warplens tune --model");
#endif
  return m;
}

void tune_measured(const TuneOptions& o, const KernelDesc& kernel, TuneMeasurers& measurers,
                   const TuneSpace& space, TuneStrategy strategy, TuneObjective objective,
                   const std::string& text_at_start) {
  const TuneCacheIdentity identity{.kernel = kernel.id,
                                   .source_hash = kernel_source_hash(kernel),
                                   .device = measurers.device,
                                   .driver = measurers.driver,
                                   .measure = measure_of(o.engine)};
  std::optional<TuneCache> cache;
  if (!o.no_cache) {
    const std::filesystem::path file =
        o.cache.empty() ? default_cache(identity) : std::filesystem::path(o.cache);
    if (o.cache.empty())
      if (const std::string problem = make_folders(file.parent_path()); !problem.empty())
        throw UsageError("the tune's cache: " + problem + "; give --cache FILE or --no-cache");
    cache = TuneCache::open(file, identity);
    std::fprintf(stderr, "cache %s: %zu points\n", file.string().c_str(), cache->points().size());
  }
  const std::size_t budget = default_budget(o, strategy, space);
  TuneSearch search(space, strategy, objective, o.search_seed);
  std::size_t index = 0;
  const TuneOutcome outcome =
      run_tune(space, search, objective, {budget, o.budget_seconds}, cache ? &*cache : nullptr,
               measurers.measures, [&](const TuneEvaluation& e) {
                 print_progress(space, e, ++index, budget, objective);
               });
  if (o.json)
    std::printf("%s\n", tune_json(space, outcome, strategy, objective, o.top).dump(1).c_str());
  else
    std::printf("%s", tune_text(space, outcome, strategy, objective, o.top).c_str());
  if (!outcome.best)
    throw UsageError("no point of the tune was measured with a figure to rank by; " +
                     outcome.stopped);
  if (o.apply)
    apply_to_file(kernel, text_at_start, space.points[outcome.evaluations[*outcome.best].point]);
}

void run_tune_command(TuneOptions o) {
  const std::optional<TuneStrategy> strategy = parse_tune_strategy(o.strategy);
  if (!strategy)
    throw UsageError("--strategy '" + clip(o.strategy, 40) + "': allowed grid, random or model");
  const std::optional<TuneObjective> objective = parse_tune_objective(o.objective);
  if (!objective)
    throw UsageError("--objective '" + clip(o.objective, 40) +
                     "': allowed time, energy or gflops_per_joule");
  if (*objective != TuneObjective::time)
    o.engine.energy = true;
  const std::string id = kernel_id_from(o.kernel);
  const bool is_file = kernel_file_of(id) != nullptr;
  if (o.apply && !is_file)
    throw UsageError("--apply writes a kernel file's defaults; " + id +
                     " is a bundled kernel: run it with the winner's --block and --param");
  // The file as the tune found it: --apply replaces it only if it is still this text.
  const std::string text_at_start =
      is_file ? read_text_file(kernel_file_of(id)->path, "kernel file", "CUDA source", 64 << 20)
              : "";
  // The default launch with the parameters given: the point the winner is explained against.
  const KernelRequest base = resolve_kernel_request(id, o.params, o.size, "");
  const KernelDesc& kernel = *base.kernel;
  const SweepGrid grid = tune_grid(o, kernel, base);
  // The measurers first: the space is modelled on the GPU that measures it.
  std::optional<TuneMeasurers> measurers;
  if (!o.model)
    measurers.emplace(tune_measurers(o, base));
  const Arch modelled_on = o.model ? arch_for(o.arch) : measurers->arch;
  // Each point is modelled first, a few milliseconds each: a space past the default cap says so
  // before the wait rather than sitting silent for minutes.
  if (grid.points() > kMaxSweepShapes && grid.points() <= o.max_shapes)
    std::fprintf(stderr, "modelling %s first (a few ms each)\n",
                 counted(grid.points(), "point").c_str());
  const TuneSpace space = model_tune_space(kernel, base.params, grid, base.params, base.block,
                                           modelled_on, kSweepModelBudget, o.max_shapes);
  // The default launch joins every space; a grid none of whose own points the kernel allows
  // tunes nothing, whatever the default does.
  const auto grid_end = space.points.begin() +
                        static_cast<std::ptrdiff_t>(std::min(grid.points(), space.points.size()));
  if (std::none_of(space.points.begin(), grid_end,
                   [](const SweepPoint& p) { return p.refused.empty(); }))
    throw UsageError(
        "every point of the tune's grid was refused (the first: " + space.points.front().refused +
        "); " + kernel.id + " allows " + kernel.allowed_blocks);
  if (space.valid() < 2)
    throw UsageError("nothing to tune: " + kernel.id + " allows one launch of this grid (" +
                     kernel.allowed_blocks +
                     "); give other shapes (--block, --block-x) or --param-range");
  if (o.model) {
    print_model_ranking(o, modelled_on, space);
    return;
  }
  tune_measured(o, kernel, *measurers, space, *strategy, *objective, text_at_start);
}

} // namespace

void add_tune_command(CLI::App& app) {
  auto o = std::make_shared<TuneOptions>();
  o->engine.timing.max_seconds = 0.001; // a sweep's budget per point: 10 cold samples at least
  o->engine.model = kSweepModelBudget;
  CLI::App* cmd = app.add_subcommand(
      "tune", "Find the best launch of a kernel over its block shapes and tunables, measuring "
              "few of them, and say why it wins (manual: docs/tune.md)");
  cmd->add_option("kernel", o->kernel,
                  "Kernel id, family/variant (see `warplens list`), or a kernel file of your "
                  "own, FILE.cu or FILE.cu:KERNEL")
      ->required();
  cmd->add_option("--strategy", o->strategy,
                  "grid (every point), random, or model (the model's best first, then a local "
                  "search around the best measured)")
      ->capture_default_str();
  cmd->add_option("--objective", o->objective,
                  "time, energy or gflops_per_joule (both measure the energy of every point)")
      ->capture_default_str();
  cmd->add_option("--budget", o->budget,
                  "Points to evaluate at most (default: all for grid, a quarter for the others)")
      ->check(whole_number_option(1, kMaxSweepShapesLimit));
  cmd->add_option("--budget-seconds", o->budget_seconds, "Seconds of measuring at most")
      ->check(seconds_option(86400.0));
  cmd->add_option("--search-seed", o->search_seed, "The random strategy's order")
      ->check(whole_number_option(0, std::numeric_limits<std::int64_t>::max()));
  const CLI::Validator sides = written_option("start:end:step or a list, e.g. 32:1024:32");
  cmd->add_option("--block", o->block, "1D shapes: start:end:step or a list")->check(sides);
  cmd->add_option("--block-x", o->block_x, "x sides: start:end:step or a list")->check(sides);
  cmd->add_option("--block-y", o->block_y, "y sides: start:end:step or a list")
      ->check(sides)
      ->needs(cmd->get_option("--block-x"));
  cmd->add_option("--block-z", o->block_z, "z sides: start:end:step or a list")
      ->check(sides)
      ->needs(cmd->get_option("--block-x"));
  cmd->add_option("--size", o->size, "Problem size: the size parameters in order")
      ->check(written_option("the size parameters in order, e.g. 8192x8192"));
  cmd->add_option("--param", o->params, "A parameter fixed, name=value (repeat for several)")
      ->check(written_option("name=value, e.g. stride=4"));
  cmd->add_option("--param-range", o->param_ranges,
                  "A parameter tuned: name=start:end:step or name=a,b,c (default: every "
                  "parameter with a list of choices, such as a kernel file's tunables)");
  cmd->add_option("--cache", o->cache,
                  "The cache of measured points (JSON lines; default: one per kernel and GPU "
                  "under ~/.cache/warplens/tune)")
      ->check(written_option("a file name"));
  CLI::Option* no_cache =
      cmd->add_flag("--no-cache", o->no_cache, "Measure every point, remember none");
  no_cache->excludes(cmd->get_option("--cache"));
  cmd->add_option("--top", o->top, "Launches to list, best first")
      ->check(whole_number_option(1, 1000))
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "Print one JSON object");
  cmd->add_flag("--apply", o->apply,
                "Write the winner's tunables and block as the kernel file's defaults (only if "
                "the file did not change during the tune)");
  CLI::Option* model =
      cmd->add_flag("--model", o->model, "No GPU: rank the space by the models alone");
  cmd->add_option("--arch", o->arch, "With --model: preset id or alias, or a .json preset")
      ->capture_default_str()
      ->needs(model);
  cmd->add_option("--max-shapes", o->max_shapes, "Points the space may hold at most")
      ->check(whole_number_option(1, kMaxSweepShapesLimit))
      ->capture_default_str();
  cmd->add_option("--workers", o->workers,
                  "Measure on N local GPUs, a worker each (CUDA_VISIBLE_DEVICES=0..N-1)")
      ->check(whole_number_option(1, 64));
  cmd->add_option("--worker", o->worker_commands,
                  "A command that starts a worker anywhere, e.g. \"ssh gpu2 warplens worker\" "
                  "(repeat for several); each takes the next point when its last has landed");
  add_engine_options(*cmd, o->engine, kSweepCommand);
  // The model's ranking is what the model strategy measures first: a strategy, budget, seed or
  // objective would change nothing in it, and each is refused rather than ignored.
  for (const char* measured : {"--apply", "--cache", "--no-cache", "--budget-seconds", "--strategy",
                               "--budget", "--search-seed", "--objective", "--workers", "--worker"})
    model->excludes(cmd->get_option(measured));
  // Nor does anything that says how to measure: a GPU option beside --model would be ignored.
  for (const EngineOption& option : kEngineOptions)
    if ((option.use & kSweepCommand) && *option.flag)
      model->excludes(cmd->get_option(option.flag));
  cmd->callback([o] { run_tune_command(*o); });
}

} // namespace wl
