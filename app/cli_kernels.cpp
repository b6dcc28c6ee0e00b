#include "base/error.h"
#include "base/file_output.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "cli_commands.h"
#include "cli_numbers.h"
#include "io/assets.h"
#include "io/metric_catalog.h"
#include "kernel_file/file_kernel.h"
#include "kernel_file/toolkit_headers.h"
#include "model/block_text.h"
#include "model/kernel_request.h"
#include "model/model_kernel.h"
#include "protocol/protocol.h"
#include "registry.h"
#include "report/figures.h"
#include "report/run_report.h"
#include "report/site_report.h"
#include "sweep/sweep_compare.h"
#include "sweep/sweep_fanout.h"
#include "sweep/variant_sweep.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>
#include <unistd.h>

#ifdef WARPLENS_LINKS_ENGINE
#include "engine/device.h"
#include "engine/engine.h"
#include "engine/sweep_run.h"
#endif

namespace wl {

namespace {

using nlohmann::json;

std::string param_text(const ParamSpec& spec) {
  std::string range;
  if (!spec.choices.empty()) {
    for (std::int64_t c : spec.choices)
      range += (range.empty() ? "" : "|") + std::to_string(c);
  } else {
    range = std::to_string(spec.min) + ".." + std::to_string(spec.max);
  }
  return spec.name + "=" + std::to_string(spec.default_value) + " (" + range + ")";
}

json kernel_json(const KernelDesc& k) {
  json params = json::array();
  for (const ParamSpec& p : k.params)
    params.push_back({{"name", p.name},
                      {"help", p.help},
                      {"default", p.default_value},
                      {"min", p.min},
                      {"max", p.max},
                      {"choices", p.choices},
                      {"size", p.is_size}});
  json presets = json::array();
  for (const BlockShape& b : k.block_presets)
    presets.push_back(format_block(b));
  return {{"id", k.id},
          {"title", k.title},
          {"lesson", k.lesson},
          {"params", params},
          {"block_rank", k.block_rank},
          {"default_block", format_block(k.default_block)},
          {"block_presets", presets},
          {"allowed_blocks", k.allowed_blocks},
          {"kind", kernel_kind_name(k.kind)},
          {"library_chooses_block", k.kind == KernelKind::library},
          {"built_combinations", k.built_combinations},
          {"min_compute_capability", k.min_compute_capability},
          {"tensor_cores", k.tensor_cores}};
}

// "\n    needs compute capability 8.0 or later (...)" for a kernel that does; "" else.
std::string needs_text(const KernelDesc& k) {
  const std::string need = compute_capability_need(k);
  return need.empty() ? "" : "\n    " + need;
}

// "built: bm=128 bn=128 bk=16 ...; bm=128 bn=256 ...": the combinations a tunable kernel was
// built for, its parameters in their order; "" for a kernel that takes every combination.
std::string built_text(const KernelDesc& k) {
  std::string text;
  for (const Params& combination : k.built_combinations) {
    std::string one;
    for (const ParamSpec& spec : k.params)
      if (const auto value = combination.find(spec.name); value != combination.end())
        one +=
            (one.empty() ? std::string() : " ") + spec.name + "=" + std::to_string(value->second);
    text += (text.empty() ? std::string("\n    built for: ") : std::string("; ")) + one;
  }
  return text;
}

void run_list(bool as_json) {
  if (as_json) {
    json list = json::array();
    for (const KernelDesc& k : all_kernels())
      list.push_back(kernel_json(k));
    std::cout << json_text(list, 2) << "\n";
    return;
  }
  for (const KernelDesc& k : all_kernels()) {
    std::string params;
    for (const ParamSpec& p : k.params)
      params += (params.empty() ? "" : "  ") + param_text(p);
    std::printf("%-26s %s\n    %dD block, default %s: %s\n    %s%s%s\n", k.id.c_str(),
                k.title.c_str(), k.block_rank, format_block(k.default_block).c_str(),
                k.allowed_blocks.c_str(), params.c_str(), built_text(k).c_str(),
                needs_text(k).c_str());
  }
}

// What `model` and `run` share: the kernel and how the user shapes it.
struct KernelOptions {
  std::string id;
  std::string block;
  std::string size;
  std::vector<std::string> params;
  bool json = false;
  bool csv = false;
};

void add_kernel_options(CLI::App& cmd, KernelOptions& o) {
  cmd.add_option("kernel", o.id,
                 "Kernel id, family/variant (see `warplens list`), or a kernel file of your own, "
                 "FILE.cu or FILE.cu:KERNEL")
      ->required();
  cmd.add_option("--block", o.block, "Block shape X, XxY or XxYxZ (default: the kernel's)")
      ->check(written_option("X, XxY or XxYxZ"));
  cmd.add_option("--size", o.size, "Problem size: the size parameters in order, e.g. 8192x8192")
      ->check(written_option("the size parameters in order, e.g. 8192x8192"));
  cmd.add_option("--param", o.params, "A parameter as name=value (repeat for several)");
  cmd.add_flag("--json", o.json, "Print one JSON object");
}

KernelRequest request_from(const KernelOptions& o) {
  return resolve_kernel_request(o.id, o.params, o.size, o.block);
}

void print(const RunResult& result, const KernelOptions& o) {
  if (o.json)
    std::cout << json_text(run_json(result), 2) << "\n";
  else if (o.csv)
    std::cout << run_csv(result);
  else
    std::cout << run_text(result);
}

struct RunOptions {
  KernelOptions kernel;
  EngineOptions engine;
};

struct SweepOptions {
  KernelOptions kernel;
  EngineOptions engine;
  std::string block_x, block_y, block_z;
  std::vector<std::string> param_ranges;    // "stride=1:32:1"
  int workers = 0;                          // --workers N: one per local GPU
  std::vector<std::string> worker_commands; // --worker CMD, each a worker
  std::string against;     // --against KERNEL: an A/B sweep, the second kernel over the same points
  bool per_device = false; // --per-device: a series per GPU among the workers
  std::string csv_file, json_file;
  bool force = false; // --force: --csv and --json may replace files that exist
  std::size_t max_shapes = kMaxSweepShapes;
  bool model = false;        // --model: the models' figures on --arch, no GPU and no worker
  std::string arch = "h100"; // --arch: the GPU the models describe
  bool variants = false;     // --variants: the kernel is a family, each variant at one size
  bool max_time_given = false;
};

// A variant sweep times each variant as `run` would, unless --max-time says otherwise: one point
// a variant, so each can afford more samples than a point of a block sweep.
inline constexpr double kVariantSweepSeconds = 0.3;

// A sweep's files: a link is refused (the file it points to would change unseen), an existing
// file is replaced only with --force, and a failed write keeps the text elsewhere.
OutputRules output_rules(const SweepOptions& o) {
  return {.replace_existing = o.force, .write_through_links = false, .keep_on_failure = true};
}

// The sweep's files, once every point is measured. Both are tried whatever happens to the first,
// so one failure loses neither; each failure says why and where its text was kept.
void write_outputs(const SweepOptions& o, const std::string& csv, const std::string& json) {
  std::string problems;
  const auto write = [&](const std::string& file, const std::string& text, const char* option) {
    if (file.empty())
      return;
    if (const std::string problem = write_file_safely(file, text, output_rules(o));
        !problem.empty())
      problems += (problems.empty() ? "" : "; and ") + std::string(option) + ": " + problem;
  };
  write(o.csv_file, csv, "--csv");
  write(o.json_file, json, "--json");
  if (!problems.empty())
    throw UsageError(problems);
}

// Every list is counted before it is made, and the shapes before any is made, so a huge range is
// refused at once instead of filling memory. With parameter ranges alone, the block the fixed
// parameters take (as `run` picks it: the default, or the first preset they allow) is swept over
// them.
std::vector<BlockShape> shapes_of(const SweepOptions& o, const KernelDesc& kernel) {
  if (!o.kernel.block.empty() && !o.block_x.empty())
    throw UsageError("give either --block (1D) or --block-x/--block-y/--block-z, not both");
  const auto sides = [&](const std::string& text, const char* option) {
    return text.empty() ? std::vector<int>{1} : parse_side_list(text, option, o.max_shapes);
  };
  if (!o.kernel.block.empty())
    return sweep_shapes(sides(o.kernel.block, "--block"), {1}, {1}, o.max_shapes);
  if (o.block_x.empty() && !o.param_ranges.empty())
    return {resolve_kernel_request(kernel.id, o.kernel.params, o.kernel.size, "").block};
  if (o.block_x.empty())
    throw UsageError("a sweep needs --block start:end:step, --block-x LIST [--block-y LIST] or "
                     "--param-range NAME=start:end:step");
  return sweep_shapes(sides(o.block_x, "--block-x"), sides(o.block_y, "--block-y"),
                      sides(o.block_z, "--block-z"), o.max_shapes);
}

// The grid of a sweep command; a parameter both fixed (--param) and swept is refused.
SweepGrid grid_of(const SweepOptions& o, const KernelDesc& kernel) {
  SweepGrid grid{shapes_of(o, kernel), {}};
  for (const std::string& text : o.param_ranges) {
    ParamAxis axis = parse_param_range(kernel, text, "--param-range", o.max_shapes);
    if (!o.kernel.size.empty() && kernel_param(kernel, axis.name).is_size)
      throw UsageError("--size " + clip(o.kernel.size, 40) + " and --param-range " +
                       clip(text, 40) + " both set " + axis.name + "; give it once");
    for (const std::string& fixed : o.kernel.params)
      if (fixed.substr(0, fixed.find('=')) == axis.name)
        throw UsageError("--param " + clip(fixed, 40) + " and --param-range " + clip(text, 40) +
                         " both set " + axis.name + "; give it once");
    grid.param_axes.push_back(std::move(axis));
  }
  return grid;
}

#ifdef WARPLENS_LINKS_ENGINE
// "stride=4 block 256": where a point lies on the sweep's axes.
std::string point_label(const SweepPoint& p, const SweepGrid& grid) {
  std::string label;
  for (const ParamAxis& axis : grid.param_axes)
    label += axis.name + "=" + std::to_string(p.params.at(axis.name)) + " ";
  return label + "block " + format_block(p.block);
}

void print_progress(int index, int total, const SweepPoint& p, const SweepGrid& grid) {
  const std::string label = point_label(p, grid);
  if (!p.result) {
    std::fprintf(stderr, "[%d/%d] %s: refused: %s\n", index, total, label.c_str(),
                 p.refused.c_str());
    return;
  }
  const RunResult& r = *p.result;
  std::fprintf(stderr, "[%d/%d] %s: %.4f ms, %.0f GB/s%s\n", index, total, label.c_str(),
               r.timing->median_time, r.gbps(),
               r.verification && r.verification->failed() ? ", WRONG OUTPUT" : "");
}
#endif

// The sweep over workers: `--workers N` on local GPUs, `--worker CMD` anywhere; per device, one
// series per GPU.
std::vector<DeviceSweep> fanned_out(const SweepOptions& o, const KernelRequest& base,
                                    const SweepGrid& grid) {
  FanOutOptions fan;
  for (int device = 0; device < o.workers; ++device)
    fan.commands.push_back(local_worker_command(device));
  for (const std::string& command : o.worker_commands) {
    if (command.find_first_not_of(" \t") == std::string::npos)
      throw UsageError("--worker: an empty command; give what starts a worker, e.g. \"ssh host "
                       "warplens worker\"");
    fan.commands.push_back(command);
  }
  fan.engine = o.engine;
  fan.per_device = o.per_device;
  FanOutRun run = fan_out_sweep(
      base, grid, fan, [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); });
  std::string shares;
  for (const WorkerShare& w : run.workers)
    shares +=
        format("; %s: %d points", clip(w.command, 60).c_str(), w.points) +
        (w.chunks_lost ? " (" + counted(w.chunks_lost, "chunk") + " lost and given back)" : "") +
        (w.stopped.empty() ? "" : " (stopped: " + clip(w.stopped, 120) + ")");
  const std::string on = o.per_device ? format(" on each of %zu GPU%s", run.devices.size(),
                                               run.devices.size() == 1 ? "" : "s")
                                      : "";
  std::fprintf(stderr, "%zu points%s over %zu workers in %.2f s%s\n",
               run.devices.front().points.size(), on.c_str(), run.workers.size(), run.seconds,
               shares.c_str());
  return std::move(run.devices);
}

#ifdef WARPLENS_LINKS_ENGINE
// Seconds since this process was started (exec), from the kernel's clock-tick account (10 ms
// steps); nullopt where /proc does not say.
std::optional<double> process_age_seconds() {
  std::ifstream stat("/proc/self/stat"), uptime("/proc/uptime");
  std::string line;
  double since_boot = 0;
  if (!std::getline(stat, line) || !(uptime >> since_boot))
    return std::nullopt;
  // Field 22, the start time in clock ticks since boot, counted after the command name's ")".
  std::istringstream fields(line.substr(line.rfind(')') + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i)
    if (i == 22)
      return since_boot - std::stod(field) / static_cast<double>(sysconf(_SC_CLK_TCK));
  return std::nullopt;
}
#endif

// The points of one kernel's sweep, here or over workers.
std::vector<SweepPoint> sweep_points(const SweepOptions& o, const KernelRequest& base,
                                     const SweepGrid& grid) {
  if (o.model)
    return model_sweep_points(*base.kernel, base.params, grid, arch_for(o.arch), o.engine.model,
                              o.max_shapes);
  if (o.workers > 0 || !o.worker_commands.empty())
    return std::move(fanned_out(o, base, grid).front().points);
#ifndef WARPLENS_LINKS_ENGINE
  needs_engine("warplens sweep without --model or --worker", "warplens sweep --model");
#else
  const std::optional<double> started = process_age_seconds();
  SweepRun run = run_sweep(
      *base.kernel, base.params, grid, o.engine,
      [&](int index, int total, const SweepPoint& p) { print_progress(index, total, p, grid); });
  if (started)
    std::fprintf(stderr, "process start %.2f s (from exec to the sweep's first step); ", *started);
  std::fprintf(stderr, "%s\n", sweep_cost_summary(run).c_str());
  return std::move(run.points);
#endif
}

// The columns' headers: each figure's short name and unit, from the figure table.
std::string header(std::string_view key) {
  const Figure& f = figure(key);
  return std::string(figure_header(f)) + (f.unit.empty() ? "" : " (" + std::string(f.unit) + ")");
}

// A sweep's table: the axes' names and `headers`, then per point its axis values, its block and
// `row` of its result, or the reason it was refused.
void print_point_table(const std::vector<SweepPoint>& points, const SweepGrid& grid,
                       const std::string& headers,
                       const std::function<void(const RunResult&)>& row) {
  for (const ParamAxis& axis : grid.param_axes)
    std::printf("%-10s ", axis.name.c_str());
  std::printf("%-12s %s\n", "block", headers.c_str());
  for (const SweepPoint& p : points) {
    for (const ParamAxis& axis : grid.param_axes)
      std::printf("%-10lld ", static_cast<long long>(p.params.at(axis.name)));
    std::printf("%-12s ", format_block(p.block).c_str());
    if (p.result)
      row(*p.result);
    else
      std::printf("refused: %s\n", p.refused.c_str());
  }
}

void print_sweep_table(const std::vector<SweepPoint>& points, const SweepGrid& grid) {
  const std::string headers = format(
      "%16s %17s %13s %9s %11s %8s  %s", header("median_time").c_str(),
      header("throughput").c_str(), header("theoretical_occupancy").c_str(),
      header("registers").c_str(), header("sectors_per_request").c_str(), "verified", "counters");
  print_point_table(points, grid, headers, [](const RunResult& r) {
    const std::optional<double> sectors_per_request = figure("sectors_per_request").measured(r);
    std::printf("%16.4f %17.1f %13.1f %9s %11s %8s  %s\n", r.timing->median_time, r.gbps(),
                r.occupancy ? 100 * r.occupancy->occupancy : 0.0,
                r.attributes ? std::to_string(r.attributes->registers).c_str() : "-",
                sectors_per_request ? format("%.2f", *sectors_per_request).c_str() : "-",
                !r.verification                    ? "-"
                : !r.verification->skipped.empty() ? "unchecked"
                : r.verification->passed           ? "yes"
                                                   : "NO",
                !r.counters             ? "not collected"
                : r.counters->available ? format("%d passes", r.counters->passes).c_str()
                                        : ("unavailable: " + r.counters->reason).c_str());
    if (r.site_counts)
      std::printf("%-12s %s\n", "", site_counts_summary(r).c_str());
  });
}

// A figure of a result in a table cell: "-" where the result has none.
std::string cell(std::string_view key, const RunResult& r, const char* number_format) {
  const std::optional<double> value = figure_value(figure(key), r);
  return value ? format(number_format, *value) : "-";
}

// Where the models estimated a point from a sample of its warp-iterations, a line that says so:
// a sweep gives each point a tenth of the budget `model` gives one launch, so its sectors and
// wavefronts per request may differ from `model`'s for the same launch.
void print_sampling_note(const std::vector<SweepPoint>& points) {
  int estimated = 0;
  for (const SweepPoint& p : points)
    estimated += p.result && !p.result->prediction.exact() ? 1 : 0;
  if (estimated > 0)
    std::printf("%d of %zu points estimated from a stratified sample of %s warp-iterations "
                "each; `warplens model` samples up to %s for one launch, so its figures may "
                "differ slightly\n",
                estimated, points.size(),
                group_digits(std::to_string(kSweepModelBudget.max_evaluations)).c_str(),
                group_digits(std::to_string(ModelBudget{}.max_evaluations)).c_str());
}

// What the models say of each point (`sweep --model`): no time is measured, so the modelled time
// at peak and the resource that bounds it lead.
void print_model_sweep_table(const std::vector<SweepPoint>& points, const SweepGrid& grid,
                             const std::string& arch) {
  std::printf("the models' figures on %s; nothing measured\n", arch.c_str());
  const std::string headers =
      format("%20s %-13s %13s %13s %-13s %11s %14s", header("modelled_time").c_str(), "bound",
             header("theoretical_occupancy").c_str(), header("blocks_per_sm").c_str(), "limited by",
             header("sectors_per_request").c_str(), header("wavefronts_per_request").c_str());
  print_point_table(points, grid, headers, [](const RunResult& r) {
    const std::optional<ModelledTime> time = modelled_time(r);
    std::printf("%20s %-13s %13s %13s %-13s %11s %14s\n", cell("modelled_time", r, "%.4f").c_str(),
                time ? time->bound() : "-", cell("theoretical_occupancy", r, "%.1f").c_str(),
                cell("blocks_per_sm", r, "%.0f").c_str(),
                r.occupancy && !r.occupancy->limiters.empty()
                    ? resource_name(r.occupancy->limiters.front())
                    : "-",
                cell("sectors_per_request", r, "%.2f").c_str(),
                cell("wavefronts_per_request", r, "%.2f").c_str());
  });
  print_sampling_note(points);
}

// A side's time in the comparison table: measured, "12.3456 (0.41 %)" with its noise; modelled,
// the modelled time at peak alone.
std::optional<double> modelled_ms(const SweepPoint* p) {
  return p && p->result ? figure_value(figure("modelled_time"), *p->result) : std::nullopt;
}

std::string side_time(const SweepPoint* p, bool modelled) {
  if (modelled) {
    const std::optional<double> ms = modelled_ms(p);
    return ms ? format("%.4f", *ms) : "-";
  }
  if (!p || !p->result || !p->result->timing)
    return "-";
  return format("%.4f (%.2f %%)", p->result->timing->median_time, 100 * p->result->timing->noise);
}

// Per point: each kernel's time, the second's over the first's and, measured, the verdict. The
// models have no noise, so a modelled point gets no verdict: its ratio says only which kernel
// moves less through the resource that bounds it.
void print_comparison(const SweepSeries& a, const SweepSeries& b, const SweepGrid& grid,
                      bool modelled) {
  std::printf(modelled ? "A/B by the models: %s (A) and %s (B); ratio: B's modelled time at peak "
                         "over A's; no verdicts (the models have no noise)\n"
                       : "A/B: %s (A) and %s (B); ratio: B's median time over A's; verdict for B "
                         "(SAME: the difference within the smaller noise)\n",
              a.kernel_id.c_str(), b.kernel_id.c_str());
  for (const ParamAxis& axis : grid.param_axes)
    std::printf("%-10s ", axis.name.c_str());
  std::printf("%-12s %22s %22s %8s  %s\n", "block", (a.kernel_id + " ms").c_str(),
              (b.kernel_id + " ms").c_str(), "ratio", modelled ? "" : "verdict");
  for (const SweepPoint& pa : a.points) {
    const SweepPoint* pb = point_at(b.points, pa);
    for (const ParamAxis& axis : grid.param_axes)
      std::printf("%-10lld ", static_cast<long long>(pa.params.at(axis.name)));
    std::printf("%-12s %22s %22s ", format_block(pa.block).c_str(),
                side_time(&pa, modelled).c_str(), side_time(pb, modelled).c_str());
    if (!pa.result || !pb || !pb->result) {
      std::printf("%8s  refused: %s\n", "-",
                  (!pa.result ? pa.refused
                   : pb       ? pb->refused
                              : "no such point")
                      .c_str());
      continue;
    }
    if (modelled) {
      const std::optional<double> ta = modelled_ms(&pa), tb = modelled_ms(pb);
      std::printf("%8s\n", ta && tb && *ta > 0 ? format("%.3f", *tb / *ta).c_str() : "-");
      continue;
    }
    const TimeComparison c = compare_times(*pa.result, *pb->result);
    std::printf("%8s  %s\n", c.ratio ? format("%.3f", *c.ratio).c_str() : "-",
                std::string(verdict_word(c.verdict)).c_str());
  }
  if (!modelled)
    std::printf("B %s: %s\n", b.kernel_id.c_str(), verdict_counts(a, b).c_str());
  if (const std::string energy = energy_counts(a, b); !energy.empty())
    std::printf("B %s: %s\n", b.kernel_id.c_str(), energy.c_str());
}

// The second kernel of an A/B sweep, with the first's parameters where it has them; it must have
// every parameter given with --param or swept.
KernelRequest against_request(const SweepOptions& o, const KernelRequest& base,
                              const SweepGrid& grid) {
  const KernelDesc* against = find_kernel(o.against);
  if (!against || kernel_family(o.against) != kernel_family(base.kernel->id)) {
    std::string variants; // what an A/B sweep of this kernel may compare it with
    for (const KernelDesc* k : family_kernels(kernel_family(base.kernel->id)))
      if (k->id != base.kernel->id)
        variants += (variants.empty() ? "" : ", ") + k->id;
    throw UsageError("--against '" + clip(o.against, 40) + "' is not another variant of " +
                     kernel_family(base.kernel->id) + "; allowed " +
                     (variants.empty() ? std::string("none: it has no other variant") : variants));
  }
  std::vector<std::string> given;
  for (const std::string& fixed : o.kernel.params)
    given.push_back(fixed.substr(0, fixed.find('=')));
  for (const ParamAxis& axis : grid.param_axes)
    given.push_back(axis.name);
  std::vector<std::string> texts;
  for (const auto& [name, value] : params_for_against(*against, base.params, given))
    texts.push_back(name + "=" + std::to_string(value));
  return resolve_kernel_request(against->id, texts, "",
                                grid.shapes.empty() ? "" : format_block(grid.shapes.front()));
}

// Per device: a table per GPU, and one file with a series each.
void run_per_device(const SweepOptions& o, const KernelRequest& base, const SweepGrid& grid) {
  std::vector<DeviceSweep> devices = fanned_out(o, base, grid);
  std::vector<SweepSeries> series;
  for (DeviceSweep& d : devices) {
    std::printf("%s%s\n", series.empty() ? "" : "\n",
                d.device.empty() ? "no point measured" : d.device.c_str());
    print_sweep_table(d.points, grid);
    series.push_back({base.kernel->id, std::move(d.points)});
  }
  std::vector<SweepPoint> all;
  for (const SweepSeries& s : series)
    all.insert(all.end(), s.points.begin(), s.points.end());
  write_outputs(o, o.csv_file.empty() ? "" : sweep_csv(all),
                o.json_file.empty() ? "" : json_text(per_device_sweep_file_json(series), 1));
}

// The output files are checked before a long sweep starts, so its points are not measured only
// to be lost at the end: each must be writable now, and the two must be different files.
void check_output_files(const SweepOptions& o) {
  const auto check = [&](const std::string& file, const char* option) {
    if (file.empty())
      return;
    if (const std::string problem = output_problem(
            file, output_rules(o), "add --force to replace it, or give another name");
        !problem.empty())
      throw UsageError(std::string(option) + " " + problem);
  };
  if (!o.csv_file.empty() && !o.json_file.empty() && same_file(o.csv_file, o.json_file))
    throw UsageError("--csv and --json name one file ('" + clip(o.csv_file, 60) + "' and '" +
                     clip(o.json_file, 60) +
                     "', by name or a link): the JSON would overwrite the CSV; give each its own "
                     "file");
  check(o.csv_file, "--csv");
  check(o.json_file, "--json");
}

// A sweep none of whose points ran measured nothing: once its files are written (they say why for
// each point), the command fails as a request the kernel refuses does.
void refuse_if_all_refused(const std::vector<SweepPoint>& points, const KernelDesc& kernel) {
  if (points.empty() || std::any_of(points.begin(), points.end(),
                                    [](const SweepPoint& p) { return p.refused.empty(); }))
    return;
  throw UsageError("every point of the sweep was refused (the first: " + points.front().refused +
                   "); " + kernel.id + " allows " + kernel.allowed_blocks);
}

// The sweep's kernel and parameters, checked at its default block; where that block does not fit
// the parameters (a kernel file's block.x == TILE with another TILE), at the sweep's first shape.
KernelRequest sweep_base(const SweepOptions& o, const SweepGrid& grid) {
  try {
    return resolve_kernel_request(o.kernel.id, o.kernel.params, o.kernel.size, "");
  } catch (const UsageError&) {
    if (grid.shapes.empty())
      throw;
    try {
      return resolve_kernel_request(o.kernel.id, o.kernel.params, o.kernel.size,
                                    format_block(grid.shapes.front()));
    } catch (const UsageError&) {
    }
    throw; // the default block's refusal: the one that names the parameters' problem
  }
}

// Each variant measured as it ends (a refusal is said once, in the table).
void print_variant_progress(const VariantPoint& p) {
  if (p.result && p.result->timing)
    std::fprintf(stderr, "%s: %s ms\n", p.kernel_id.c_str(),
                 variant_ms_text(p.result->timing->median_time).c_str());
}

std::string verified_word(const RunResult& r) {
  return !r.verification                    ? "-"
         : !r.verification->skipped.empty() ? "unchecked"
         : r.verification->passed           ? "yes"
                                            : "NO";
}

// A row per variant: measured, its time, bandwidth, arithmetic rate and share of the peer;
// modelled, its modelled time at peak and what bounds it; refused, why.
void print_variant_table(const VariantSweep& sweep, bool modelled, const std::string& arch) {
  std::printf("%s at %s: each variant at its default launch", sweep.family.c_str(),
              variant_sweep_size_words(sweep).c_str());
  if (modelled)
    std::printf("; the models' figures on %s, nothing measured, so no peer\n"
                "the modelled time at peak is a floor: the fewest DRAM bytes, shared wavefronts "
                "and FP32 operations at the GPU's peaks, with caches and latency unmodelled; it "
                "does not rank the variants as a GPU does: measure for the climb\n",
                arch.c_str());
  else if (sweep.peer)
    std::printf("\npeer: %s, %.4f ms, %s\n", sweep.peer->name.c_str(), sweep.peer->median_time,
                sweep.peer->source.c_str());
  else
    std::printf("\nno peer: no library variant in this family, and no torch call recorded for "
                "this GPU and size (assets/peers.json)\n");
  int id_width = 26; // the longest id's, so every row's columns line up
  for (const VariantPoint& p : sweep.variants)
    id_width = std::max(id_width, static_cast<int>(p.kernel_id.size()));
  std::printf("%-*s %-12s %s  %s\n", id_width, "variant", "block",
              modelled ? format("%20s %-16s", header("modelled_time").c_str(), "bound").c_str()
                       : format("%16s %11s %14s %8s %8s", header("median_time").c_str(), "GB/s",
                                "GFLOP/s", "of peer", "verified")
                             .c_str(),
              "what it is");
  for (const VariantPoint& p : sweep.variants) {
    std::printf("%-*s ", id_width, p.kernel_id.c_str());
    if (!p.result) {
      std::printf("refused: %s\n", p.refused.c_str());
      continue;
    }
    const RunResult& r = *p.result;
    std::printf("%-12s ", format_block(r.launch.block).c_str());
    if (modelled) {
      const std::optional<ModelledTime> time = modelled_time(r);
      std::printf("%20s %-16s", time ? variant_ms_text(time->ms()).c_str() : "-",
                  time ? time->bound() : "-");
    } else {
      const std::optional<double> share = share_of_peer(sweep, p);
      std::printf("%16s %11.1f %14s %8s %8s",
                  r.timing ? variant_ms_text(r.timing->median_time).c_str() : "-", r.gbps(),
                  r.flops > 0 ? format("%.1f", r.gflops()).c_str() : "-",
                  share ? format("%.1f %%", 100 * *share).c_str() : "-", verified_word(r).c_str());
    }
    std::printf("  %s\n", p.title.c_str());
  }
}

Arch measuring_arch([[maybe_unused]] const EngineOptions& engine) {
#ifdef WARPLENS_LINKS_ENGINE
  try {
    return arch_from_device(engine.device);
  } catch (const UsageError& e) {
    throw UsageError(std::string(e.what()) + "; --model models the variants without one");
  }
#else
  return {};
#endif
}

// `sweep FAMILY --variants`: the ladder at a glance.
void run_variant_command(const SweepOptions& o) {
  check_output_files(o);
  EngineOptions engine = o.engine;
  if (!o.max_time_given)
    engine.timing.max_seconds = kVariantSweepSeconds;
#ifndef WARPLENS_LINKS_ENGINE
  if (!o.model)
    needs_engine("warplens sweep --variants without --model", "warplens sweep --variants --model");
#endif
  // The GPU opened first: its absence ends the command, it is no variant's refusal.
  const Arch arch = o.model ? arch_for(o.arch) : measuring_arch(o.engine);
  const auto run_one = [&](const KernelRequest& request) -> RunResult {
#ifdef WARPLENS_LINKS_ENGINE
    if (!o.model)
      return run_kernel(request, engine);
#endif
    return model_kernel(request, arch, o.engine.model);
  };
  VariantSweep sweep =
      run_variant_sweep(o.kernel.id, o.kernel.size, run_one, print_variant_progress);
  sweep.peer = variant_peer(sweep, assets_dir() / "peers.json");
  print_variant_table(sweep, o.model, o.arch);
  write_outputs(o, o.csv_file.empty() ? "" : variant_sweep_csv(sweep),
                o.json_file.empty() ? "" : json_text(variant_sweep_json(sweep), 1));
  if (std::none_of(sweep.variants.begin(), sweep.variants.end(),
                   [](const VariantPoint& p) { return p.refused.empty(); }))
    throw UsageError("every variant of " + sweep.family +
                     " refused the size (the first: " + sweep.variants.front().refused + ")");
}

void run_sweep_command(SweepOptions o) {
  if (o.variants) {
    run_variant_command(o);
    return;
  }
  check_output_files(o);
  o.kernel.id = kernel_id_from(o.kernel.id);
  if (!o.against.empty())
    o.against = kernel_id_from(o.against);
  if (!o.engine.metrics.empty()) // an unknown name is this command line's fault, not a worker's
    load_metric_catalog(assets_dir() / "metrics.json").select(o.engine.metrics);
  const KernelDesc* kernel = find_kernel(o.kernel.id);
  const SweepGrid grid =
      kernel ? grid_of(o, *kernel) : SweepGrid{}; // an unknown id is named by the resolve below
  const KernelRequest base = sweep_base(o, grid);
  param_sets(base.params, grid, o.max_shapes); // the whole grid counted before anything runs
  if (!o.json_file.empty() && grid.points() > kMaxSweepFilePoints)
    throw UsageError(format("--json: the sweep has %zu points and a sweep file holds at most %zu "
                            "(what --sweep-json reads); sweep fewer points, or write --csv alone",
                            grid.points(), kMaxSweepFilePoints));
  if (o.per_device) {
    if (!o.against.empty())
      throw UsageError("give --against or --per-device, not both: an A/B sweep compares two "
                       "kernels on one kind of GPU");
    if (o.workers == 0 && o.worker_commands.empty())
      throw UsageError("--per-device needs workers: --workers N or --worker CMD, one per GPU");
    run_per_device(o, base, grid);
    return;
  }
  std::optional<KernelRequest> against;
  if (!o.against.empty())
    against = against_request(o, base, grid);
  const SweepSeries a{base.kernel->id, sweep_points(o, base, grid)};
  if (!against) {
    if (o.model)
      print_model_sweep_table(a.points, grid, o.arch);
    else
      print_sweep_table(a.points, grid);
    write_outputs(o, o.csv_file.empty() ? "" : sweep_csv(a.points),
                  o.json_file.empty() ? "" : json_text(sweep_file_json(a.kernel_id, a.points), 1));
    refuse_if_all_refused(a.points, *base.kernel);
    return;
  }
  const SweepSeries b{against->kernel->id, sweep_points(o, *against, grid)};
  print_comparison(a, b, grid, o.model);
  write_outputs(o, o.csv_file.empty() ? "" : ab_sweep_csv(a, b),
                o.json_file.empty() ? "" : json_text(ab_sweep_file_json(a, b), 1));
}

// `sweep --model [--arch ID]`: the models alone. What only a measurement uses is refused beside it
// rather than ignored, and --arch without --model (the worker's GPU is measured) likewise.
void add_model_flag(CLI::App& cmd, SweepOptions& o) {
  CLI::Option* model =
      cmd.add_flag("--model", o.model,
                   "No GPU: each point's occupancy, traffic and modelled time from the models");
  cmd.add_option("--arch", o.arch,
                 "With --model: preset id or alias, device[:N], or a .json preset")
      ->capture_default_str()
      ->needs(model);
  for (const char* measured :
       {"--workers", "--worker", "--per-device", "--per-site", "--metrics", "--energy", "--device",
        "--seed", "--max-time", "--kernel-time-limit"})
    model->excludes(cmd.get_option(measured));
}

} // namespace

std::string kernel_id_from(const std::string& text) {
  if (!names_a_kernel_file(text))
    return text;
  // A CUDA_HOME that names no toolkit would otherwise be passed over for another without a word
  // (where none is found, a file that needs the headers is refused saying so).
  if (const ToolkitHeaders& toolkit = toolkit_headers();
      !toolkit.passed_over.empty() && !toolkit.root.empty())
    std::cerr << "warplens: note: " << toolkit.passed_over << "; the headers of " << toolkit.root
              << " are used\n";
  return add_kernel_file(text);
}

void add_kernel_commands(CLI::App& app) {
  auto list_json = std::make_shared<bool>(false);
  CLI::App* list = app.add_subcommand(
      "list",
      "Every bundled kernel with its parameters and allowed blocks (manual: docs/kernels.md)");
  list->add_flag("--json", *list_json, "Print JSON");
  list->callback([list_json] { run_list(*list_json); });

  auto model = std::make_shared<KernelOptions>();
  auto model_arch = std::make_shared<std::string>("h100");
  CLI::App* model_cmd = app.add_subcommand(
      "model", "Occupancy and predicted memory traffic of a kernel, no GPU needed (manual: "
               "docs/kernels.md; kernel files: docs/kernel-files.md)");
  add_kernel_options(*model_cmd, *model);
  model_cmd->add_option("--arch", *model_arch, "Preset id or alias, device[:N], or a .json preset")
      ->capture_default_str();
  model_cmd->callback([model, model_arch] {
    KernelOptions options = *model;
    options.id = kernel_id_from(options.id);
    print(model_kernel(request_from(options), arch_for(*model_arch)), options);
  });

  auto run = std::make_shared<RunOptions>();
  CLI::App* run_cmd = app.add_subcommand(
      "run", "Run a kernel on the GPU: attributes, occupancy, timing, verification (manual: "
             "docs/kernels.md; kernel files: docs/kernel-files.md; counters: docs/counters.md)");
  add_kernel_options(*run_cmd, run->kernel);
  run_cmd->add_flag("--csv", run->kernel.csv, "Print CSV, one row per access site")
      ->excludes(run_cmd->get_option("--json"));
  add_engine_options(*run_cmd, run->engine, kRunCommand);
  run_cmd->callback([run] {
#ifndef WARPLENS_LINKS_ENGINE
    needs_engine("warplens run", "warplens model, or the GUI");
#else
    KernelOptions options = run->kernel;
    options.id = kernel_id_from(options.id);
    const RunResult result = run_kernel(request_from(options), run->engine);
    print(result, options);
    if (result.stalls && result.stalls->available)
      std::fprintf(stderr,
                   "stalls: the pass %.3f s, before it %.3f s (the profiler opened, the launch "
                   "captured), the samples placed on lines in %.3f s\n",
                   result.stalls->seconds, result.stalls->setup_seconds,
                   result.stalls->place_seconds);
    if (result.verification && result.verification->failed())
      throw VerificationFailure(result.kernel_id +
                                " computed wrong outputs: " + result.verification->first_failure);
#endif
  });

  auto sweep = std::make_shared<SweepOptions>();
  // A sweep answers "which shape?": fewer timing samples and a smaller model sample per shape.
  // A budget of 1 ms takes the minimum of 10 cold samples for a short kernel (nvbench's minimum
  // too); the sweep's noise column says how far apart two shapes must be to be told apart.
  sweep->engine.timing.max_seconds = 0.001;
  sweep->engine.model = kSweepModelBudget;
  CLI::App* sweep_cmd =
      app.add_subcommand("sweep", "Measure a kernel over many block shapes and parameter values: "
                                  "timing, occupancy, counters (manual: docs/sweeps.md)");
  sweep_cmd
      ->add_option("kernel", sweep->kernel.id,
                   "Kernel id, family/variant (see `warplens list`), or a kernel file of "
                   "your own, FILE.cu or FILE.cu:KERNEL")
      ->required();
  sweep_cmd->add_option("--block", sweep->kernel.block,
                        "1D shapes: start:end:step or a list, e.g. 32:1024:32");
  sweep_cmd->add_option("--block-x", sweep->block_x, "x sides: start:end:step or a list");
  sweep_cmd->add_option("--block-y", sweep->block_y, "y sides: start:end:step or a list");
  sweep_cmd->add_option("--block-z", sweep->block_z, "z sides: start:end:step or a list");
  sweep_cmd->add_option("--size", sweep->kernel.size, "Problem size: the size parameters in order")
      ->check(written_option("the size parameters in order, e.g. 8192x8192"));
  sweep_cmd->add_option("--param", sweep->kernel.params,
                        "A parameter as name=value (repeat for several)");
  sweep_cmd->add_option(
      "--param-range", sweep->param_ranges,
      "A parameter swept: name=start:end:step or name=a,b,c (repeat for several)");
  sweep_cmd
      ->add_option("--against", sweep->against,
                   "A/B: sweep this kernel over the same points too and compare each "
                   "point's time (SAME, FASTER, SLOWER or UNSURE within the noise)")
      ->check(written_option("a kernel id, e.g. transpose/smem_padded"));
  sweep_cmd->add_flag("--per-device", sweep->per_device,
                      "With workers on different GPUs: the whole sweep on each GPU, a "
                      "series each, side by side");
  sweep_cmd
      ->add_option("--workers", sweep->workers,
                   "Deal the points out over N workers, one per local GPU")
      ->check(whole_number_option(1, 64));
  sweep_cmd->add_option("--worker", sweep->worker_commands,
                        "A command that starts a worker (\"ssh host warplens worker\"); repeat "
                        "for several");
  add_engine_options(*sweep_cmd, sweep->engine, kSweepCommand);
  sweep_cmd
      ->add_option("--max-shapes", sweep->max_shapes,
                   "Points (shapes times parameter values) one sweep may measure at most")
      ->check(whole_number_option(1, kMaxSweepShapesLimit))
      ->capture_default_str();
  sweep_cmd->add_option("--csv", sweep->csv_file, "Write one row per point to this CSV file")
      ->check(written_option("a file name"));
  sweep_cmd->add_option("--json", sweep->json_file, "Write every result to this JSON file")
      ->check(written_option("a file name"));
  sweep_cmd->add_flag("--force", sweep->force,
                      "Replace the --csv and --json files if they exist (else they are refused "
                      "before the sweep starts)");
  add_model_flag(*sweep_cmd, *sweep);
  CLI::Option* variants = sweep_cmd->add_flag(
      "--variants", sweep->variants,
      "The kernel is a family (matmul): every variant of it at one size (--size, or the "
      "family's), each at its default launch, beside the family's peer");
  for (const char* per_point :
       {"--block", "--block-x", "--block-y", "--block-z", "--param", "--param-range", "--against",
        "--per-device", "--workers", "--worker", "--per-site", "--max-shapes"})
    variants->excludes(sweep_cmd->get_option(per_point));
  sweep_cmd->callback([sweep, sweep_cmd] {
    sweep->max_time_given = sweep_cmd->count("--max-time") > 0;
    run_sweep_command(*sweep);
  });
}

} // namespace wl
