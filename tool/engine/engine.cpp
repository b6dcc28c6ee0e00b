#include "engine/engine.h"

#include "base/text_format.h"
#include "common.h"
#include "engine/counters/counters.h"
#include "engine/cuda_check.h"
#include "engine/device.h"
#include "engine/device_compare.h"
#include "engine/fresh_launch.h"
#include "engine/l2_flush.h"
#include "engine/launch_watchdog.h"
#include "engine/measure.h"
#include "engine/run_time_module.h"
#include "io/assets.h"
#include "kernel_file/file_kernel.h"
#include "model/block_text.h"
#include "model/kernel_source.h"
#include "model/model_kernel.h"
#include "model/sass_text.h"
#include "model/site_counts.h"
#include "model/verify.h"
#include "registry.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include <cuda_runtime.h>

namespace wl {

namespace {

using Clock = std::chrono::steady_clock;

// Device memory for one session, freed on every path out.
class DeviceBuffers {
public:
  DeviceBuffers() = default;
  DeviceBuffers(const DeviceBuffers&) = delete;
  DeviceBuffers& operator=(const DeviceBuffers&) = delete;
  ~DeviceBuffers() {
    for (void* p : m_pointers)
      cudaFree(p);
  }

  void* allocate(std::size_t bytes, const std::string& name) {
    void* p = nullptr;
    cuda_check(cudaMalloc(&p, std::max<std::size_t>(bytes, 4)),
               ("cudaMalloc(" + name + ")").c_str());
    m_pointers.push_back(p);
    return p;
  }

private:
  std::vector<void*> m_pointers;
};

class Stream {
public:
  Stream() {
    cuda_check(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  ~Stream() { cudaStreamDestroy(m_stream); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return m_stream; }

private:
  cudaStream_t m_stream{};
};

// Checked before allocating: inputs, outputs, their expected values and the L2 flush buffer
// against free device memory.
void check_memory_fits(const KernelDesc& kernel, const Params& params, const Arch& arch) {
  double needed = static_cast<double>(arch.l2_cache_bytes);
  for (const BufferSpec& b : kernel.buffers) {
    // An output has its expected values beside it, an inout one also its values as uploaded.
    const double copies = b.role == BufferRole::inout ? 3 : b.role == BufferRole::output ? 2 : 1;
    needed += copies * element_bytes(b.type) * static_cast<double>(b.count(params));
  }
  std::size_t free = 0, total = 0;
  cuda_check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
  if (needed > static_cast<double>(free))
    throw UsageError(kernel.id + " with these sizes needs " + format_bytes(needed) +
                     " of device memory; " + format_bytes(static_cast<double>(free)) + " are free");
}

// Sorted indices as runs [begin, end) of consecutive ones.
std::vector<std::pair<std::int64_t, std::int64_t>> runs_of(std::vector<std::int64_t> indices) {
  std::sort(indices.begin(), indices.end());
  std::vector<std::pair<std::int64_t, std::int64_t>> runs;
  for (const std::int64_t i : indices) {
    if (!runs.empty() && runs.back().second >= i) {
      runs.back().second = std::max(runs.back().second, i + 1);
      continue;
    }
    runs.emplace_back(i, i + 1);
  }
  return runs;
}

HostBuffers make_inputs(const KernelDesc& kernel, const Params& params, std::uint64_t seed) {
  HostBuffers buffers;
  for (const BufferSpec& spec : kernel.buffers)
    buffers.push_back(HostBuffer{
        spec.type,
        Words(static_cast<std::size_t>(spec.count(params) * element_bytes(spec.type) / 4))});
  if (kernel.init) {
    kernel.init(buffers, params, seed);
    return buffers;
  }
  common::fill_uniform(buffers, kernel.buffers, seed);
  return buffers;
}

KernelAttributes device_attributes(const void* function) {
  cudaFuncAttributes attr{};
  cuda_check(cudaFuncGetAttributes(&attr, function), "cudaFuncGetAttributes");
  KernelAttributes a;
  a.source = "cudaFuncGetAttributes";
  a.registers = attr.numRegs;
  a.static_shared_bytes = static_cast<std::int64_t>(attr.sharedSizeBytes);
  a.local_bytes = static_cast<std::int64_t>(attr.localSizeBytes);
  a.max_threads_per_block = attr.maxThreadsPerBlock;
  a.ptx_version = attr.ptxVersion;
  a.binary_version = attr.binaryVersion;
  return a;
}

// The model's occupancy and the runtime's, from the attributes the device reports.
void add_occupancy(RunResult& result, const void* function, const BlockShape& block) {
  const KernelAttributes& a = *result.attributes;
  if (result.dynamic_smem > 48 * 1024)
    cuda_check(cudaFuncSetAttribute(function, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(result.dynamic_smem)),
               "cudaFuncSetAttribute(max dynamic shared memory)");
  OccupancyRequest occupancy;
  occupancy.block = block;
  occupancy.registers_per_thread = a.registers;
  occupancy.static_smem = a.static_shared_bytes;
  occupancy.dynamic_smem = result.dynamic_smem;
  occupancy.kernel_max_threads = a.max_threads_per_block;
  occupancy.grid_blocks = result.launch.grid.threads();
  result.occupancy = compute_occupancy(result.arch, occupancy);
  cuda_check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                 &result.runtime_blocks_per_sm, function, static_cast<int>(block.threads()),
                 static_cast<size_t>(result.dynamic_smem)),
             "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
}

const MetricCatalog& metric_catalog() {
  static const MetricCatalog catalog = load_metric_catalog(assets_dir() / "metrics.json");
  return catalog;
}

// The counters of this process: one profiler, opened on first use, for every session.
CounterProfiler& profiler() {
  static CounterProfiler instance(metric_catalog());
  return instance;
}

// "saxpy/saxpy, grid 65536, block 256": a launch as the messages about it name it.
std::string launch_words(const std::string& kernel, const LaunchShape& shape) {
  return kernel + ", grid " + format_block(shape.grid) + ", block " + format_block(shape.block);
}

} // namespace

struct KernelSession::State {
  const KernelDesc* kernel; // the kernel's current version (a saved file's, after a save)
  Params params;
  EngineOptions options;
  Arch arch;
  Stream stream;
  L2Flusher flusher;
  GpuSensors sensors{options.device}; // read as the samples are timed
  DeviceBuffers device;
  std::vector<void*> pointers;        // in KernelDesc::buffers order
  std::vector<void*> expected_device; // per buffer: the reference's values (outputs only)
  std::vector<void*> uploaded_device; // per buffer: an inout buffer's values as uploaded
  // A run-time kernel's code loaded for this device. Its reference kernel runs on the GPU once,
  // at the first verified launch's shape, into expected_device.
  std::unique_ptr<RunTimeModule> module;
  bool reference_ran = false;
  HostBuffers inputs;
  Expected expected;
  // A sampled reference's checked elements as runs [begin, end) of consecutive indices, and the
  // host copies of the outputs they are read into (only those elements are ever written there).
  std::vector<std::pair<std::int64_t, std::int64_t>> checked_runs;
  HostBuffers read_back;
  SessionSetup setup;
  // The counter profiler opening on another thread: joined by the first counting pass, so the
  // launch is verified and timed meanwhile (its timed part need not wait for CUPTI). Last, so it
  // is joined before the members above go.
  std::future<void> profiler_opening;
  // nvdisasm's listing of the kernel file's cubin (prepare_sites), for the stall samples' text.
  std::shared_future<SassListing> file_listing;
  void profiler_opened() {
    if (!profiler_opening.valid())
      return;
    profiler_opening.get();
    setup.counters = profiler().open_seconds();
  }

  State(const KernelDesc& k, const Params& p, const EngineOptions& o)
      : kernel(&k), params(p), options(o) {}

  void prepare();
  void upload();
  bool verifies() const {
    return options.verify && (module ? module->reference() != nullptr : bool(kernel->reference));
  }
  const void* function() const {
    return module ? module->function() : kernel->function ? kernel->function(params) : nullptr;
  }
  void enqueue(const DeviceLaunch& launch) const {
    enqueue_unwatched(launch);
    if (module)
      watch(launch, kernel->id);
  }
  void enqueue_unwatched(const DeviceLaunch& launch) const {
    if (module)
      module->launch(module->function(), launch);
    else
      kernel->launch(launch);
  }
  // A kernel file's launch may never end: the watchdog stops the process past the limit. Its
  // words are made once per shape, not on each timed launch.
  void watch(const DeviceLaunch& launch, const std::string& name) const {
    if (watched.name != name || watched.grid != launch.shape.grid ||
        watched.block != launch.shape.block)
      watched = {name, launch.shape.grid, launch.shape.block, launch_words(name, launch.shape)};
    watch_launch(static_cast<cudaStream_t>(launch.stream), watched.words,
                 options.kernel_time_limit);
  }
  struct Watched {
    std::string name;
    BlockShape grid, block;
    std::string words;
  };
  mutable Watched watched;
  void restore_inputs(const std::vector<void*>& buffers);
  void run_reference(const DeviceLaunch& launch);
  Verification verify(const DeviceLaunch& launch);
  Verification compare(const DeviceLaunch& launch);
  std::string describe_on_device(std::size_t buffer, std::int64_t index);
  Verification verify_on_host();
};

// Host work only (no CUDA calls), so the counter profiler can open meanwhile.
void KernelSession::State::prepare() {
  NvtxRange range("inputs and reference");
  const auto start = Clock::now();
  inputs = make_inputs(*kernel, params, options.seed);
  const auto generated = Clock::now();
  if (options.verify && kernel->reference) { // a run-time kernel's reference runs on the GPU
    expected = kernel->reference(inputs, params);
    checked_runs = runs_of(expected.checked);
  }
  setup.inputs = seconds_between(start, generated);
  setup.reference = seconds_between(generated, Clock::now());
}

void KernelSession::State::upload() {
  NvtxRange range("allocate and upload");
  const auto start = Clock::now();
  for (std::size_t i = 0; i < kernel->buffers.size(); ++i) {
    const std::string& name = kernel->buffers[i].name;
    const BufferRole role = kernel->buffers[i].role;
    const std::size_t bytes = inputs[i].bytes();
    pointers.push_back(device.allocate(bytes, name));
    if (is_uploaded(role))
      cuda_check(cudaMemcpy(pointers.back(), inputs[i].words.data(), bytes, cudaMemcpyHostToDevice),
                 "cudaMemcpy(inputs)");
    void* uploaded = nullptr;
    if (role == BufferRole::inout) {
      uploaded = device.allocate(bytes, name + " as uploaded");
      cuda_check(cudaMemcpy(uploaded, pointers.back(), bytes, cudaMemcpyDeviceToDevice),
                 "cudaMemcpy(inout as uploaded)");
    }
    uploaded_device.push_back(uploaded);
    void* want = nullptr;
    if (is_verified(role) && verifies() && expected.checked.empty()) {
      want = device.allocate(bytes, name + " expected");
      if (!module) // a run-time kernel's reference writes it on the GPU
        cuda_check(cudaMemcpy(want, expected.values[i].words.data(), bytes, cudaMemcpyHostToDevice),
                   "cudaMemcpy(expected)");
    }
    expected_device.push_back(want);
  }
  setup.upload = seconds_between(start, Clock::now());
}

// Before a verified launch: outputs poisoned, so an element never written shows, and inout
// buffers as uploaded, since every launch before changed them in place.
void KernelSession::State::restore_inputs(const std::vector<void*>& buffers) {
  for (std::size_t i = 0; i < kernel->buffers.size(); ++i) {
    const std::size_t bytes = inputs[i].bytes();
    if (kernel->buffers[i].role == BufferRole::output)
      cuda_check(cudaMemsetAsync(buffers[i], 0xff, bytes, stream.get()), "poison outputs");
    if (kernel->buffers[i].role == BufferRole::inout)
      cuda_check(cudaMemcpyAsync(buffers[i], uploaded_device[i], bytes, cudaMemcpyDeviceToDevice,
                                 stream.get()),
                 "restore inout buffers");
  }
}

// A run-time kernel's reference kernel writes the expected values: the same arguments, its
// outputs in the expected buffers, at the launch shape of the first verified launch.
void KernelSession::State::run_reference(const DeviceLaunch& launch) {
  NvtxRange range("reference kernel");
  std::vector<void*> buffers = pointers;
  for (std::size_t i = 0; i < buffers.size(); ++i)
    if (expected_device[i])
      buffers[i] = expected_device[i];
  restore_inputs(buffers);
  if (launch.dynamic_smem > 48 * 1024)
    cuda_check(cudaFuncSetAttribute(module->reference(),
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(launch.dynamic_smem)),
               "cudaFuncSetAttribute(the reference's dynamic shared memory)");
  DeviceLaunch reference = launch;
  reference.buffers = buffers;
  module->launch(module->reference(), reference);
  watch(reference, kernel->id + "'s reference " + module->reference_name());
  cuda_check(cudaStreamSynchronize(stream.get()), "the reference kernel's run");
  reference_ran = true;
}

// Full outputs compare on the device; a sampled reference compares the chosen elements on the host.
Verification KernelSession::State::verify(const DeviceLaunch& launch) {
  NvtxRange range("verify");
  const auto start = Clock::now();
  Verification v = compare(launch);
  v.seconds = seconds_between(start, Clock::now());
  return v;
}

Verification KernelSession::State::compare(const DeviceLaunch& launch) {
  if (module && !reference_ran)
    run_reference(launch);
  restore_inputs(pointers);
  enqueue(launch);
  cuda_check(cudaGetLastError(), "kernel launch");
  if (!expected.checked.empty()) {
    cuda_check(cudaStreamSynchronize(stream.get()), "kernel run");
    return verify_on_host();
  }

  Verification v;
  v.note = expected.note;
  if (module)
    v.against = module->reference_name() + ", run on the GPU";
  for (std::size_t i = 0; i < kernel->buffers.size(); ++i) {
    if (!is_verified(kernel->buffers[i].role))
      continue;
    const std::int64_t count = inputs[i].size();
    const DeviceComparison c =
        compare_on_device(pointers[i], expected_device[i], count, inputs[i].type,
                          kernel->tolerance.absolute, kernel->tolerance.relative, stream.get());
    v.checked += count;
    v.max_abs_error = std::max(v.max_abs_error, c.max_abs_error);
    if (c.mismatches && v.mismatches == 0)
      v.first_failure = describe_on_device(i, c.first_bad);
    v.mismatches += c.mismatches;
  }
  v.passed = v.checked > 0 && v.mismatches == 0;
  return v;
}

// The one failing element brought back, described exactly as the host check would.
std::string KernelSession::State::describe_on_device(std::size_t buffer, std::int64_t index) {
  const std::size_t bytes = static_cast<std::size_t>(element_bytes(inputs[buffer].type));
  const std::size_t at = static_cast<std::size_t>(index) * bytes;
  HostBuffer got{inputs[buffer].type, Words(bytes / 4)};
  HostBuffer want = got;
  cuda_check(cudaMemcpy(got.words.data(), static_cast<const char*>(pointers[buffer]) + at, bytes,
                        cudaMemcpyDeviceToHost),
             "cudaMemcpy(the failing output)");
  cuda_check(cudaMemcpy(want.words.data(), static_cast<const char*>(expected_device[buffer]) + at,
                        bytes, cudaMemcpyDeviceToHost),
             "cudaMemcpy(its expected value)");
  return describe_mismatch(kernel->buffers[buffer].name, index, got, want);
}

// Only the checked elements come back (a few whole rows of a 256 MiB softmax output, say), run
// by run; where they are scattered into more runs than copies are worth, the whole buffer does.
Verification KernelSession::State::verify_on_host() {
  constexpr std::size_t kMostRuns = 1024;
  if (read_back.empty()) {
    read_back.resize(inputs.size());
    for (std::size_t i = 0; i < kernel->buffers.size(); ++i) {
      read_back[i].type = inputs[i].type;
      if (is_verified(kernel->buffers[i].role))
        read_back[i].words.resize(inputs[i].words.size());
    }
  }
  for (std::size_t i = 0; i < kernel->buffers.size(); ++i) {
    if (!is_verified(kernel->buffers[i].role))
      continue;
    std::uint32_t* host = read_back[i].words.data();
    const auto* device = static_cast<const std::uint32_t*>(pointers[i]);
    if (checked_runs.size() > kMostRuns) {
      cuda_check(cudaMemcpy(host, device, 4 * read_back[i].words.size(), cudaMemcpyDeviceToHost),
                 "cudaMemcpy(outputs)");
      continue;
    }
    for (const auto& [begin, end] : checked_runs)
      cuda_check(cudaMemcpy(host + begin, device + begin, 4 * static_cast<std::size_t>(end - begin),
                            cudaMemcpyDeviceToHost),
                 "cudaMemcpy(checked outputs)");
  }
  return verify_outputs(*kernel, read_back, expected);
}

KernelSession::KernelSession(const KernelDesc& kernel, const Params& params,
                             const EngineOptions& options)
    : m_state(nullptr) {
  const auto start = Clock::now();
  // The counter profiler opens on another thread from the start: its first step needs no
  // context, so it overlaps the context's creation, and the rest overlaps the inputs, the
  // reference, the upload and the first launch's verification and timing.
  std::future<void> opening;
  if (!options.metrics.empty())
    opening = std::async(std::launch::async, [device = options.device,
                                              metrics = metric_catalog().select(options.metrics)] {
      profiler().open(device, metrics);
    });
  const Arch arch = arch_from_device(options.device);
  check_kernel_arch(kernel, arch);
  cuda_check(cudaSetDevice(options.device), "cudaSetDevice");
  check_memory_fits(kernel, params, arch);
  m_state = std::make_unique<State>(kernel, params, options);
  State& s = *m_state;
  s.arch = arch;
  s.setup.device = seconds_between(start, Clock::now());
  if (kernel.code) { // compiled for this GPU (while the profiler opens) and loaded
    const auto compiling = Clock::now();
    s.module = std::make_unique<RunTimeModule>(
        kernel.id, kernel.code(params, arch.cc_major * 10 + arch.cc_minor));
    s.setup.code = seconds_between(compiling, Clock::now());
  }
  if (options.per_site || options.stalls)
    prepare_sites();
  s.profiler_opening = std::move(opening);
  s.prepare();
  s.upload();
  s.setup.total = seconds_between(start, Clock::now());
}

KernelSession::~KernelSession() = default;

const SessionSetup& KernelSession::setup() {
  m_state->profiler_opened(); // its cost is part of the set-up
  return m_state->setup;
}

const KernelDesc& KernelSession::kernel() const { return *m_state->kernel; }

void KernelSession::switch_code(const KernelDesc& kernel) {
  State& s = *m_state;
  const auto start = Clock::now();
  s.module = std::make_unique<RunTimeModule>(
      kernel.id, kernel.code(s.params, s.arch.cc_major * 10 + s.arch.cc_minor));
  s.kernel = &kernel;
  s.reference_ran = false;
  s.file_listing = {}; // of the code replaced
  if (s.options.per_site || s.options.stalls)
    prepare_sites();
  s.setup.code = seconds_between(start, Clock::now());
}

void KernelSession::retune(const EngineOptions& options) {
  if (!options.metrics.empty())
    metric_catalog().select(options.metrics); // refuse an unknown metric before any work
  m_state->options.timing = options.timing;
  m_state->options.model = options.model;
  m_state->options.metrics = options.metrics;
  m_state->options.energy = options.energy; // a Run after a live edit asks for it anew
}

KernelSession& SessionCache::get(const KernelDesc& kernel, const Params& params,
                                 const EngineOptions& options, bool* made) {
  // A bundled kernel by its id; a run-time one by what its inputs are (a save that changes only
  // its code keeps the session).
  std::string key = kernel.id + " " + kernel.inputs_signature;
  for (const auto& [name, value] : params)
    key += " " + name + "=" + std::to_string(value);
  key += " device=" + std::to_string(options.device) + " seed=" + std::to_string(options.seed) +
         " verify=" + std::to_string(options.verify);
  const bool make = !m_session || key != m_key;
  if (make) {
    m_session.reset(); // free the old buffers before the new ones are allocated
    m_key.clear();
    m_session = std::make_unique<KernelSession>(kernel, params, options);
    m_key = key;
  }
  if (!make && &m_session->kernel() != &kernel)
    m_session->switch_code(kernel);
  if (made)
    *made = make;
  m_session->retune(options);
  return *m_session;
}

RunResult KernelSession::predict(const BlockShape& block) const {
  const State& s = *m_state;
  const KernelRequest request{s.kernel, s.params, block};
  check_kernel_request(request);
  return model_kernel(request, s.arch, s.options.model);
}

namespace {

// The model's result with what the GPU measured of the same launch.
RunResult with_measured(RunResult model, RunResult measured) {
  model.attributes = std::move(measured.attributes);
  model.occupancy = std::move(measured.occupancy);
  model.runtime_blocks_per_sm = measured.runtime_blocks_per_sm;
  model.verification = std::move(measured.verification);
  model.timing = std::move(measured.timing);
  model.counters = std::move(measured.counters);
  model.stalls = std::move(measured.stalls);
  model.energy = std::move(measured.energy);
  return model;
}

} // namespace

RunResult KernelSession::measure(const BlockShape& block, bool with_counters,
                                 const TimedPart& timed_part) {
  State& s = *m_state;
  if (with_counters && s.options.per_site) // the per-site pass places its counts on the model's
    return measure(predict(block), with_counters, timed_part);
  check_kernel_request(KernelRequest{s.kernel, s.params, block});
  // The model on another core while the GPU verifies and times the launch: a live edit waits for
  // the longer of the two, not their sum (for vec_add's 16 M elements each takes about 10 ms).
  std::shared_future<RunResult> model =
      std::async(std::launch::async, [this, block] { return predict(block); }).share();
  RunResult launch_only;
  launch_only.arch = s.arch;
  launch_only.launch = make_launch(*s.kernel, s.params, block, s.arch.sm_count);
  launch_only.dynamic_smem = dynamic_smem_bytes(*s.kernel, s.params, block);
  TimedPart with_model; // the timed part as the result will have it, the model's figures in
  if (timed_part)
    with_model = [&](const RunResult& timed) { timed_part(with_measured(model.get(), timed)); };
  RunResult measured = measure(std::move(launch_only), with_counters, with_model);
  return with_measured(model.get(), std::move(measured));
}

RunResult KernelSession::measure(RunResult predicted, bool with_counters,
                                 const TimedPart& timed_part) {
  if (!m_state->module)
    return measure_launch(std::move(predicted), with_counters, timed_part);
  // A kernel file's fault (an illegal address, a trap) is named with the launch that made it.
  const LaunchShape shape = predicted.launch;
  try {
    return measure_launch(std::move(predicted), with_counters, timed_part);
  } catch (const DeviceError& e) {
    throw DeviceError(launch_words(m_state->kernel->id, shape) + ": " + e.what());
  }
}

RunResult KernelSession::measure_launch(RunResult predicted, bool with_counters,
                                        const TimedPart& timed_part) {
  State& s = *m_state;
  RunResult result = std::move(predicted);
  const BlockShape block = result.launch.block;
  const void* function = s.function();
  result.attributes.reset();
  result.occupancy.reset();
  if (function) {
    result.attributes = device_attributes(function);
    add_occupancy(result, function, block);
  }
  const DeviceLaunch launch{result.launch, result.dynamic_smem, s.pointers, s.stream.get()};
  const auto enqueue = [&](void*) { s.enqueue_unwatched(launch); };
  StreamWork watch; // a kernel file's launch is watched after its stop event, not timed with it
  if (s.module)
    watch = [&](void*) { s.watch(launch, s.kernel->id); };
  TimingOptions timing = s.options.timing;
  if (s.verifies()) {
    result.verification = s.verify(launch);
    timing.warmup_runs = 0; // the verified launch was the warm-up
  } else if (s.options.verify && s.module) {
    result.verification = Verification{};
    result.verification->skipped = "its kernel file says `check none`";
  }
  {
    NvtxRange range("time kernel");
    result.timing = time_cold(enqueue, s.stream.get(), timing, s.flusher, s.sensors, watch);
  }
  const bool later_parts =
      s.options.energy ||
      (with_counters && (!s.options.metrics.empty() || s.options.per_site || s.options.stalls));
  if (later_parts && timed_part)
    timed_part(result);
  if (s.options.energy) {
    NvtxRange range("energy");
    result.energy = measure_energy(enqueue, s.stream.get(),
                                   energy_chunk(result.timing->median_time), s.sensors, watch);
  }
  if (with_counters && !s.options.metrics.empty())
    result.counters = count({block}).front();
  if (with_counters && s.options.per_site)
    result.site_counts = count_sites(result);
  if (with_counters && s.options.stalls)
    result.stalls = sample_stalls(result);
  return result;
}

std::vector<CounterResult> KernelSession::count(const std::vector<BlockShape>& blocks) {
  State& s = *m_state;
  s.profiler_opened();
  NvtxRange range("counters");
  std::vector<DeviceLaunch> launches;
  for (const BlockShape& block : blocks)
    launches.push_back(DeviceLaunch{make_launch(*s.kernel, s.params, block, s.arch.sm_count),
                                    dynamic_smem_bytes(*s.kernel, s.params, block), s.pointers,
                                    s.stream.get()});
  return profiler().profile(
      metric_catalog().select(s.options.metrics), static_cast<int>(launches.size()),
      [&](int) {
        s.flusher.flush(s.stream.get());
        cuda_check(cudaStreamSynchronize(s.stream.get()), "L2 flush");
      },
      [&](int i) {
        s.enqueue(launches[i]);
        cuda_check(cudaGetLastError(), "kernel launch");
        cuda_check(cudaStreamSynchronize(s.stream.get()), "kernel run");
      });
}

CounterCosts counter_costs() { return profiler().costs(); }

CounterCosts counter_costs_since(const CounterCosts& before) {
  CounterCosts now = profiler().costs();
  now.open -= before.open;
  now.configure -= before.configure;
  now.configs_built -= before.configs_built;
  now.session -= before.session;
  now.passes.erase(now.passes.begin(),
                   now.passes.begin() + static_cast<std::ptrdiff_t>(before.passes.size()));
  now.flushes -= before.flushes;
  now.decode -= before.decode;
  return now;
}

SassCounts KernelSession::count_sass(const BlockShape& block,
                                     const std::vector<std::string>& metrics) {
  State& s = *m_state;
  s.profiler_opened();
  NvtxRange range("SASS metrics");
  const DeviceLaunch launch{make_launch(*s.kernel, s.params, block, s.arch.sm_count),
                            dynamic_smem_bytes(*s.kernel, s.params, block), s.pointers,
                            s.stream.get()};
  // Flushed before the pass, so the flush's own kernel is not patched and counted.
  s.flusher.flush(s.stream.get());
  cuda_check(cudaStreamSynchronize(s.stream.get()), "L2 flush");
  const auto run_once = [&] {
    s.enqueue(launch);
    cuda_check(cudaGetLastError(), "kernel launch");
    cuda_check(cudaStreamSynchronize(s.stream.get()), "kernel run");
  };
  return profiler().sass(metrics, run_once, optional_sass_metrics());
}

namespace {

// The embedded cubin of `family` whose CRC is `crc`: the code that ran, with its line table.
const EmbeddedCubinView* cubin_with_crc(const std::string& family, std::uint32_t crc) {
  static std::map<const unsigned char*, std::uint32_t> crcs; // computed once per cubin
  static std::mutex guard;
  const std::lock_guard lock(guard);
  for (const EmbeddedCubinView& c : embedded_cubins()) {
    if (c.family != family)
      continue;
    if (!crcs.count(c.bytes))
      crcs[c.bytes] = cubin_crc(c.bytes, c.size);
    if (crcs[c.bytes] == crc)
      return &c;
  }
  return nullptr;
}

// The SASS text of `function`'s instruction at `pc`, where the listing has it; "" else.
// The listing's line of a function's instruction at `pc` (the listing is in PC order); nullptr
// where it has neither.
const SassLine* listing_line(const SassListing& listing, const std::string& function,
                             std::uint32_t pc) {
  const auto lines = listing.functions.find(function);
  if (lines == listing.functions.end())
    return nullptr;
  const auto at =
      std::lower_bound(lines->second.begin(), lines->second.end(), pc,
                       [](const SassLine& line, std::uint32_t p) { return line.pc < p; });
  return at != lines->second.end() && at->pc == pc ? &*at : nullptr;
}

std::string sass_text_at(const SassListing& listing, const std::string& function,
                         std::uint32_t pc) {
  const SassLine* line = listing_line(listing, function, pc);
  return line ? line->text : "";
}

// Each PC's line: nvdisasm's listing (`-g` reads the cubin's line table, as CUPTI does) where it
// holds the function and the PC, CUPTI's correlation for the rest. CUPTI parses the whole cubin
// again for every PC it is asked (a quarter to half a second for a matmul's few hundred sampled
// instructions), the listing once per process.
std::vector<SourcePlace> source_places(const SassListing& listing, const std::string& function,
                                       const unsigned char* cubin, std::size_t size,
                                       const std::vector<std::uint32_t>& pcs) {
  std::vector<SourcePlace> places(pcs.size());
  std::vector<std::uint32_t> unlisted;
  for (std::size_t i = 0; i < pcs.size(); ++i) {
    const SassLine* found = listing_line(listing, function, pcs[i]);
    if (found && found->line > 0)
      places[i] = {found->file, found->line};
    else
      unlisted.push_back(pcs[i]);
  }
  if (unlisted.empty())
    return places;
  const std::vector<SourcePlace> asked = sass_source_places(cubin, size, function, unlisted);
  for (std::size_t i = 0, next = 0; i < pcs.size(); ++i)
    if (next < unlisted.size() && pcs[i] == unlisted[next] && places[i].line == 0)
      places[i] = asked[next++];
  return places;
}

// Each memory instruction of `own` (one function's) with its line and, where a listing has it,
// its SASS text.
std::vector<MeasuredInstruction> memory_instructions(const std::vector<const SassInstruction*>& own,
                                                     const std::vector<SourcePlace>& places,
                                                     const SassListing& listing) {
  std::vector<MeasuredInstruction> memory;
  for (std::size_t k = 0; k < own.size(); ++k)
    for (MeasuredInstruction& m : memory_accesses(own[k]->pc_offset, own[k]->values)) {
      m.file = places[k].file;
      m.line = places[k].line;
      m.sass = sass_text_at(listing, own.front()->function, m.pc);
      memory.push_back(std::move(m));
    }
  return memory;
}

std::vector<std::uint32_t> pcs_of(const std::vector<const SassInstruction*>& own) {
  std::vector<std::uint32_t> pcs;
  for (const SassInstruction* i : own)
    pcs.push_back(i->pc_offset);
  return pcs;
}

} // namespace

SiteCounts KernelSession::count_sites(const RunResult& predicted) {
  State& s = *m_state;
  const auto start = std::chrono::steady_clock::now();
  SiteCounts counts;
  if (s.kernel->kind != KernelKind::bundled && !s.module) {
    counts.reason = no_index_math_reason(s.kernel->kind);
    return counts;
  }
  prepare_sites();
  const SassCounts sass = count_sass(predicted.launch.block, site_sass_metrics());
  if (!sass.available) {
    counts.reason = sass.reason;
    return counts;
  }
  counts = s.module ? count_file_lines(sass, predicted) : count_bundled_sites(sass, predicted);
  counts.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return counts;
}

SiteCounts KernelSession::count_bundled_sites(const SassCounts& sass, const RunResult& predicted) {
  const State& s = *m_state;
  SiteCounts counts;
  const std::string function = kernel_function_name(*s.kernel, s.params);
  std::vector<const SassInstruction*> own;
  for (const SassInstruction& i : sass.instructions)
    if (demangled_function_name(i.function) == function)
      own.push_back(&i);
  if (own.empty()) {
    counts.reason = "the SASS pass saw no instruction of " + function;
    return counts;
  }
  const std::string family = kernel_family(s.kernel->id);
  const EmbeddedCubinView* cubin = cubin_with_crc(family, own.front()->cubin_crc);
  if (!cubin) {
    counts.reason = "the code that ran is not a cubin this binary holds (it was built for other "
                    "architectures, so the driver compiled PTX): no line table to place its "
                    "instructions";
    return counts;
  }
  const std::vector<SourcePlace> places =
      sass_source_places(cubin->bytes, cubin->size, own.front()->function, pcs_of(own));
  counts = attribute_sites(*s.kernel, s.params, predicted.prediction,
                           memory_instructions(own, places, sass_listing(family, cubin->sm)));
  counts.function = own.front()->function;
  return counts;
}

// A person's kernel file: its instructions are placed on the file's own lines (NVRTC compiled it
// with -lineinfo under the file's path), summed per line, and set beside the sites the model found
// on those lines.
SiteCounts KernelSession::count_file_lines(const SassCounts& sass, const RunResult& predicted) {
  const State& s = *m_state;
  SiteCounts counts;
  const RunTimeCode& code = s.module->code();
  const auto* bytes = reinterpret_cast<const unsigned char*>(code.cubin->data());
  const std::size_t size = code.cubin->size();
  // The text on another thread while the instructions are placed (nvdisasm takes tens of ms).
  std::future<SassListing> listing = std::async(
      std::launch::async, [bytes, size] { return disassemble_cubin(bytes, size, "kernel-file"); });
  std::vector<const SassInstruction*> own;
  for (const SassInstruction& i : sass.instructions)
    if (i.function == code.function)
      own.push_back(&i);
  if (own.empty()) {
    counts.reason = "the SASS pass saw no instruction of " + code.function;
    return counts;
  }
  if (own.front()->cubin_crc != cubin_crc(bytes, size)) {
    counts.reason = "the code that ran is not the cubin NVRTC made for this file: no line table "
                    "to place its instructions";
    return counts;
  }
  const std::vector<SourcePlace> places =
      sass_source_places(bytes, size, code.function, pcs_of(own));
  const std::shared_ptr<const KernelFile> source = kernel_file_of(s.kernel->id);
  const std::string file = source ? source->path.filename().string() : std::string();
  std::map<int, LineIssues> lines;
  for (std::size_t k = 0; k < own.size(); ++k)
    if (places[k].file == file && places[k].line > 0) {
      LineIssues& line = lines[places[k].line];
      line.line = places[k].line;
      add_to_line(line, own[k]->values);
    }
  std::vector<LineIssues> by_line;
  for (const auto& [number, line] : lines)
    by_line.push_back(line);
  counts = attribute_lines(file, memory_instructions(own, places, listing.get()),
                           std::move(by_line), predicted.prediction);
  counts.function = code.function;
  return counts;
}

namespace {

// About this many samples per launch: a line with 5 % of them has thousands, so its top reasons
// hold to a few percent, and a launch of a few microseconds is sampled at 32 cycles.
constexpr double kWantedStallSamples = 200'000;

// The kernel's own sampled instructions as stalls: reasons by ncu's names (any other CUPTI name
// counted as "other" and listed), each placed on its line, and `file` the source file holding most
// of the samples unless given.
StallSamples stalls_of(const std::vector<const SassInstruction*>& own,
                       const std::vector<SourcePlace>& places, const SassListing& listing,
                       std::string file) {
  StallSamples stalls;
  std::map<std::string, std::uint64_t> by_file;
  for (std::size_t k = 0; k < own.size(); ++k) {
    StalledInstruction i{.pc = own[k]->pc_offset,
                         .sass = sass_text_at(listing, own.front()->function, own[k]->pc_offset),
                         .file = places[k].file,
                         .line = places[k].line};
    std::map<std::string, StallCount> reasons;
    for (const auto& [name, samples] : own[k]->values) {
      CuptiStallName parsed = parse_cupti_stall_name(name);
      if (!known_stall_reason(parsed.reason) || parsed.reason == "other") {
        if (std::find(stalls.unnamed.begin(), stalls.unnamed.end(), name) == stalls.unnamed.end())
          stalls.unnamed.push_back(name);
        parsed.reason = "other";
      }
      StallCount& count = reasons[parsed.reason];
      count.reason = parsed.reason;
      (parsed.not_issued ? count.not_issued : count.samples) += static_cast<std::uint64_t>(samples);
    }
    for (auto& [reason, count] : reasons)
      if (count.samples > 0 || count.not_issued > 0)
        i.reasons.push_back(count);
    if (!i.file.empty())
      by_file[i.file] += i.samples();
    stalls.instructions.push_back(std::move(i));
  }
  std::sort(stalls.instructions.begin(), stalls.instructions.end(),
            [](const auto& a, const auto& b) { return a.pc < b.pc; });
  if (file.empty() && !by_file.empty())
    file = std::max_element(by_file.begin(), by_file.end(), [](const auto& a, const auto& b) {
             return a.second < b.second;
           })->first;
  stalls.file = file;
  stalls.function = own.front()->function;
  summarise_stalls(stalls);
  stalls.available = true;
  return stalls;
}

} // namespace

namespace {

// What a pass that missed the kernel saw: its samples and the functions they fell in.
std::string seen_instead(const PcSampleCounts& pcs) {
  std::set<std::string> functions;
  for (const SassInstruction& i : pcs.instructions)
    functions.insert(i.function);
  std::string text = std::to_string(pcs.total_samples) + " samples (" +
                     std::to_string(pcs.dropped_samples) + " dropped) on " +
                     std::to_string(pcs.instructions.size()) + " instructions";
  const char* separator = " of ";
  for (const std::string& f : functions) {
    text += separator + demangled_function_name(f);
    separator = ", ";
  }
  return text;
}

} // namespace

// The cubin a sampled launch's kernels are loaded anew from (engine/fresh_launch.h): a kernel
// file's, or the bundled family's for this GPU; none where this binary holds none (a library's
// kernels, an architecture the build did not compile).
struct CubinBytes {
  const unsigned char* bytes = nullptr;
  std::size_t size = 0;
};
CubinBytes sampled_cubin(const KernelDesc& kernel, const RunTimeModule* module, const Arch& arch) {
  if (module)
    return {reinterpret_cast<const unsigned char*>(module->code().cubin->data()),
            module->code().cubin->size()};
  if (kernel.kind != KernelKind::bundled)
    return {};
  const int sm = arch.cc_major * 10 + arch.cc_minor;
  for (const EmbeddedCubinView& c : embedded_cubins())
    if (c.family == kernel_family(kernel.id) && c.sm == sm)
      return {c.bytes, c.size};
  return {};
}

StallSamples KernelSession::sample_stalls(const RunResult& measured) {
  prepare_sites(); // where the session was made without stalls: its listing made meanwhile
  State& s = *m_state;
  const auto start = Clock::now();
  s.profiler_opened();
  NvtxRange range("PC sampling");
  const BlockShape block = measured.launch.block;
  const DeviceLaunch launch{make_launch(*s.kernel, s.params, block, s.arch.sm_count),
                            dynamic_smem_bytes(*s.kernel, s.params, block), s.pointers,
                            s.stream.get()};
  const TimingStats* timing = measured.timing ? &*measured.timing : nullptr;
  const double mhz = !timing                ? 0
                     : timing->sm_clock_mhz ? *timing->sm_clock_mhz
                                            : timing->default_clock_mhz;
  const double cycles = timing ? timing->median_time * 1e-3 * (mhz > 0 ? mhz : 1500) * 1e6 : 0;
  const int period = sampling_period_for(cycles, s.arch.sm_count, kWantedStallSamples);
  // Flushed before the pass, like the counted launches: the flush's own kernel is not sampled.
  s.flusher.flush(s.stream.get());
  cuda_check(cudaStreamSynchronize(s.stream.get()), "L2 flush");
  // The launch again from a fresh load of its code (engine/fresh_launch.h) where this binary
  // holds that code: a kernel file's through its own launch code, a bundled kernel's as captured;
  // else, or where it cannot be captured, sampled as it is.
  const CubinBytes cubin = sampled_cubin(*s.kernel, s.module.get(), s.arch);
  std::optional<FreshLaunch> captured;
  if (cubin.bytes && !s.module) {
    try {
      captured.emplace([&](cudaStream_t stream) {
        DeviceLaunch on_capture = launch;
        on_capture.stream = stream;
        s.enqueue_unwatched(on_capture);
      });
    } catch (const DeviceError&) {
      cudaGetLastError();
    }
  }
  int fresh = -1; // -1: ran as it is
  const double setup_seconds = seconds_between(start, Clock::now());
  const PcSampleCounts pcs = profiler().sample_pcs(period, [&] {
    std::optional<FreshLibrary> library;
    if (cubin.bytes && (s.module || captured))
      library.emplace(cubin.bytes, cubin.size);
    const void* file_kernel =
        library && s.module ? library->kernel(s.module->code().function) : nullptr;
    if (library && library->loaded() && captured) {
      fresh = captured->run(*library, s.stream.get());
      return;
    }
    if (file_kernel) {
      cudaFuncAttributes allowed{};
      cuda_check(cudaFuncGetAttributes(&allowed, s.module->function()), "cudaFuncGetAttributes");
      cuda_check(cudaFuncSetAttribute(file_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      allowed.maxDynamicSharedSizeBytes),
                 "cudaFuncSetAttribute(the fresh copy's dynamic shared memory)");
      s.module->launch(file_kernel, launch);
      cuda_check(cudaGetLastError(), "kernel launch");
      s.watch(launch, s.kernel->id);
      cuda_check(cudaStreamSynchronize(s.stream.get()), "kernel run");
      fresh = 1;
      return;
    }
    s.enqueue(launch);
    cuda_check(cudaGetLastError(), "kernel launch");
    cuda_check(cudaStreamSynchronize(s.stream.get()), "kernel run");
  });
  const auto placing = Clock::now();
  StallSamples stalls = pcs.available ? own_stalls(pcs) : StallSamples{};
  stalls.setup_seconds = setup_seconds;
  stalls.place_seconds = seconds_between(placing, Clock::now());
  if (!pcs.available)
    stalls.reason = pcs.reason;
  else if (!stalls.available && fresh <= 0)
    stalls.reason += fresh == 0 ? " (none of the launch's kernels is in this binary's cubin: "
                                  "CUPTI places samples only in code loaded while it samples)"
                                : " (the launch ran from the code loaded before sampling began, "
                                  "in which CUPTI may place no samples)";
  else if (pcs.buffer_full && stalls.available)
    stalls.reason = "the sampling buffer filled: some samples were lost";
  stalls.period = period;
  stalls.total_samples = pcs.total_samples;
  stalls.dropped_samples = pcs.dropped_samples;
  stalls.seconds = pcs.seconds;
  return stalls;
}

// The samples of this session's kernel, on the lines of its code: the embedded cubin's (a bundled
// kernel) or NVRTC's (a kernel file).
StallSamples KernelSession::own_stalls(const PcSampleCounts& pcs) const {
  const State& s = *m_state;
  StallSamples none;
  const std::string function =
      s.module ? s.module->code().function : kernel_function_name(*s.kernel, s.params);
  std::vector<const SassInstruction*> own;
  for (const SassInstruction& i : pcs.instructions)
    if (s.module ? i.function == function : demangled_function_name(i.function) == function)
      own.push_back(&i);
  if (own.empty()) {
    none.reason = "PC sampling saw no instruction of " + function + ": " + seen_instead(pcs);
    return none;
  }
  if (s.module) {
    const RunTimeCode& code = s.module->code();
    const auto* bytes = reinterpret_cast<const unsigned char*>(code.cubin->data());
    const std::size_t size = code.cubin->size();
    if (own.front()->cubin_crc != cubin_crc(bytes, size)) {
      none.reason = "the code that ran is not the cubin NVRTC made for this file: no line table "
                    "to place its samples";
      return none;
    }
    const std::shared_ptr<const KernelFile> source = kernel_file_of(s.kernel->id);
    const SassListing listing = s.file_listing.valid()
                                    ? s.file_listing.get()
                                    : disassemble_cubin(bytes, size, "kernel-file");
    return stalls_of(own, source_places(listing, own.front()->function, bytes, size, pcs_of(own)),
                     listing, source ? source->path.filename().string() : std::string());
  }
  const std::string family = kernel_family(s.kernel->id);
  const EmbeddedCubinView* cubin = cubin_with_crc(family, own.front()->cubin_crc);
  if (!cubin) {
    none.reason = "the code that ran is not a cubin this binary holds (the driver compiled PTX): "
                  "no line table to place its samples";
    return none;
  }
  std::string file; // the family file, whose lines the Source panel shows; else the busiest one
  try {
    file = family_source(*s.kernel).file;
  } catch (const UsageError&) {
  }
  const SassListing& listing = sass_listing(family, cubin->sm);
  return stalls_of(
      own, source_places(listing, own.front()->function, cubin->bytes, cubin->size, pcs_of(own)),
      listing, file);
}

void KernelSession::prepare_sites() {
  State& s = *m_state;
  if (s.kernel->kind == KernelKind::bundled)
    prefetch_sass_listing(kernel_family(s.kernel->id), s.arch.cc_major * 10 + s.arch.cc_minor);
  else if (s.module && !s.file_listing.valid())
    s.file_listing =
        std::async(std::launch::async, [cubin = s.module->code().cubin] {
          return disassemble_cubin(reinterpret_cast<const unsigned char*>(cubin->data()),
                                   cubin->size(), "kernel-file");
        }).share();
}

RunResult run_kernel(const KernelRequest& request, const EngineOptions& options) {
  check_kernel_request(request);
  return KernelSession(*request.kernel, request.params, options).measure(request.block);
}

} // namespace wl
