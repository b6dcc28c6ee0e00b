#include "base/error.h"
#include "base/json_fields.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "cli_commands.h"
#include "cli_numbers.h"
#include "io/assets.h"
#include "model/block_text.h"
#include "report/occupancy_report.h"

#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#ifdef WARPLENS_LINKS_ENGINE
#include "engine/device.h"
#endif

namespace wl {

namespace {

using nlohmann::json;

std::vector<Arch> presets() { return load_arch_presets(assets_dir() / "arch"); }

// One line on this machine's GPUs, or why none is listed.
std::string devices_here() {
#ifdef WARPLENS_LINKS_ENGINE
  return describe_devices();
#else
  return "none: this WarpLens was built without the CUDA toolkit, so it reads no GPU";
#endif
}

void run_arches(bool as_json) {
  const std::vector<Arch> all = presets();
  const std::string devices = devices_here();
  if (as_json) {
    json list = json::array();
    for (const Arch& arch : all)
      list.push_back(arch_to_json(arch));
    std::cout << json_text(json{{"presets", list}, {"devices", devices}}, 2) << "\n";
    return;
  }
  std::printf("%-8s %-7s %-5s %5s %11s %9s %10s %9s  %s\n", "id", "alias", "CC", "SMs",
              "threads/SM", "smem/SM", "L2", "DRAM GB/s", "name");
  for (const Arch& arch : all)
    std::printf(
        "%-8s %-7s %-5s %5d %11d %9s %10s %9.0f  %s\n", arch.id.c_str(),
        arch.aliases.empty() ? "-" : arch.aliases.front().c_str(),
        (std::to_string(arch.cc_major) + "." + std::to_string(arch.cc_minor)).c_str(),
        arch.sm_count, arch.max_threads_per_sm, format_bytes(arch.shared_memory_per_sm).c_str(),
        format_bytes(arch.l2_cache_bytes).c_str(), arch.dram_bandwidth_gbps, arch.name.c_str());
  std::printf("\nGPU on this machine: %s\n", devices.c_str());
}

// "1-32: 100 %, 33-40: 75 %, ...": where a curve steps, for the text report.
std::string curve_steps(const std::vector<CurvePoint>& curve, const char* unit) {
  std::string text;
  for (std::size_t i = 0; i < curve.size();) {
    std::size_t j = i;
    while (j + 1 < curve.size() && curve[j + 1].blocks_per_sm == curve[i].blocks_per_sm &&
           curve[j + 1].occupancy == curve[i].occupancy)
      ++j;
    const std::string range = j == i
                                  ? std::to_string(curve[i].x)
                                  : std::to_string(curve[i].x) + "-" + std::to_string(curve[j].x);
    char step[96];
    std::snprintf(step, sizeof step, "%s%s%s: %.0f %%", text.empty() ? "" : ", ", range.c_str(),
                  unit, 100.0 * curve[i].occupancy);
    text += step;
    i = j + 1;
  }
  return text;
}

struct OccupancyOptions {
  std::string arch = "h100";
  std::string block;
  OccupancyRequest request;
  bool json = false;
  bool curves = false;
};

// The kernel's own launch bound caps the block as the arch's limit does; a bound above that limit
// bounds nothing (nvcc refuses one over 1024) and is most likely a typo.
void check_launch_bound(const Arch& arch, const OccupancyRequest& request) {
  const int bound = request.kernel_max_threads;
  if (bound > arch.max_threads_per_block)
    throw UsageError("--max-threads " + std::to_string(bound) +
                     ": over the arch's limit; allowed at most " +
                     std::to_string(arch.max_threads_per_block) + " threads a block on " + arch.id +
                     ", or 0 for that limit");
  if (bound > 0 && request.block.threads() > bound)
    throw UsageError("--max-threads " + std::to_string(bound) + ": block " +
                     format_block(request.block) + " has " +
                     std::to_string(request.block.threads()) +
                     " threads; allowed a block of at most " + std::to_string(bound) +
                     " threads, or --max-threads 0 for the arch's limit");
}

void run_occupancy(const OccupancyOptions& options) {
  const Arch arch = arch_for(options.arch);
  OccupancyRequest request = options.request;
  request.block = parse_block(options.block);
  check_launch_bound(arch, request);
  const OccupancyResult result = compute_occupancy(arch, request);
  if (options.json) {
    json out = occupancy_json(arch, request, result);
    out["suggested_block_size"] = suggested_block_size(arch, request);
    if (options.curves)
      out["impact_curves"] = curves_json(impact_curves(arch, request));
    std::cout << json_text(out, 2) << "\n";
    return;
  }
  std::cout << occupancy_text(arch, request, result);
  // Many sizes often tie (every one from 64 to 1024 at 100 %); the choice is the largest, as
  // cudaOccupancyMaxPotentialBlockSize makes it, and says so.
  std::printf("the largest block size with the most resident threads for these resources "
              "(cudaOccupancyMaxPotentialBlockSize's choice): %d\n",
              suggested_block_size(arch, request));
  if (options.curves) {
    const ImpactCurves curves = impact_curves(arch, request);
    std::printf("\nimpact of the block size:        %s\n",
                curve_steps(curves.block_size, " threads").c_str());
    std::printf("impact of registers per thread:  %s\n", curve_steps(curves.registers, "").c_str());
    std::printf("impact of shared memory (B):     %s\n",
                curve_steps(curves.shared_memory, "").c_str());
  }
}

} // namespace

void add_arch_commands(CLI::App& app) {
  auto arches_json = std::make_shared<bool>(false);
  CLI::App* arches = app.add_subcommand(
      "arches", "List the architecture presets and the GPU, if any (manual: docs/commands.md)");
  arches->add_flag("--json", *arches_json, "Print JSON");
  arches->callback([arches_json] { run_arches(*arches_json); });

  auto options_ptr = std::make_shared<OccupancyOptions>();
  OccupancyOptions& options = *options_ptr;
  CLI::App* cmd =
      app.add_subcommand("occupancy", "Theoretical occupancy of one launch, its limits and why "
                                      "(manual: docs/commands.md; its JSON: docs/file-formats.md)");
  cmd->add_option("--arch", options.arch,
                  "Preset id or alias (see `warplens arches`), device[:N], or a .json file")
      ->capture_default_str();
  cmd->add_option("--block", options.block, "Block shape: X, XxY or XxYxZ")->required();
  // Each number within what any arch could allow; the arch's own limit is checked with the arch.
  const CLI::Validator non_negative = whole_number_option(0, kMaxInt64);
  cmd->add_option("--regs", options.request.registers_per_thread, "Registers per thread (0-255)")
      ->check(whole_number_option(0, 255))
      ->capture_default_str();
  cmd->add_option("--smem", options.request.static_smem, "Static shared memory per block, bytes")
      ->check(non_negative)
      ->capture_default_str();
  cmd->add_option("--dyn-smem", options.request.dynamic_smem,
                  "Dynamic shared memory per block, bytes")
      ->check(non_negative)
      ->capture_default_str();
  cmd->add_option("--carveout", options.request.carveout_percent,
                  "Preferred shared-memory carveout, percent (0-100; -1 = driver default)")
      ->check(whole_number_option(-1, 100))
      ->capture_default_str();
  cmd->add_option("--max-threads", options.request.kernel_max_threads,
                  "The kernel's own threads-per-block limit (launch bounds); 0 = the arch's")
      ->check(whole_number_option(0, kMaxInt));
  // Not given: no waves. Given, at least one block (0 blocks is no launch at all).
  cmd->add_option("--grid", options.request.grid_blocks, "Blocks in the grid, for waves")
      ->check(whole_number_option(1, kMaxInt));
  cmd->add_flag("--json", options.json, "Print one JSON object (keys in docs/file-formats.md)");
  cmd->add_flag("--curves", options.curves,
                "Add the impact curves (block size, registers, shared memory)");
  cmd->callback([options_ptr] { run_occupancy(*options_ptr); });
}

Arch arch_for(const std::string& spec) {
#ifdef WARPLENS_LINKS_ENGINE
  return resolve_arch(spec);
#else
  if (spec == "device" || spec.starts_with("device:"))
    throw UsageError("arch '" + clip(spec) +
                     "': this WarpLens was built without the CUDA toolkit, so it reads no GPU; "
                     "name a preset (warplens arches) or a .json preset");
  return find_arch(presets(), spec);
#endif
}

void needs_engine(const std::string& command, const std::string& instead) {
  throw UsageError(command +
                   " measures on a GPU, and this WarpLens was built without the CUDA toolkit, so "
                   "it has no engine: " +
                   (instead.empty() ? std::string() : "model it here (" + instead + "), or ") +
                   "measure through a worker on a machine with CUDA (--worker \"ssh HOST "
                   "warplens worker\")");
}

} // namespace wl
