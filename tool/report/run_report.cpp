#include "report/run_report.h"

#include "base/error.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "model/block_text.h"
#include "model/kernel_request.h"
#include "model/kernel_source.h"
#include "registry.h"
#include "report/counter_comparison.h"
#include "report/energy_report.h"
#include "report/figures.h"
#include "report/memory_chart.h"
#include "report/occupancy_report.h"
#include "report/site_report.h"
#include "report/stall_report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

namespace wl {

namespace {

using nlohmann::json;

// The line of each site in its family file, for the tables and JSON: 0 where none is marked, or
// for a kernel whose source this binary does not hold (a test program's own).
std::vector<int> site_line_numbers(const RunResult& r) {
  std::vector<int> lines;
  const KernelDesc* kernel = find_kernel(r.kernel_id);
  try {
    if (kernel && !kernel->sites.empty())
      lines = site_lines(*kernel, r.params).lines;
  } catch (const Error&) {
    lines.clear();
  }
  lines.resize(r.prediction.sites.size(), 0);
  for (std::size_t i = 0; i < lines.size(); ++i) // a kernel file's sites are its lines
    if (r.prediction.sites[i].line > 0)
      lines[i] = r.prediction.sites[i].line;
  return lines;
}

// " (lines of matmul.cu)": the file the sites' lines are in; "" for a library call or a kernel
// whose source this binary does not hold.
std::string lines_of_file(const RunResult& r) {
  const KernelDesc* kernel = find_kernel(r.kernel_id);
  try {
    if (kernel && !kernel->sites.empty())
      return " (lines of " + family_source(*kernel).file + ")";
    if (!r.prediction.file.empty())
      return " (lines of " + r.prediction.file + ")";
  } catch (const Error&) {
  }
  return "";
}

// The footer of the sites' table: how much of the launch the model evaluated, and how long it took.
std::string evaluated_text(const LaunchPrediction& prediction) {
  const double ms = 1e3 * prediction.seconds;
  const std::string took = ms < 0.1 ? "under 0.1 ms" : format("%.1f ms", ms);
  const auto count = [](std::int64_t n) { return format_count(n); };
  if (prediction.from_code)
    return prediction.exact()
               ? "(every warp of every block run from the kernel's PTX, " +
                     count(prediction.warp_iterations) + " warps; the model took " + took + ")\n"
               : "(estimated from " + count(prediction.warp_iterations_evaluated) + " of " +
                     count(prediction.warp_iterations) +
                     " warps, whole blocks run from the kernel's PTX: the edge blocks and an even "
                     "sample of the rest; the model took " +
                     took + ")\n";
  // A warp-iteration is one warp at one site in one iteration of the loop around it.
  return prediction.exact()
             ? format("(every warp-iteration evaluated, %lld of them (one warp at one site in one "
                      "loop iteration); the model took %s)\n",
                      static_cast<long long>(prediction.warp_iterations), took.c_str())
             : format("(estimated from %lld of %lld warp-iterations (one warp at one site in one "
                      "loop iteration): edge blocks, first and last iterations, and a seeded "
                      "sample; the model took %s)\n",
                      static_cast<long long>(prediction.warp_iterations_evaluated),
                      static_cast<long long>(prediction.warp_iterations), took.c_str());
}

// Each line whose accesses are not all predicted, with why.
std::string notes_text(const LaunchPrediction& prediction) {
  std::string text;
  for (const LineNote& note : prediction.notes)
    text += (note.line > 0 ? "  line " + std::to_string(note.line) + ": " : "  ") +
            clip(note.reason, 300) + "\n";
  return text.empty() ? "" : "not predicted:\n" + text;
}

std::string sites_table(const RunResult& r) {
  const LaunchPrediction& prediction = r.prediction;
  if (prediction.sites.empty() && prediction.from_code) {
    // No access found is news only where the blocks ran and no line says it stopped them.
    const bool stopped = std::any_of(prediction.notes.begin(), prediction.notes.end(),
                                     [](const LineNote& note) { return note.line > 0; });
    return (prediction.warp_iterations_evaluated > 0 && !stopped
                ? "no global or shared access on the file's lines was found in the blocks run.\n"
                : std::string()) +
           notes_text(prediction);
  }
  if (prediction.sites.empty())
    return std::string("no access sites. ") + no_index_math_reason(r.kernel_kind) + "\n";
  const std::vector<int> lines = site_line_numbers(r);
  const auto header = [](std::string_view key) { return std::string(figure_header(figure(key))); };
  std::string text = format("%-28s %5s %-6s %-5s %5s %12s %28s %11s %12s %14s\n", "site", "line",
                            "space", "op", header("width").c_str(), header("requests").c_str(),
                            header("sectors").c_str(), header("sectors_per_request").c_str(),
                            header("wavefronts").c_str(), header("wavefronts_per_request").c_str());
  for (std::size_t i = 0; i < prediction.sites.size(); ++i) {
    const SitePrediction& s = prediction.sites[i];
    const bool global = s.space == MemorySpace::global;
    text += format(
        "%-28s %5d %-6s %-5s %4dB %12lld %28s %11s %12s %14s\n", s.name.c_str(), lines[i],
        space_name(s.space), op_name(s.op), s.width, static_cast<long long>(s.requests),
        global ? format("%lld (ideal %lld)", static_cast<long long>(s.sectors),
                        static_cast<long long>(s.ideal_sectors))
                     .c_str()
               : "-",
        global ? format("%.2f", s.sectors_per_request()).c_str() : "-",
        global ? "-" : format("%lld", static_cast<long long>(s.wavefronts)).c_str(),
        global ? "-"
               : format("%.2f (%d-way)", s.wavefronts_per_request(), s.conflict_degree).c_str());
  }
  return text + evaluated_text(prediction) + notes_text(prediction);
}

std::string attributes_text(const RunResult& r) {
  if (!r.attributes)
    return r.kernel_kind == KernelKind::library
               ? "attributes: none (a library call chooses its own kernels)\n"
               : "attributes: none\n";
  const KernelAttributes& a = *r.attributes;
  std::string text =
      format("attributes (%s): %d registers/thread, %lld B static shared, %lld B local/thread",
             a.source.c_str(), a.registers, static_cast<long long>(a.static_shared_bytes),
             static_cast<long long>(a.local_bytes));
  if (r.dynamic_smem > 0) // the launch's, beside the kernel's own: occupancy counts both
    text += format(", %lld B dynamic shared/block", static_cast<long long>(r.dynamic_smem));
  if (a.max_threads_per_block)
    text += format(", max %d threads/block", a.max_threads_per_block);
  if (a.binary_version)
    text +=
        format(", PTX %d.%d, SASS sm_%d", a.ptx_version / 10, a.ptx_version % 10, a.binary_version);
  return text + "\n";
}

// What the figure table does not say of the timing (its median, minimum, noise, samples,
// throughput and share of peak are rows there): the slowest sample, whether L2 was flushed before
// each, and whether the noise target was met.
std::string timing_text(const RunResult& r) {
  if (!r.timing)
    return "";
  const TimingStats& t = *r.timing;
  return "timing: slowest sample " + figure_text(figure("min_time"), t.max_time) +
         (t.l2_flushed ? ", L2 flushed before each sample" : "") +
         (t.converged ? "" : "; the time budget ran out before the noise target") +
         " (the median and the rest are under Timings below)\n";
}

std::string verification_text(const RunResult& r) {
  if (!r.verification)
    return "";
  const Verification& v = *r.verification;
  if (!v.skipped.empty())
    return "not verified: " + v.skipped + "\n";
  std::string text =
      v.passed ? format("verified: %lld outputs match %s (max abs error %.3g)",
                        static_cast<long long>(v.checked), v.against.c_str(), v.max_abs_error)
               : format("VERIFICATION FAILED: %lld of %lld outputs wrong; first: %s",
                        static_cast<long long>(v.mismatches), static_cast<long long>(v.checked),
                        v.first_failure.c_str());
  if (!v.note.empty())
    text += " (" + v.note + ")";
  return text + "\n";
}

std::string counters_text(const RunResult& r) {
  if (!r.counters)
    return "";
  const CounterResult& c = *r.counters;
  if (!c.available)
    return "\ncounters: unavailable: " + c.reason + "\n";
  std::string text = format("\nmeasured counters (%s, %d pass%s, %.0f ms)\n", c.chip.c_str(),
                            c.passes, c.passes == 1 ? "" : "es", 1e3 * c.seconds);
  text += format("%-30s %18s %18s %14s  %s\n", "counter", "measured", "predicted", "diff", "unit");
  for (const ComparisonRow& row : compare_counters(r)) {
    text +=
        format("%-30s %18.0f %18s %14s  %s%s\n", row.display.c_str(), row.measured,
               row.predicted ? format("%.0f", *row.predicted).c_str() : "-",
               difference_text(row).c_str(), row.unit.c_str(), row.flagged ? "  <- differs" : "");
    if (row.flagged)
      text += "      why: " +
              (row.reason.empty() ? "no known reason: the model may be wrong here" : row.reason) +
              "\n";
  }
  for (const std::string& name : c.missing)
    text += "  not on this chip: " + name + "\n";
  for (const std::string& name : c.no_value)
    text += "  no value from the profiler for this launch: " + name + "\n";
  return text;
}

json counters_json(const CounterResult& c, const RunResult& r) {
  json values = json::array();
  for (const CounterValue& v : c.values)
    values.push_back({{"key", v.key},
                      {"name", v.name},
                      {"display", v.display},
                      {"unit", v.unit},
                      {"value", v.value}});
  json comparison = json::array();
  for (const ComparisonRow& row : compare_counters(r))
    comparison.push_back({{"key", row.key},
                          {"measured", row.measured},
                          {"predicted", row.predicted ? json(*row.predicted) : json(nullptr)},
                          {"difference", row.difference ? json(*row.difference) : json(nullptr)},
                          {"flagged", row.flagged},
                          {"reason", row.reason}});
  return {{"available", c.available}, {"reason", c.reason},     {"chip", c.chip},
          {"passes", c.passes},       {"seconds", c.seconds},   {"values", values},
          {"missing", c.missing},     {"no_value", c.no_value}, {"comparison", comparison}};
}

// The memory chart where the run counted its own links (--metrics memory): what ncu's chart
// shows for the launch, under ncu's metric names, each beside the model's figure.
bool counted_memory_chart(const RunResult& r) {
  if (!r.counters || !r.counters->available)
    return false;
  for (const CounterValue& v : r.counters->values)
    if (const Figure* f = find_figure(v.key); f && f->panel == Panel::memory)
      return true;
  return false;
}

json chart_value_json(const ChartValue& v) {
  return {{"figure", v.figure->key},
          {"ncu_metric", v.ncu_metric},
          {"metric", v.metric},
          {"measured", v.measured ? json(*v.measured) : json(nullptr)},
          {"predicted", v.predicted ? json(*v.predicted) : json(nullptr)},
          {"flagged", v.flagged},
          {"reason", v.reason}};
}

json memory_chart_json(const MemoryChart& chart) {
  json links = json::array(), nodes = json::array(), by_ncu_name = json::object();
  const auto name_value = [&](const ChartValue& v) {
    if (v.measured && !v.ncu_metric.empty())
      by_ncu_name[std::string(v.ncu_metric)] = *v.measured;
  };
  for (const ChartLink& link : chart.links) {
    json entry = {{"from", chart_node(link.row->from).name}, {"to", chart_node(link.row->to).name}};
    entry.update(chart_value_json(link.value));
    name_value(link.value);
    if (link.utilisation) {
      entry["utilisation"] = chart_value_json(*link.utilisation);
      name_value(*link.utilisation);
    }
    links.push_back(std::move(entry));
  }
  for (const ChartNodeFigures& node : chart.nodes) {
    json entry = {{"name", node.row->name}};
    for (const auto& [what, v] :
         {std::pair{"hit_rate", node.hit_rate}, std::pair{"utilisation", node.utilisation}})
      if (v) {
        entry[what] = chart_value_json(*v);
        name_value(*v);
      }
    nodes.push_back(std::move(entry));
  }
  return {{"measured_by", chart.measured_by},
          {"share_note", chart.share_note},
          {"links", links},
          {"nodes", nodes},
          {"by_ncu_name", by_ncu_name}};
}

json sites_json(const RunResult& r) {
  json sites = json::array();
  const std::vector<int> lines = site_line_numbers(r);
  for (const SitePrediction& s : r.prediction.sites) {
    sites.push_back({{"name", s.name},
                     {"line", lines[sites.size()]},
                     {"space", space_name(s.space)},
                     {"op", op_name(s.op)},
                     {"exact", s.exact}});
    for (const Figure* f : site_figures())
      sites.back()[std::string(f->key)] = figure_json(*f, f->site_predicted(s));
    if (s.iterations > 0) // a kernel file's site: the most times one warp ran it
      sites.back()["iterations"] = s.iterations;
    if (r.site_counts && r.site_counts->available)
      sites.back()["measured"] = site_measured_json(*r.site_counts, s, sites.size() - 1);
  }
  return sites;
}

// The inputs the occupancy was computed from, so its JSON reports them rather than defaults.
OccupancyRequest occupancy_inputs(const RunResult& r) {
  OccupancyRequest request;
  request.block = r.launch.block;
  request.dynamic_smem = r.dynamic_smem;
  if (r.attributes) {
    request.registers_per_thread = r.attributes->registers;
    request.static_smem = r.attributes->static_shared_bytes;
    request.kernel_max_threads = r.attributes->max_threads_per_block;
  }
  return request;
}

// Every launch figure with a value, under its panel's title: "  median time        0.0123 ms".
std::string figures_table(const RunResult& r) {
  std::string text;
  std::optional<Panel> heading;
  std::size_t width = 0; // the longest label, so every value starts in one column
  for (const Figure* f : launch_figures())
    width = std::max(width, f->display.size());
  for (const Figure* f : launch_figures()) {
    const std::optional<std::string> value = figure_text(*f, r);
    if (!value)
      continue;
    if (heading != f->panel) {
      heading = f->panel;
      text += format("%s%s\n", text.empty() ? "\nfigures\n" : "", panel_title(f->panel));
    }
    text += format("  %-*s %s\n", static_cast<int>(width), std::string(f->display).c_str(),
                   value->c_str());
  }
  return text;
}

} // namespace

std::string run_text(const RunResult& r) {
  const KernelDesc* kernel = find_kernel(r.kernel_id);
  const std::string launch =
      r.kernel_kind == KernelKind::library
          ? "block and grid the library's"
          : "block " + format_block(r.launch.block) + "  grid " + format_block(r.launch.grid);
  std::string text = format("%s  %s  %s\n", r.kernel_id.c_str(), launch.c_str(),
                            format_params(*kernel, r.params).c_str());
  text += format("%s: %s (%s, %d SMs)\n", r.arch.id.c_str(), r.arch.name.c_str(),
                 r.arch.sm_name().c_str(), r.arch.sm_count);
  text += attributes_text(r);
  if (r.occupancy) {
    text += format("occupancy: %.1f %% theoretical (model: %s/SM", 100 * r.occupancy->occupancy,
                   counted(static_cast<std::size_t>(r.occupancy->blocks_per_sm), "block").c_str());
    text += r.runtime_blocks_per_sm >= 0
                ? "; runtime API: " +
                      counted(static_cast<std::size_t>(r.runtime_blocks_per_sm), "block") + "/SM)\n"
                : ")\n";
    text += r.occupancy->explanation + "\n";
  }
  text += timing_text(r) + verification_text(r);
  text += figures_table(r);
  text += "\npredicted memory traffic" + lines_of_file(r) + "\n" + sites_table(r);
  text += energy_text(r) + counters_text(r);
  if (counted_memory_chart(r))
    text += memory_chart_text(memory_chart(r));
  return text + site_counts_text(r) + stalls_text(r);
}

json run_json(const RunResult& r) {
  json out = {{"kernel", r.kernel_id},
              {"kernel_kind", kernel_kind_name(r.kernel_kind)},
              {"params", r.params},
              {"block", {r.launch.block.x, r.launch.block.y, r.launch.block.z}},
              {"grid", {r.launch.grid.x, r.launch.grid.y, r.launch.grid.z}},
              {"dynamic_shared_memory", r.dynamic_smem},
              {"arch", r.arch.id},
              {"bytes_moved", r.bytes_moved},
              {"flops", r.flops},
              {"sites", sites_json(r)},
              {"model_exact", r.prediction.exact()},
              {"model_seconds", r.prediction.seconds},
              // The rest lets the worker protocol rebuild the RunResult (run_result_from_json).
              {"model_warp_iterations", r.prediction.warp_iterations},
              {"model_warp_iterations_evaluated", r.prediction.warp_iterations_evaluated},
              {"arch_details", arch_to_json(r.arch)},
              // Every launch figure of the figure table, by key: derived from the rest, so a
              // reader recomputes them rather than trusting them.
              {"figures", launch_figures_json(r)}};
  if (r.prediction.from_code) { // a kernel file's prediction, from its PTX
    json notes = json::array();
    for (const LineNote& note : r.prediction.notes)
      notes.push_back({{"line", note.line}, {"reason", note.reason}});
    out["model_from_code"] = true;
    out["model_file"] = r.prediction.file;
    out["model_notes"] = notes;
  }
  // What only the runtime says (none of it at build time) is null where no GPU said it.
  const auto known = [](int value) { return value ? nlohmann::json(value) : nlohmann::json(); };
  if (r.attributes)
    out["attributes"] = {{"source", r.attributes->source},
                         {"registers", r.attributes->registers},
                         {"static_shared_memory", r.attributes->static_shared_bytes},
                         {"local_bytes_per_thread", r.attributes->local_bytes},
                         {"max_threads_per_block", known(r.attributes->max_threads_per_block)},
                         {"ptx_version", known(r.attributes->ptx_version)},
                         {"binary_version", known(r.attributes->binary_version)}};
  if (r.occupancy) {
    out["occupancy"] = occupancy_json(r.arch, occupancy_inputs(r), *r.occupancy);
    if (r.runtime_blocks_per_sm >= 0)
      out["occupancy"]["runtime_blocks_per_sm"] = r.runtime_blocks_per_sm;
  }
  if (r.timing)
    // Each key the figure table's for the same quantity (median_time, throughput, ...); results
    // written before it said median_ms, gbps and gflops, and are read back as well.
    out["timing"] = {{"median_time", r.timing->median_time},
                     {"min_time", r.timing->min_time},
                     {"max_time", r.timing->max_time},
                     {"mean_time", r.timing->mean_time},
                     {"noise", r.timing->noise},
                     {"samples", r.timing->samples},
                     {"converged", r.timing->converged},
                     {"l2_flushed", r.timing->l2_flushed},
                     {"throughput", r.gbps()},
                     {"compute", r.gflops()},
                     {"seconds", r.timing->seconds},
                     {"default_clock_mhz", r.timing->default_clock_mhz},
                     {"throttled_samples", r.timing->throttled_samples},
                     {"throttled_samples_kept", r.timing->throttled_samples_kept}};
  if (r.timing && r.timing->sm_clock_mhz)
    out["timing"]["sm_clock_mhz"] = *r.timing->sm_clock_mhz;
  if (r.timing && r.timing->memory_clock_mhz)
    out["timing"]["memory_clock_mhz"] = *r.timing->memory_clock_mhz;
  if (r.timing && r.timing->clock_events)
    out["timing"]["clock_events"] = r.timing->clock_events;
  if (r.counters)
    out["counters"] = counters_json(*r.counters, r);
  if (counted_memory_chart(r))
    out["memory_chart"] = memory_chart_json(memory_chart(r));
  if (r.site_counts)
    out["site_counts"] = site_counts_json(*r.site_counts);
  if (r.stalls)
    out["stalls"] = stall_samples_json(*r.stalls);
  if (r.energy)
    out["energy"] = energy_json(*r.energy);
  if (r.verification)
    out["verification"] = {{"passed", r.verification->passed},
                           {"checked", r.verification->checked},
                           {"mismatches", r.verification->mismatches},
                           {"max_abs_error", r.verification->max_abs_error},
                           {"max_rel_error", r.verification->max_rel_error},
                           {"first_failure", r.verification->first_failure},
                           {"note", r.verification->note},
                           {"against", r.verification->against},
                           {"skipped", r.verification->skipped},
                           {"seconds", r.verification->seconds}};
  return out;
}

std::string run_csv(const RunResult& r) {
  std::ostringstream csv;
  csv << "kernel,block,grid,arch" << launch_figure_headers()
      << ",local_bytes,verified,site,space,op";
  // A site's figures as site_KEY: the launch's own columns hold the launch's sectors_per_request
  // (its worst site's) and dram_bytes.
  for (const Figure* f : site_figures())
    csv << ",site_" << f->key;
  // Per-site measured (--per-site); empty without it.
  for (const std::string& header : site_measured_csv_headers())
    csv << "," << header;
  // The launch's stall samples (--stalls), a column per reason; empty without them.
  for (const std::string& header : stall_csv_headers())
    csv << "," << header;
  csv << "\n";
  const std::string launch =
      r.kernel_id + "," + format_block(r.launch.block) + "," + format_block(r.launch.grid) + "," +
      r.arch.id + launch_figure_cells(r) + "," +
      (r.attributes ? std::to_string(r.attributes->local_bytes) : std::string()) + "," +
      (r.verification ? r.verification->word() : "");
  for (std::size_t i = 0; i < r.prediction.sites.size(); ++i) {
    const SitePrediction& s = r.prediction.sites[i];
    csv << launch << "," << csv_quoted(s.name) << "," << space_name(s.space) << ","
        << op_name(s.op);
    for (const Figure* f : site_figures())
      csv << "," << figure_csv(*f, f->site_predicted(s));
    for (const std::string& cell : site_measured_csv_cells(r, i))
      csv << "," << cell;
    for (const std::string& cell : stall_csv_cells(r))
      csv << "," << cell;
    csv << "\n";
  }
  return csv.str();
}

} // namespace wl
