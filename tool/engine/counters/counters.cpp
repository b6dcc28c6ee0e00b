#include "engine/counters/counters.h"

#include "base/error.h"
#include "base/loaded_from.h"
#include "base/text_format.h"
#include "engine/counters/cupti_check.h"
#include "engine/counters/pc_sampling.h"
#include "io/assets.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <utility>

#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>
#include <cupti_version.h>
#include <nlohmann/json.hpp>

namespace wl {

namespace {

std::string fix_for(CUptiResult status) {
  switch (status) {
  case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
  case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
    return "no permission for GPU performance counters (ERR_NVGPUCTRPERM): run as root or with "
           "CAP_SYS_ADMIN "
           "(CAP_PERFMON on driver R565+), or allow all users with 'options nvidia "
           "NVreg_RestrictProfilingToAdminUsers=0' in /etc/modprobe.d/, update-initramfs -u and "
           "reboot";
  case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    return "another profiler (ncu, nsys, cuda-gdb) is attached to this process; CUPTI allows one";
  case CUPTI_ERROR_HARDWARE_BUSY:
    return "another process profiles this GPU (ncu, or another worker on the same GPU); CUPTI lets "
           "one process profile a GPU at a time";
  case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    return "counters are not available on a MIG slice";
  case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    return "counters are not available under WSL";
  case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    return "counters are not available on this virtual GPU";
  case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    return "counters are not available on a CMP device";
  default:
    return "";
  }
}

} // namespace

void cupti_check(CUptiResult status, const char* call) {
  if (status == CUPTI_SUCCESS)
    return;
  const char* text = nullptr;
  cuptiGetResultString(status, &text);
  const std::string fix = fix_for(status);
  throw CuptiFailure{std::string(call) + ": " + (text ? text : "CUPTI error") +
                     (fix.empty() ? "" : "; " + fix)};
}

namespace {

template <typename Params> Params params(std::size_t size) {
  Params p{};
  p.structSize = size;
  return p;
}
#define WL_PARAMS(Type) params<Type>(Type##_STRUCT_SIZE)

// The runtime's current context, through the driver entry point so that WarpLens does not link
// libcuda (machines with no driver still start it).
CUcontext current_context() {
  using GetCurrent = CUresult (*)(CUcontext*);
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaFree(nullptr) != cudaSuccess ||
      cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &function, 12000, cudaEnableDefault,
                                       &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess)
    throw CuptiFailure{"cannot reach the CUDA driver's current context"};
  CUcontext context = nullptr;
  reinterpret_cast<GetCurrent>(function)(&context);
  return context;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int current_device() {
  int device = 0;
  cudaGetDevice(&device);
  return device;
}

} // namespace

struct CounterProfiler::State {
  const MetricCatalog& catalog;
  bool tried = false;
  std::string reason; // set when the profiler could not open
  double open_seconds = 0;
  CounterCosts costs;
  std::string chip;
  std::vector<std::uint8_t> availability;
  CUpti_Profiler_Host_Object* host = nullptr;
  CUpti_RangeProfiler_Object* range = nullptr;
  std::map<std::string, std::string> resolved; // metric key -> the name this chip knows
  // A host object and config image per metric list, made once: the host object that built a
  // config also evaluates the counter data it produces.
  struct Config {
    CUpti_Profiler_Host_Object* host = nullptr;
    std::vector<std::uint8_t> image;
    std::vector<std::uint8_t> counter_data; // sized for `ranges` ranges, re-initialised per session
    int ranges = 0;
    int passes = 0; // what the config image needs, as CUPTI scheduled it
  };
  const Config* last_config = nullptr; // the one the range profiler last ran
  CUcontext context = nullptr;
  // The SASS metrics configuration stays set once made: setting one again after unsetting it
  // fails with CUPTI_ERROR_OUT_OF_MEMORY (CUDA 13.0, H100), so each pass after the first with the
  // same metrics only enables and disables the patching.
  struct SassConfig {
    std::uint32_t device = 0;
    std::vector<std::uint64_t> ids;
  };
  std::optional<SassConfig> sass_config;
  std::map<std::string, Config> configs; // keyed by the comma-joined metric names

  explicit State(const MetricCatalog& c) : catalog(c) {}

  void open(int device);
  bool chip_has(const std::string& name);
  CUpti_Profiler_Host_Object* new_host();
  void resolve(const std::vector<const MetricInfo*>& metrics,
               std::vector<const MetricInfo*>& collected, std::vector<std::string>& names,
               std::vector<std::string>& missing) const;
  Config build_config(const std::vector<std::string>& names);
  Config& config_for(const std::vector<std::string>& names);
  std::vector<std::vector<double>> collect(const std::vector<std::string>& names, int launches,
                                           const std::function<void(int)>& before_launch,
                                           const std::function<void(int)>& launch, int& passes);
  void enable_range();
  void disable_range();
  void restart();
  void close();
  // For a pass of its own (SASS metrics, PC sampling): opens the profiler where nothing has yet,
  // and says why it cannot count ("" when it can).
  const std::string& ready_for_pass();
  // After such a pass, which set the range profiler aside: enabled again, or why not kept.
  void restore_range(const char* after);
  // Restores it on the way out of a pass that cleans up after itself however it ends (PC
  // sampling is disabled again even when its launch fails with a CUDA error).
  struct RangeSetAside {
    State& s;
    const char* pass;
    ~RangeSetAside() { s.restore_range(pass); }
  };
  void configure_sass(std::uint32_t device, const std::vector<std::uint64_t>& ids);
};

void CounterProfiler::State::open(int device) {
  const auto start = std::chrono::steady_clock::now();
  tried = true;
  try {
    // CUPTI needs the driver initialised (counting the devices does that), not a context: a
    // caller may be making the context meanwhile.
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || device >= devices)
      throw CuptiFailure{"no CUDA device " + std::to_string(device)};
    auto init = WL_PARAMS(CUpti_Profiler_Initialize_Params);
    WL_CUPTI(cuptiProfilerInitialize(&init));
    if (cudaSetDevice(device) != cudaSuccess)
      throw CuptiFailure{"no CUDA device " + std::to_string(device)};
    context = current_context();

    auto supported = WL_PARAMS(CUpti_Profiler_DeviceSupported_Params);
    supported.cuDevice = device;
    supported.api = CUPTI_PROFILER_RANGE_PROFILING;
    WL_CUPTI(cuptiProfilerDeviceSupported(&supported));
    if (supported.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
      throw CuptiFailure{std::string("this device does not support counters") +
                         (supported.wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? " (WSL)" : "") +
                         (supported.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED
                              ? " (vGPU: profiling not enabled)"
                              : "") +
                         (supported.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED
                              ? " (confidential compute)"
                              : "")};

    auto name = WL_PARAMS(CUpti_Device_GetChipName_Params);
    name.deviceIndex = static_cast<size_t>(device);
    WL_CUPTI(cuptiDeviceGetChipName(&name));
    chip = name.pChipName;

    auto available = WL_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
    available.ctx = context;
    WL_CUPTI(cuptiProfilerGetCounterAvailability(&available));
    availability.resize(available.counterAvailabilityImageSize);
    available.pCounterAvailabilityImage = availability.data();
    WL_CUPTI(cuptiProfilerGetCounterAvailability(&available));

    host = new_host();
    enable_range();

    for (const MetricInfo& m : catalog.metrics) {
      if (chip_has(m.name)) {
        resolved[m.key] = m.name;
        continue;
      }
      for (const std::string& fallback : m.fallbacks)
        if (chip_has(fallback)) {
          resolved[m.key] = fallback;
          break;
        }
    }
  } catch (const CuptiFailure& failure) {
    reason = failure.what;
    close();
  }
  open_seconds = seconds_since(start);
  costs.open = open_seconds;
}

bool CounterProfiler::State::chip_has(const std::string& metric) {
  auto props = WL_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params);
  props.pHostObject = host;
  props.pMetricName = metric.c_str();
  return cuptiProfilerHostGetMetricProperties(&props) == CUPTI_SUCCESS;
}

CUpti_Profiler_Host_Object* CounterProfiler::State::new_host() {
  auto init = WL_PARAMS(CUpti_Profiler_Host_Initialize_Params);
  init.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  init.pChipName = chip.c_str();
  init.pCounterAvailabilityImage = availability.data();
  WL_CUPTI(cuptiProfilerHostInitialize(&init));
  return init.pHostObject;
}

namespace {

// CUPTI schedules counters into passes greedily, in the order the metrics are added, so one list
// can need a different number of passes in another order (the default set on the H100: 3 as
// listed, 2 sorted by name). Every pass replays every launch once more, so a few orders are
// tried and the one needing the fewest passes is kept.
std::vector<std::vector<std::string>> candidate_orders(const std::vector<std::string>& names) {
  constexpr int kOrders = 8;
  std::vector<std::vector<std::string>> orders{names, names};
  std::sort(orders[1].begin(), orders[1].end());
  std::mt19937 shuffler(20261121); // fixed: the same list is always scheduled the same way
  while (static_cast<int>(orders.size()) < kOrders && names.size() > 2) {
    orders.push_back(names);
    std::shuffle(orders.back().begin(), orders.back().end(), shuffler);
  }
  return orders;
}

void deinitialize(CUpti_Profiler_Host_Object* host) {
  if (!host)
    return;
  auto deinit = WL_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
  deinit.pHostObject = host;
  cuptiProfilerHostDeinitialize(&deinit);
}

} // namespace

// A host object with `names` added, its config image and the passes that image needs.
CounterProfiler::State::Config
CounterProfiler::State::build_config(const std::vector<std::string>& names) {
  const auto start = std::chrono::steady_clock::now();
  Config config;
  // The host object made at opening (to check metric names) serves the first config; each later
  // one needs its own, since a host object evaluates only the metrics added to it.
  config.host = host ? std::exchange(host, nullptr) : new_host();
  try {
    std::vector<const char*> pointers;
    for (const std::string& n : names)
      pointers.push_back(n.c_str());
    auto add = WL_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
    add.pHostObject = config.host;
    add.ppMetricNames = pointers.data();
    add.numMetrics = pointers.size();
    WL_CUPTI(cuptiProfilerHostConfigAddMetrics(&add));
    auto size = WL_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
    size.pHostObject = config.host;
    WL_CUPTI(cuptiProfilerHostGetConfigImageSize(&size));
    config.image.resize(size.configImageSize);
    auto get = WL_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
    get.pHostObject = config.host;
    get.configImageSize = config.image.size();
    get.pConfigImage = config.image.data();
    WL_CUPTI(cuptiProfilerHostGetConfigImage(&get));
    auto passes = WL_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
    passes.configImageSize = config.image.size();
    passes.pConfigImage = config.image.data();
    WL_CUPTI(cuptiProfilerHostGetNumOfPasses(&passes));
    config.passes = static_cast<int>(passes.numOfPasses);
  } catch (const CuptiFailure&) {
    deinitialize(config.host);
    throw;
  }
  costs.configure += seconds_since(start);
  ++costs.configs_built;
  return config;
}

CounterProfiler::State::Config&
CounterProfiler::State::config_for(const std::vector<std::string>& names) {
  std::string key;
  for (const std::string& n : names)
    key += n + ",";
  if (const auto it = configs.find(key); it != configs.end())
    return it->second;
  std::optional<Config> best;
  try {
    for (const std::vector<std::string>& order : candidate_orders(names)) {
      Config config = build_config(order);
      if (best && config.passes >= best->passes) {
        deinitialize(config.host);
        continue;
      }
      if (best)
        deinitialize(best->host);
      best = std::move(config);
      if (best->passes <= 1)
        break;
    }
  } catch (const CuptiFailure&) {
    if (best)
      deinitialize(best->host);
    throw;
  }
  return configs.emplace(key, std::move(*best)).first->second;
}

// One user range per launch, all in one profiling session: every pass runs each launch once
// (user replay), so the session's fixed cost (configuration, start and stop, decoding) is paid
// once for the whole batch rather than once per launch.
std::vector<std::vector<double>>
CounterProfiler::State::collect(const std::vector<std::string>& names, int launches,
                                const std::function<void(int)>& before_launch,
                                const std::function<void(int)>& launch, int& passes) {
  Config& config = config_for(names);
  const auto session_start = std::chrono::steady_clock::now();
  // Initialising a second list's counter-data image while the range profiler was still set up
  // for the first list crashed inside CUPTI (in CounterDataImageInitialize), so a change of list
  // starts from a freshly enabled range profiler before anything is sized or initialised.
  if (last_config != &config && last_config != nullptr)
    restart();
  last_config = &config;
  std::vector<const char*> pointers;
  for (const std::string& n : names)
    pointers.push_back(n.c_str());
  if (config.ranges != launches) {
    auto size = WL_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
    size.pRangeProfilerObject = range;
    size.pMetricNames = pointers.data();
    size.numMetrics = pointers.size();
    size.maxNumOfRanges = static_cast<size_t>(launches);
    size.maxNumRangeTreeNodes = static_cast<size_t>(launches);
    WL_CUPTI(cuptiRangeProfilerGetCounterDataSize(&size));
    config.counter_data.assign(size.counterDataSize, 0);
    config.ranges = launches;
  }
  std::vector<std::uint8_t>& data = config.counter_data;
  auto init = WL_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
  init.pRangeProfilerObject = range;
  init.counterDataSize = data.size();
  init.pCounterData = data.data();
  WL_CUPTI(cuptiRangeProfilerCounterDataImageInitialize(&init));

  auto set = WL_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
  set.pRangeProfilerObject = range;
  set.configSize = config.image.size();
  set.pConfig = config.image.data();
  set.counterDataImageSize = data.size();
  set.pCounterDataImage = data.data();
  set.range = CUPTI_UserRange;
  set.replayMode = CUPTI_UserReplay;
  set.maxRangesPerPass = static_cast<size_t>(launches);
  set.numNestingLevels = 1;
  set.minNestingLevel = 1;
  set.passIndex = 0;
  set.targetNestingLevel = 1;
  WL_CUPTI(cuptiRangeProfilerSetConfig(&set));
  costs.session += seconds_since(session_start);

  passes = 0;
  for (bool done = false; !done;) {
    const auto pass_start = std::chrono::steady_clock::now();
    auto start = WL_PARAMS(CUpti_RangeProfiler_Start_Params);
    start.pRangeProfilerObject = range;
    WL_CUPTI(cuptiRangeProfilerStart(&start));
    for (int i = 0; i < launches; ++i) {
      const auto flush_start = std::chrono::steady_clock::now();
      before_launch(i); // outside the range: not counted
      costs.flushes += seconds_since(flush_start);
      const std::string name = "launch " + std::to_string(i);
      auto push = WL_PARAMS(CUpti_RangeProfiler_PushRange_Params);
      push.pRangeProfilerObject = range;
      push.pRangeName = name.c_str();
      WL_CUPTI(cuptiRangeProfilerPushRange(&push));
      launch(i);
      auto pop = WL_PARAMS(CUpti_RangeProfiler_PopRange_Params);
      pop.pRangeProfilerObject = range;
      WL_CUPTI(cuptiRangeProfilerPopRange(&pop));
    }
    auto stop = WL_PARAMS(CUpti_RangeProfiler_Stop_Params);
    stop.pRangeProfilerObject = range;
    WL_CUPTI(cuptiRangeProfilerStop(&stop));
    done = stop.isAllPassSubmitted != 0;
    ++passes;
    costs.passes.push_back(seconds_since(pass_start));
  }
  const auto decode_start = std::chrono::steady_clock::now();
  auto decode = WL_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
  decode.pRangeProfilerObject = range;
  WL_CUPTI(cuptiRangeProfilerDecodeData(&decode));
  if (decode.numOfRangeDropped > 0)
    throw CuptiFailure{std::to_string(decode.numOfRangeDropped) + " of " +
                       std::to_string(launches) + " profiled ranges were dropped"};

  std::vector<std::vector<double>> values(static_cast<std::size_t>(launches),
                                          std::vector<double>(names.size()));
  for (int i = 0; i < launches; ++i) {
    auto evaluate = WL_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
    evaluate.pHostObject = config.host;
    evaluate.pCounterDataImage = data.data();
    evaluate.counterDataImageSize = data.size();
    evaluate.rangeIndex = static_cast<size_t>(i);
    evaluate.ppMetricNames = pointers.data();
    evaluate.numMetrics = pointers.size();
    evaluate.pMetricValues = values[i].data();
    WL_CUPTI(cuptiProfilerHostEvaluateToGpuValues(&evaluate));
  }
  costs.decode += seconds_since(decode_start);
  return values;
}

// The chip's name for each metric it has; those it lacks go to `missing`.
void CounterProfiler::State::resolve(const std::vector<const MetricInfo*>& metrics,
                                     std::vector<const MetricInfo*>& collected,
                                     std::vector<std::string>& names,
                                     std::vector<std::string>& missing) const {
  for (const MetricInfo* m : metrics) {
    const auto it = resolved.find(m->key);
    if (it == resolved.end()) {
      missing.push_back(m->name);
      continue;
    }
    collected.push_back(m);
    names.push_back(it->second);
  }
}

// A counter-data image is sized by the range profiler object it was made for: after a new one is
// enabled every session sizes its own again (reusing one crashed inside CUPTI).
void CounterProfiler::State::enable_range() {
  auto enable = WL_PARAMS(CUpti_RangeProfiler_Enable_Params);
  enable.ctx = context;
  WL_CUPTI(cuptiRangeProfilerEnable(&enable));
  range = enable.pRangeProfilerObject;
  for (auto& [names, config] : configs)
    config.ranges = 0;
}

void CounterProfiler::State::disable_range() {
  if (!range)
    return;
  auto disable = WL_PARAMS(CUpti_RangeProfiler_Disable_Params);
  disable.pRangeProfilerObject = range;
  range = nullptr;
  last_config = nullptr;
  WL_CUPTI(cuptiRangeProfilerDisable(&disable));
}

// Sets the SASS metrics configuration, or keeps the one set when it is the same: another one is
// set after unsetting the first, which this CUPTI refuses (see SassConfig).
void CounterProfiler::State::configure_sass(std::uint32_t device,
                                            const std::vector<std::uint64_t>& ids) {
  if (sass_config && sass_config->ids == ids)
    return;
  if (sass_config) {
    auto unset = WL_PARAMS(CUpti_SassMetricsUnsetConfig_Params);
    unset.deviceIndex = sass_config->device;
    sass_config.reset();
    WL_CUPTI(cuptiSassMetricsUnsetConfig(&unset));
  }
  // Summed over the GPU. Per SM the sums came out 3 to 12 % off the GPU-wide ones and ncu's on
  // an H100 (CUDA 13.0), and a small kernel's pass took 0.5 s instead of 0.02 s.
  std::vector<CUpti_SassMetrics_Config> configs;
  for (const std::uint64_t id : ids)
    configs.push_back({id, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
  auto set = WL_PARAMS(CUpti_SassMetricsSetConfig_Params);
  set.numOfMetricConfig = configs.size();
  set.pConfigs = configs.data();
  set.deviceIndex = device;
  WL_CUPTI(cuptiSassMetricsSetConfig(&set));
  sass_config = SassConfig{device, ids};
}

const std::string& CounterProfiler::State::ready_for_pass() {
  if (!tried)
    open(current_device());
  return reason;
}

void CounterProfiler::State::restore_range(const char* after) {
  try {
    if (!range)
      enable_range();
  } catch (const CuptiFailure& failure) {
    reason = std::string("the range profiler could not be enabled again after ") + after + ": " +
             failure.what;
  }
}

// The range profiler keeps state from the configuration it last ran; a different metric list
// starts from a freshly enabled one.
void CounterProfiler::State::restart() {
  disable_range();
  enable_range();
}

void CounterProfiler::State::close() {
  try {
    disable_range();
  } catch (const CuptiFailure&) {
    // Closing goes on whatever CUPTI says.
  }
  if (sass_config) {
    auto unset = WL_PARAMS(CUpti_SassMetricsUnsetConfig_Params);
    unset.deviceIndex = sass_config->device;
    cuptiSassMetricsUnsetConfig(&unset);
    sass_config.reset();
  }
  for (auto& [_, config] : configs)
    deinitialize(config.host);
  configs.clear();
  deinitialize(std::exchange(host, nullptr));
}

std::string cupti_version() {
  std::uint32_t api = 0;
  if (cuptiGetVersion(&api) != CUPTI_SUCCESS)
    return "unknown (cuptiGetVersion failed)";
  return format("%u.%u (API %u), %s", api / 10000, api / 100 % 100, api,
                loaded_from(reinterpret_cast<const void*>(&cuptiGetVersion)).c_str());
}

std::vector<SassMetricInfo> sass_metrics_offered(int device, std::string& chip) {
  try {
    if (cudaSetDevice(device) != cudaSuccess || cudaFree(nullptr) != cudaSuccess)
      throw CuptiFailure{"no CUDA device " + std::to_string(device)};
    auto init = WL_PARAMS(CUpti_Profiler_Initialize_Params);
    WL_CUPTI(cuptiProfilerInitialize(&init));
    auto name = WL_PARAMS(CUpti_Device_GetChipName_Params);
    name.deviceIndex = static_cast<size_t>(device);
    WL_CUPTI(cuptiDeviceGetChipName(&name));
    chip = name.pChipName;
    auto count = WL_PARAMS(CUpti_SassMetrics_GetNumOfMetrics_Params);
    count.pChipName = name.pChipName;
    WL_CUPTI(cuptiSassMetricsGetNumOfMetrics(&count));
    std::vector<CUpti_SassMetrics_MetricDetails> details(count.numOfMetrics);
    auto list = WL_PARAMS(CUpti_SassMetrics_GetMetrics_Params);
    list.pChipName = name.pChipName;
    list.numOfMetrics = details.size();
    list.pMetricsList = details.data();
    WL_CUPTI(cuptiSassMetricsGetMetrics(&list));
    std::vector<SassMetricInfo> metrics;
    for (const CUpti_SassMetrics_MetricDetails& d : details)
      metrics.push_back({d.pMetricName, d.pMetricDescription ? d.pMetricDescription : ""});
    std::sort(metrics.begin(), metrics.end(),
              [](const SassMetricInfo& a, const SassMetricInfo& b) { return a.name < b.name; });
    return metrics;
  } catch (const CuptiFailure& failure) {
    throw DeviceError("SASS metrics: " + failure.what);
  }
}

CounterProfiler::CounterProfiler(const MetricCatalog& catalog)
    : m_state(std::make_unique<State>(catalog)) {}

CounterProfiler::~CounterProfiler() { m_state->close(); }

void CounterProfiler::open(int device, const std::vector<const MetricInfo*>& metrics) {
  State& s = *m_state;
  if (s.tried)
    return;
  s.open(device);
  // The first metric list is configured here, alongside the opening; a later list is configured
  // where it is first used.
  if (!s.reason.empty() || metrics.empty())
    return;
  std::vector<const MetricInfo*> collected;
  std::vector<std::string> names, missing;
  s.resolve(metrics, collected, names, missing);
  const auto start = std::chrono::steady_clock::now();
  try {
    s.config_for(names);
  } catch (const CuptiFailure&) {
    // Left for profile(), which makes the config again and reports the failure with its results.
  }
  s.open_seconds += seconds_since(start);
}

double CounterProfiler::open_seconds() const { return m_state->open_seconds; }

namespace {

// The id the chip gives a SASS metric name; nullopt where the chip has no such metric.
std::optional<std::uint64_t> sass_metric_id(const std::string& chip, const std::string& name) {
  auto properties = WL_PARAMS(CUpti_SassMetrics_GetProperties_Params);
  properties.pChipName = chip.c_str();
  properties.pMetricName = name.c_str();
  if (cuptiSassMetricsGetProperties(&properties) != CUPTI_SUCCESS)
    return std::nullopt;
  return properties.metric.metricId;
}

// The metric ids the chip gives these SASS metric names, in their order; `metrics` loses the
// names of `may_lack` the chip lacks, and any other name it lacks is an error.
std::vector<std::uint64_t> sass_metric_ids(const std::string& chip,
                                           std::vector<std::string>& metrics,
                                           const std::vector<std::string>& may_lack) {
  std::vector<std::uint64_t> ids;
  std::vector<std::string> offered;
  for (const std::string& name : metrics) {
    const auto id = sass_metric_id(chip, name);
    const bool optional = std::find(may_lack.begin(), may_lack.end(), name) != may_lack.end();
    if (!id && !optional)
      throw CuptiFailure{"the chip " + chip + " has no SASS metric " + name};
    if (id) {
      ids.push_back(*id);
      offered.push_back(name);
    }
  }
  metrics = std::move(offered);
  return ids;
}

// Reads and clears every patched instruction's values, one record per (instruction, metric).
std::vector<SassInstruction> flush_sass(CUcontext context, const std::vector<std::string>& metrics,
                                        const std::vector<std::uint64_t>& ids) {
  auto properties = WL_PARAMS(CUpti_SassMetricsGetDataProperties_Params);
  properties.ctx = context;
  WL_CUPTI(cuptiSassMetricsGetDataProperties(&properties));
  const std::size_t records = properties.numOfPatchedInstructionRecords;
  const std::size_t instances = properties.numOfInstances;
  std::vector<CUpti_SassMetrics_InstanceValue> values(records * instances);
  std::vector<CUpti_SassMetrics_Data> data(records);
  for (std::size_t r = 0; r < records; ++r) {
    data[r].structSize = sizeof(CUpti_SassMetrics_Data);
    data[r].pInstanceValues = values.data() + r * instances;
  }
  auto flush = WL_PARAMS(CUpti_SassMetricsFlushData_Params);
  flush.ctx = context;
  flush.numOfPatchedInstructionRecords = records;
  flush.numOfInstances = instances;
  flush.pMetricsData = data.data();
  WL_CUPTI(cuptiSassMetricsFlushData(&flush));
  std::map<std::pair<std::string, std::uint32_t>, SassInstruction> by_place;
  for (CUpti_SassMetrics_Data& d : data) {
    const std::string function = d.functionName ? d.functionName : "";
    std::free(const_cast<char*>(d.functionName)); // CUPTI's malloc, ours to free
    SassInstruction& instruction = by_place[{function, d.pcOffset}];
    instruction.cubin_crc = d.cubinCrc;
    instruction.function = function;
    instruction.pc_offset = d.pcOffset;
    for (std::size_t i = 0; i < instances; ++i)
      for (std::size_t m = 0; m < ids.size(); ++m)
        if (d.pInstanceValues[i].metricId == ids[m])
          instruction.values[metrics[m]] += static_cast<double>(d.pInstanceValues[i].value);
  }
  std::vector<SassInstruction> instructions;
  for (auto& [place, instruction] : by_place)
    instructions.push_back(std::move(instruction));
  return instructions;
}

} // namespace

SassCounts CounterProfiler::sass(const std::vector<std::string>& wanted,
                                 const std::function<void()>& launch,
                                 const std::vector<std::string>& may_lack) {
  const auto start = std::chrono::steady_clock::now();
  State& s = *m_state;
  SassCounts counts;
  if (counts.reason = s.ready_for_pass(); !counts.reason.empty())
    return counts;
  const auto device = static_cast<std::uint32_t>(current_device());
  bool enabled = false;
  try {
    std::vector<std::string> metrics = wanted;
    const std::vector<std::uint64_t> ids = sass_metric_ids(s.chip, metrics, may_lack);
    s.disable_range(); // the range profiler and the SASS patching are not used together
    s.configure_sass(device, ids);
    auto enable = WL_PARAMS(CUpti_SassMetricsEnable_Params);
    enable.ctx = s.context;
    enable.enableLazyPatching = 1; // only the kernels this launch runs
    WL_CUPTI(cuptiSassMetricsEnable(&enable));
    enabled = true;
    launch();
    counts.instructions = flush_sass(s.context, metrics, ids);
    counts.available = true;
  } catch (const CuptiFailure& failure) {
    counts.reason = failure.what;
  }
  if (enabled) {
    auto disable = WL_PARAMS(CUpti_SassMetricsDisable_Params);
    disable.ctx = s.context;
    cuptiSassMetricsDisable(&disable);
  }
  s.restore_range("SASS metrics");
  counts.seconds = seconds_since(start);
  return counts;
}

PcSampleCounts CounterProfiler::sample_pcs(int period, const std::function<void()>& launch) {
  State& s = *m_state;
  PcSampleCounts counts;
  if (counts.reason = s.ready_for_pass(); !counts.reason.empty())
    return counts;
  const State::RangeSetAside aside{s, "PC sampling"};
  try {
    s.disable_range(); // the range profiler and PC sampling are not used together
    counts = collect_pc_samples(s.context, period, launch);
  } catch (const CuptiFailure& failure) {
    counts.reason = failure.what;
  }
  return counts;
}

std::uint32_t cubin_crc(const unsigned char* bytes, std::size_t size) {
  // CUPTI reads the cubin as an ELF image: an aligned copy, whatever the caller's alignment.
  std::vector<std::uint64_t> aligned((size + 7) / 8);
  std::memcpy(aligned.data(), bytes, size);
  CUpti_GetCubinCrcParams params{};
  params.size = CUpti_GetCubinCrcParamsSize;
  params.cubin = aligned.data();
  params.cubinSize = size;
  return cuptiGetCubinCrc(&params) == CUPTI_SUCCESS ? static_cast<std::uint32_t>(params.cubinCrc)
                                                    : 0;
}

std::vector<SourcePlace> sass_source_places(const unsigned char* bytes, std::size_t size,
                                            const std::string& function,
                                            const std::vector<std::uint32_t>& pc_offsets) {
  std::vector<std::uint64_t> aligned((size + 7) / 8);
  std::memcpy(aligned.data(), bytes, size);
  std::vector<SourcePlace> places;
  for (const std::uint32_t pc : pc_offsets) {
    CUpti_GetSassToSourceCorrelationParams params{};
    params.size = CUpti_GetSassToSourceCorrelationParamsSize;
    params.cubin = aligned.data();
    params.cubinSize = size;
    params.functionName = function.c_str();
    params.pcOffset = pc;
    SourcePlace place;
    if (cuptiGetSassToSourceCorrelation(&params) == CUPTI_SUCCESS) {
      place.line = static_cast<int>(params.lineNumber);
      if (params.fileName)
        place.file = std::filesystem::path(params.fileName).filename().string();
    }
    std::free(params.fileName); // CUPTI's malloc, ours to free
    std::free(params.dirName);
    places.push_back(place);
  }
  return places;
}

std::string CounterProfiler::chip() const { return m_state->chip; }

const CounterCosts& CounterProfiler::costs() const { return m_state->costs; }

std::vector<CounterResult> CounterProfiler::profile(const std::vector<const MetricInfo*>& metrics,
                                                    int launches,
                                                    const std::function<void(int)>& before_launch,
                                                    const std::function<void(int)>& launch) {
  const auto start = std::chrono::steady_clock::now();
  State& s = *m_state;
  if (!s.tried)
    s.open(current_device());
  CounterResult common;
  common.chip = s.chip;
  if (!s.reason.empty()) {
    common.reason = s.reason;
    return std::vector<CounterResult>(static_cast<std::size_t>(launches), common);
  }
  std::vector<const MetricInfo*> collected;
  std::vector<std::string> names;
  s.resolve(metrics, collected, names, common.missing);
  std::vector<CounterResult> results;
  try {
    const std::vector<std::vector<double>> values =
        s.collect(names, launches, before_launch, launch, common.passes);
    common.available = true;
    common.seconds = seconds_since(start) / launches;
    for (const std::vector<double>& launch_values : values) {
      CounterResult& result = results.emplace_back(common);
      for (std::size_t i = 0; i < collected.size(); ++i)
        if (std::isfinite(launch_values[i]))
          result.values.push_back({collected[i]->key, names[i], collected[i]->display(),
                                   collected[i]->unit(), launch_values[i]});
        else
          result.no_value.push_back(names[i]);
    }
  } catch (const CuptiFailure& failure) {
    common.reason = failure.what;
    results.assign(static_cast<std::size_t>(launches), common);
  }
  return results;
}

} // namespace wl
