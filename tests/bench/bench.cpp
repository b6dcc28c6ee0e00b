// Benchmarks for the GPU machine (never part of the tests). Each prints a markdown table.
//   wl_bench catalog          every kernel at its default shape and size
//   wl_bench copy [FLOATS]    the vector adds at 1<<26 elements against device-to-device copy
//   bandwidth; with FLOATS, the copy of that many floats alone wl_bench family NAME      every
//   variant of one family at its default size (softmax, matmul, ...) wl_bench record FILE ARCH
//   every kernel at its default block and its block presets, with the
//                             default and memory counters and the per-site pass, the default
//                             block with its stalls and energy: the recording of preset ARCH
//                             (h200) that the GUI's model mode shows
//   wl_bench catalog-ids      the kernels' ids, one a line
//   wl_bench l2               the L2-to-SM read bandwidth at a few buffer sizes that fit in L2
//                             (the presets' L2 roof), beside the SM clock
//   wl_bench sass-metrics     the per-instruction metrics CUPTI offers for this GPU's chip, as
//                             assets/sass_metrics.json holds them
//   wl_bench sass ID          one kernel at its defaults: every memory instruction's SASS metrics
//                             (executions, sectors, wavefronts) beside the model's sites and the
//                             launch-wide counters, and what each pass cost
//   wl_bench range-cost       the counters' cost per added shape for a few metric lists
//   wl_bench shapes ID        every test size x allowed preset block of one kernel, verified
//   wl_bench launches ID START END STEP
//                             one launch per 1D block size, each after an L2 flush, after one
//                             launch not compared: the program ncu profiles beside WarpLens's sweep

#include "engine/cuda_check.h"
#include "engine/device.h"
#include "engine/engine.h"
#include "engine/recording_run.h"
#include "engine/sweep_run.h"
#include "l2_bandwidth.h"
#include "model/kernel_request.h"
#include "model/site_counts.h"
#include "protocol/protocol.h"
#include "registry.h"
#include "report/figures.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <execinfo.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

namespace wl {
namespace {

RunResult run_default(const KernelDesc& kernel, const std::vector<std::string>& params = {}) {
  EngineOptions options;
  options.timing.max_seconds = 2.0;
  return run_kernel(resolve_kernel_request(kernel.id, params, "", ""), options);
}

void print_row(const RunResult& r) {
  const bool compute = r.flops > 0 && r.gflops() > 0 && r.flops / r.bytes_moved > 8;
  std::printf("| %-26s | %-8s | %10.4f | %5.2f %% | %8.1f | %5.1f %% | %9s | %4s | %5s | %s |\n",
              r.kernel_id.c_str(),
              (std::to_string(r.launch.block.x) + "x" + std::to_string(r.launch.block.y) + "x" +
               std::to_string(r.launch.block.z))
                  .c_str(),
              r.timing->median_time, 100 * r.timing->noise, r.gbps(),
              figure("share_of_peak").measured(r).value_or(0),
              compute ? std::to_string(static_cast<long long>(r.gflops())).c_str() : "-",
              r.attributes ? std::to_string(r.attributes->registers).c_str() : "-",
              r.attributes ? std::to_string(r.attributes->local_bytes).c_str() : "-",
              r.verification && r.verification->passed ? "yes" : "NO");
}

void print_header() {
  std::printf("| kernel | block | median ms | noise | GB/s | of peak | GFLOP/s | regs | local B | "
              "verified |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
}

int catalog() {
  print_header();
  for (const KernelDesc& kernel : all_kernels())
    print_row(run_default(kernel));
  return 0;
}

// Device-to-device copy of `floats` elements: bytes read plus bytes written per second.
double copy_gbps(std::int64_t floats) {
  const std::size_t bytes = static_cast<std::size_t>(floats) * 4;
  void *src = nullptr, *dst = nullptr;
  cuda_check(cudaMalloc(&src, bytes), "cudaMalloc");
  cuda_check(cudaMalloc(&dst, bytes), "cudaMalloc");
  cuda_check(cudaMemset(src, 1, bytes), "cudaMemset");
  const double median_ms = median_event_ms( // the first copies warm up
      [&] {
        cuda_check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpyAsync");
      },
      27, 3);
  cudaFree(src);
  cudaFree(dst);
  return 2.0 * bytes / (median_ms * 1e-3) / 1e9;
}

int l2() {
  int sm_khz = 0;
  cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, 0);
  std::printf("| buffer | median ms (100 reads) | L2 read GB/s |\n|---|---|---|\n");
  double best = 0;
  for (const std::int64_t mib : {4, 8, 16, 24, 32}) {
    const L2Bandwidth b = l2_read_bandwidth(mib << 20);
    best = std::max(best, b.gbps);
    std::printf("| %lld MiB | %.4f | %.1f |\n", static_cast<long long>(mib), b.median_ms, b.gbps);
  }
  std::printf("\nbest L2 read bandwidth: %.1f GB/s (SM clock up to %d MHz)\n", best, sm_khz / 1000);
  return 0;
}

int copy() {
  constexpr std::int64_t n = std::int64_t{1} << 26;
  const double copy = copy_gbps(n);
  std::printf("device-to-device copy of %lld floats: %.1f GB/s (read + write)\n\n",
              static_cast<long long>(n), copy);
  std::printf("| kernel | median ms | GB/s | of copy bandwidth |\n|---|---|---|---|\n");
  double best = 0;
  for (const char* id : {"vec_add/scalar", "vec_add/vec4", "vec_add/grid_stride"}) {
    const RunResult r = run_default(*find_kernel(id), {"n=" + std::to_string(n)});
    best = std::max(best, r.gbps());
    std::printf("| %s | %.4f | %.1f | %.1f %% |\n", id, r.timing->median_time, r.gbps(),
                100 * r.gbps() / copy);
  }
  std::printf("\nbest vector add: %.1f %% of the copy bandwidth\n", 100 * best / copy);
  return 0;
}

int family(const std::string& name) {
  print_header();
  for (const KernelDesc& kernel : all_kernels())
    if (kernel.id.starts_with(name + "/"))
      print_row(run_default(kernel));
  return 0;
}

// The recording model mode shows (engine/recording_run.h), of every bundled kernel, as preset
// `arch`: written whole after each kernel, by a rename, so a batch cut short keeps what it
// recorded.
int record(const std::string& path, const std::string& arch) {
  std::vector<const KernelDesc*> kernels;
  for (const KernelDesc& kernel : all_kernels())
    kernels.push_back(&kernel);
  const nlohmann::json recording = record_kernels(
      kernels, {}, arch,
      [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); },
      [&](const nlohmann::json& so_far) {
        std::ofstream(path + ".part") << so_far.dump() << "\n";
        std::filesystem::rename(path + ".part", path);
      });
  std::printf("%zu results from %s written to %s\n", recording["runs"].size(),
              recording["device"].get<std::string>().c_str(), path.c_str());
  return 0;
}

int launches(const std::string& id, int start, int end, int step) {
  const KernelDesc* kernel = find_kernel(id);
  if (!kernel)
    throw std::runtime_error("unknown kernel " + id);
  EngineOptions options;
  options.verify = false;
  // Exactly one launch per shape, after the same L2 flush WarpLens makes before each counted
  // launch.
  options.timing = TimingOptions{0, 1, 1, 1.0, 0.0, true};
  const KernelRequest request = resolve_kernel_request(id, {}, "", "");
  // One launch first at a size the comparison does not use (start + 1): ncu's first profiled
  // launch in a process counts about 2.5 MB more DRAM writes for vec_add than the same launch
  // later, in every replay mode, so it is not one of the launches compared.
  std::vector<BlockShape> shapes{BlockShape{start + 1, 1, 1}};
  for (int x = start; x <= end; x += step)
    shapes.push_back(BlockShape{x, 1, 1});
  run_sweep(*kernel, request.params, SweepGrid{shapes, {}}, options, nullptr);
  return 0;
}

// Every test size x allowed preset block of one kernel, verified, one launch each and no
// counters: the program compute-sanitizer checks (tests/bench/sanitize_catalog.sh).
int shapes(const std::string& id) {
  const KernelDesc* kernel = find_kernel(id);
  if (!kernel)
    throw std::runtime_error("unknown kernel " + id);
  EngineOptions options;
  options.timing = TimingOptions{0, 1, 1, 1.0, 0.0, false};
  int runs = 0, verified = 0;
  for (const Params& overrides : kernel->test_sizes) {
    Params params;
    for (const ParamSpec& spec : kernel->params)
      params[spec.name] = spec.default_value;
    for (const auto& [name, value] : overrides)
      params[name] = value;
    for (const BlockShape& block : allowed_presets(*kernel, params)) {
      const RunResult r = run_kernel(KernelRequest{kernel, params, block}, options);
      ++runs;
      verified += r.verification && r.verification->passed;
    }
  }
  std::printf("%s: %d runs, %d verified\n", id.c_str(), runs, verified);
  return verified == runs ? 0 : 1;
}

// The chip's SASS metrics as JSON: {"about": ..., "chips": {"GH100": [{name, description}]}}.
int sass_metrics() {
  std::string chip;
  const std::vector<SassMetricInfo> metrics = sass_metrics_offered(0, chip);
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const SassMetricInfo& m : metrics)
    list.push_back({{"name", m.name}, {"description", m.description}});
  nlohmann::ordered_json file;
  file["about"] = "The per-instruction (SASS) metrics CUPTI's SASS Metrics API offers per chip "
                  "(cuptiSassMetricsGetMetrics), as `wl_bench sass-metrics` lists them on a GPU of "
                  "that chip: what WarpLens can measure per access site.";
  file["chips"][chip] = list;
  std::printf("%s\n", file.dump(2).c_str());
  return 0;
}

// The memory instructions' SASS metrics of one kernel at its defaults, beside the model's sites
// and the launch-wide counters: sums that should agree, and the cost of each pass.
int sass(const std::string& id) {
  const KernelRequest request = resolve_kernel_request(id, {}, "", "");
  EngineOptions options;
  options.metrics = "default";
  KernelSession session(*request.kernel, request.params, options);
  const RunResult predicted = session.predict(request.block);
  const auto counted_at = std::chrono::steady_clock::now();
  const CounterResult launch = session.count({request.block}).front();
  const double counted =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - counted_at).count();
  const std::vector<std::string> metrics = {
      "smsp__sass_inst_executed_op_global_ld",
      "smsp__sass_inst_executed_op_global_st",
      "smsp__sass_inst_executed_op_shared_ld",
      "smsp__sass_inst_executed_op_shared_st",
      "smsp__sass_sectors_mem_global",
      "smsp__sass_sectors_mem_global_ideal",
      "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
      "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal"};
  const SassCounts sass = session.count_sass(request.block, metrics);
  if (!sass.available) {
    std::printf("%s: no SASS metrics: %s\n", id.c_str(), sass.reason.c_str());
    return 1;
  }
  const auto value = [](const SassInstruction& i, const char* name) {
    const auto it = i.values.find(name);
    return it == i.values.end() ? 0.0 : it->second;
  };
  std::printf("## %s, block %dx%dx%d: memory instructions\n\n| function | pc | kind | executed | "
              "sectors (ideal) | wavefronts (ideal) |\n|---|---|---|---|---|---|\n",
              id.c_str(), request.block.x, request.block.y, request.block.z);
  std::map<std::string, double> sums;
  for (const SassInstruction& i : sass.instructions) {
    const char* kinds[] = {"global load", "global store", "shared load", "shared store"};
    for (int k = 0; k < 4; ++k) {
      const double executed = value(i, metrics[k].c_str());
      if (executed == 0)
        continue;
      std::printf("| %s | 0x%x | %s | %.0f | %.0f (%.0f) | %.0f (%.0f) |\n", i.function.c_str(),
                  i.pc_offset, kinds[k], executed, value(i, metrics[4].c_str()),
                  value(i, metrics[5].c_str()), value(i, metrics[6].c_str()),
                  value(i, metrics[7].c_str()));
      sums[kinds[k]] += executed;
      sums[std::string(kinds[k]) + " sectors"] += value(i, metrics[4].c_str());
      sums[std::string(kinds[k]) + " wavefronts"] += value(i, metrics[6].c_str());
    }
  }
  std::printf("\n| figure | SASS sum | launch counter |\n|---|---|---|\n");
  const auto counter = [&](const char* key) {
    const CounterValue* v = launch.find(key);
    return v ? v->value : -1.0;
  };
  const std::pair<const char*, const char*> rows[] = {
      {"global load", "global_load_instructions"},
      {"global store", "global_store_instructions"},
      {"global load sectors", "global_load_sectors"},
      {"global store sectors", "global_store_sectors"},
      {"shared load wavefronts", "shared_load_wavefronts"},
      {"shared store wavefronts", "shared_store_wavefronts"}};
  for (const auto& [sum, key] : rows)
    std::printf("| %s | %.0f | %.0f |\n", key, sums[sum], counter(key));
  std::printf("\n| site | predicted requests | sectors | wavefronts |\n|---|---|---|---|\n");
  for (const SitePrediction& site : predicted.prediction.sites)
    std::printf("| %s | %lld | %lld | %lld |\n", site.name.c_str(),
                static_cast<long long>(site.requests), static_cast<long long>(site.sectors),
                static_cast<long long>(site.wavefronts));
  std::printf(
      "\nSASS pass %.3f s (%zu instructions patched); the default counters' passes %.3f s\n",
      sass.seconds, sass.instructions.size(), counted);
  return 0;
}

// Several SASS passes and range-profiler passes in one process, in turn: whether each works.
int sass_repeat(const std::string& id) {
  const KernelRequest request = resolve_kernel_request(id, {}, "", "");
  EngineOptions options;
  options.metrics = "default";
  KernelSession session(*request.kernel, request.params, options);
  const auto report = [](const char* step, const SassCounts& c) {
    std::printf("%-34s %s %.3f s %s\n", step, c.available ? "ok" : "FAILED", c.seconds,
                c.reason.c_str());
  };
  const std::vector<std::string> few = {"smsp__sass_inst_executed_op_global_ld",
                                        "smsp__sass_sectors_mem_global"};
  report("SASS, the site metrics", session.count_sass(request.block, site_sass_metrics()));
  report("SASS again, the same metrics", session.count_sass(request.block, site_sass_metrics()));
  const CounterResult range = session.count({request.block}).front();
  std::printf("%-34s %s %s\n", "range profiler", range.available ? "ok" : "FAILED",
              range.reason.c_str());
  report("SASS after the range profiler", session.count_sass(request.block, site_sass_metrics()));
  report("SASS, two other metrics", session.count_sass(request.block, few));
  report("SASS, the site metrics again", session.count_sass(request.block, site_sass_metrics()));
  return 0;
}

// The SASS pass's cost for a metric list ("site": the per-site pass's, "six": the kinds, sectors
// and wavefronts, "kinds": the four kinds of access), one kernel at its defaults, twice; one
// configuration a process (counters.cpp says why).
int sass_cost(const std::string& id, const std::string& list) {
  const KernelRequest request = resolve_kernel_request(id, {}, "", "");
  KernelSession session(*request.kernel, request.params, EngineOptions{});
  std::vector<std::string> kinds = {
      "smsp__sass_inst_executed_op_global_ld", "smsp__sass_inst_executed_op_global_st",
      "smsp__sass_inst_executed_op_shared_ld", "smsp__sass_inst_executed_op_shared_st"};
  std::vector<std::string> six = kinds;
  six.push_back("smsp__sass_sectors_mem_global");
  six.push_back("smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared");
  const std::vector<std::string>& metrics = list == "kinds" ? kinds
                                            : list == "six" ? six
                                                            : site_sass_metrics();
  for (int pass = 1; pass <= 2; ++pass) {
    const SassCounts c = session.count_sass(request.block, metrics);
    std::printf("%s %2zu metrics, pass %d: %s %.3f s %s\n", id.c_str(), metrics.size(), pass,
                c.available ? "ok" : "FAILED", c.seconds, c.reason.c_str());
  }
  return 0;
}

// What the counters cost per added shape for a few metric lists (keys of assets/metrics.json),
// vec_add/scalar over 32 and then 64 block sizes in one session: CUPTI's range profiler charges
// each range by the counter units in the list, whatever else the list holds.
int range_cost() {
  const KernelRequest request = resolve_kernel_request("vec_add/scalar", {}, "", "");
  std::vector<BlockShape> shapes;
  for (int x = 32; x <= 1024; x += 32)
    shapes.push_back(BlockShape{x, 1, 1});
  std::vector<BlockShape> twice = shapes;
  twice.insert(twice.end(), shapes.begin(), shapes.end());
  std::printf("| metric list | passes | counters, 32 shapes | 64 shapes | per added shape |\n"
              "|---|---|---|---|---|\n");
  for (const char* list : {"default", "duration", "dram_read_bytes", "warp_instructions",
                           "global_load_sectors", "default"}) {
    EngineOptions options;
    options.metrics = list;
    KernelSession session(*request.kernel, request.params, options);
    session.count(shapes); // opens and configures: not a shape's cost
    const auto timed = [&](const std::vector<BlockShape>& blocks, int& passes) {
      const auto start = std::chrono::steady_clock::now();
      passes = session.count(blocks).front().passes;
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    int passes = 0;
    const double t32 = timed(shapes, passes), t64 = timed(twice, passes);
    std::printf("| %s | %d | %.1f ms | %.1f ms | %.2f ms |\n", list, passes, 1e3 * t32, 1e3 * t64,
                1e3 * (t64 - t32) / 32);
  }
  return 0;
}

// A crash's stack, as addresses in the program and its base, for addr2line on the build machine.
void print_stack(int signal) {
  void* frames[64];
  const int count = backtrace(frames, 64);
  std::fprintf(stderr, "signal %d; stack:\n", signal);
  backtrace_symbols_fd(frames, count, 2);
  if (FILE* maps = std::fopen("/proc/self/maps", "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, maps))
      if (std::strstr(line, "wl_bench"))
        std::fputs(line, stderr);
    std::fclose(maps);
  }
  std::_Exit(128 + signal);
}

// Every site's measured figures for one kernel at its defaults, twice in one session, with the
// stack printed should anything crash.
int sites(const std::string& id) {
  std::signal(SIGSEGV, print_stack);
  std::signal(SIGABRT, print_stack);
  const KernelRequest request = resolve_kernel_request(id, {}, "", "");
  EngineOptions options;
  options.metrics = "default";
  KernelSession session(*request.kernel, request.params, options);
  const RunResult predicted = session.predict(request.block);
  for (int pass = 1; pass <= 2; ++pass) {
    const SiteCounts c = session.count_sites(predicted);
    std::printf("%s pass %d: %s %.3f s, %zu instructions %s\n", id.c_str(), pass,
                c.available ? "ok" : "FAILED", c.seconds, c.instructions.size(), c.reason.c_str());
    for (const MeasuredInstruction& i : c.instructions)
      std::printf("  0x%x line %d %s\n", i.pc, i.line, i.sass.c_str());
  }
  return 0;
}

} // namespace
} // namespace wl

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  try {
    if (mode == "catalog")
      return wl::catalog();
    if (mode == "copy" && argc > 2) { // the copy alone, of that many floats
      const std::int64_t floats = std::stoll(argv[2]);
      std::printf("device-to-device copy of %lld floats: %.1f GB/s (read + write)\n",
                  static_cast<long long>(floats), wl::copy_gbps(floats));
      return 0;
    }
    if (mode == "copy")
      return wl::copy();
    if (mode == "l2")
      return wl::l2();
    if (mode == "family" && argc > 2)
      return wl::family(argv[2]);
    if (mode == "record" && argc > 3)
      return wl::record(argv[2], argv[3]);
    if (mode == "catalog-ids") {
      for (const wl::KernelDesc& kernel : wl::all_kernels())
        std::printf("%s\n", kernel.id.c_str());
      return 0;
    }
    if (mode == "sass-metrics")
      return wl::sass_metrics();
    if (mode == "sass" && argc > 2)
      return wl::sass(argv[2]);
    if (mode == "sites" && argc > 2)
      return wl::sites(argv[2]);
    if (mode == "sass-repeat" && argc > 2)
      return wl::sass_repeat(argv[2]);
    if (mode == "sass-cost" && argc > 3)
      return wl::sass_cost(argv[2], argv[3]);
    if (mode == "range-cost")
      return wl::range_cost();
    if (mode == "shapes" && argc > 2)
      return wl::shapes(argv[2]);
    if (mode == "launches" && argc > 5)
      return wl::launches(argv[2], std::stoi(argv[3]), std::stoi(argv[4]), std::stoi(argv[5]));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wl_bench: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr,
               "usage: wl_bench catalog | catalog-ids | copy | l2 | family NAME | record FILE | "
               "sass-metrics | "
               "sass ID | sites ID | sass-repeat ID | sass-cost ID site|six|kinds | range-cost | "
               "shapes ID | "
               "launches ID START "
               "END STEP\n");
  return 2;
}
