#include "engine/measure.h"

#include "base/text_format.h"
#include "engine/cuda_check.h"
#include "engine/gpu_sensors.h"
#include "model/timing_summary.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <numeric>
#include <thread>
#include <vector>

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

namespace wl {

namespace {

nvtxDomainHandle_t warplens_domain() {
  static const nvtxDomainHandle_t domain = nvtxDomainCreateA("WarpLens");
  return domain;
}

class EventPair {
public:
  EventPair() {
    cuda_check(cudaEventCreate(&start), "cudaEventCreate");
    cuda_check(cudaEventCreate(&stop), "cudaEventCreate");
  }
  ~EventPair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  cudaEvent_t start{}, stop{};
};

} // namespace

NvtxRange::NvtxRange(const char* name) {
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = name;
  m_id = nvtxDomainRangeStartEx(warplens_domain(), &attributes);
}

NvtxRange::~NvtxRange() { nvtxDomainRangeEnd(warplens_domain(), m_id); }

TimingStats time_cold(const StreamWork& launch, void* stream_handle, const TimingOptions& options,
                      L2Flusher& flusher, const GpuSensors& sensors,
                      const StreamWork& after_launch) {
  const auto begin = std::chrono::steady_clock::now();
  const auto stream = static_cast<cudaStream_t>(stream_handle);
  const auto enqueue = [&] {
    launch(stream_handle);
    cuda_check(cudaGetLastError(), "kernel launch");
  };
  const auto after = [&] {
    if (after_launch)
      after_launch(stream_handle);
  };
  for (int i = 0; i < options.warmup_runs; ++i) {
    enqueue();
    after();
  }
  cuda_check(cudaStreamSynchronize(stream), "warm-up run");

  // Samples are enqueued in batches with one synchronisation per batch: the host's round trip
  // is paid once per batch instead of once per sample, and each sample still starts from an
  // emptied L2 with its own pair of events around the launch alone.
  const int batch = std::max(1, std::min(options.min_samples, options.max_samples));
  std::vector<EventPair> events(static_cast<std::size_t>(batch));
  std::vector<TimedSample> samples;
  std::vector<double> times; // the samples' milliseconds, for the noise
  bool converged = false;
  const auto deadline = begin + std::chrono::duration<double>(options.max_seconds);
  while (static_cast<int>(samples.size()) < options.max_samples) {
    const int count = std::min(batch, options.max_samples - static_cast<int>(samples.size()));
    for (int i = 0; i < count; ++i) {
      if (options.flush_l2)
        flusher.flush(stream);
      cuda_check(cudaEventRecord(events[i].start, stream), "cudaEventRecord");
      enqueue();
      cuda_check(cudaEventRecord(events[i].stop, stream), "cudaEventRecord");
      after(); // outside the pair: its host time would delay the stop event of a quick kernel
    }
    cuda_check(cudaEventSynchronize(events[count - 1].stop), "kernel run");
    // Read as the batch ends, before the clock winds down from the work: the batch's clock.
    const std::optional<double> sm_clock = sensors.sm_mhz();
    const std::optional<double> memory_clock = sensors.memory_mhz();
    const std::uint64_t clock_events = sensors.clock_events().value_or(0);
    for (int i = 0; i < count; ++i) {
      float ms = 0;
      cuda_check(cudaEventElapsedTime(&ms, events[i].start, events[i].stop),
                 "cudaEventElapsedTime");
      samples.push_back({ms, sm_clock, memory_clock, clock_events});
      times.push_back(ms);
    }
    if (static_cast<int>(samples.size()) < options.min_samples)
      continue;
    if (relative_noise(times) < options.max_noise) {
      converged = true;
      break;
    }
    if (std::chrono::steady_clock::now() > deadline)
      break;
  }
  TimingStats stats =
      summarise_samples(samples, sensors.default_mhz(), converged, options.flush_l2);
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  return stats;
}

namespace {

// How long to wait for NVML's energy counter to move: it moves every 100 ms on the H200; one
// that has not moved in this long is not moving.
constexpr double kEnergyTickWaitSeconds = 0.3;
// How often the power and the energy counter are read over the batch; the clocks and their
// reasons, slower to read, every kClockReadEvery-th time.
constexpr auto kSensorPeriod = std::chrono::milliseconds(1);
constexpr int kClockReadEvery = 8;

using Clock = std::chrono::steady_clock;

// A move of the energy counter: when (halfway between the reading before it and the reading
// that saw it, seconds after the batch began) and the value it moved to.
struct CounterMove {
  double at = 0;
  std::uint64_t mj = 0;
};

// The window the counter's moves make: from the first move at least kEnergyLeadSeconds into the
// batch to the first at least kEnergyBatchSeconds after it; nullopt until there are both.
std::optional<std::pair<CounterMove, CounterMove>>
window_of(const std::vector<CounterMove>& moves) {
  const auto first = std::find_if(moves.begin(), moves.end(),
                                  [](const CounterMove& m) { return m.at >= kEnergyLeadSeconds; });
  if (first == moves.end())
    return std::nullopt;
  const auto last = std::find_if(first, moves.end(), [&](const CounterMove& m) {
    return m.at - first->at >= kEnergyBatchSeconds;
  });
  if (last == moves.end())
    return std::nullopt;
  return std::pair{*first, *last};
}

// Reads the sensors every kSensorPeriod until stopped, each reading with its time, and notes the
// counter's moves as it sees them: the launching loop asks it whether the window is complete, so
// both go by the same readings.
class SensorReader {
public:
  SensorReader(const GpuSensors& sensors, Clock::time_point origin)
      : m_thread([this, &sensors, origin] { read(sensors, origin); }) {}
  ~SensorReader() { stop(); }
  SensorReader(const SensorReader&) = delete;
  SensorReader& operator=(const SensorReader&) = delete;
  std::vector<SensorReading> stop() {
    if (m_thread.joinable()) {
      m_stop.test_and_set();
      m_thread.join();
    }
    return std::move(m_readings);
  }
  std::optional<std::pair<CounterMove, CounterMove>> window() const {
    const std::lock_guard lock(m_mutex);
    return window_of(m_moves);
  }

private:
  void read(const GpuSensors& sensors, Clock::time_point origin) {
    for (int round = 0; !m_stop.test(); ++round) {
      SensorReading reading{.at = 0, .power_w = sensors.power_w()};
      reading.energy_mj = sensors.energy_mj();
      reading.at = seconds_between(origin, Clock::now());
      if (round % kClockReadEvery == 0) {
        reading.sm_mhz = sensors.sm_mhz();
        reading.memory_mhz = sensors.memory_mhz();
        reading.clock_events = sensors.clock_events();
      }
      note_move(reading);
      m_readings.push_back(reading);
      std::this_thread::sleep_for(kSensorPeriod);
    }
  }
  void note_move(const SensorReading& reading) {
    if (!reading.energy_mj)
      return;
    if (m_last_energy && *reading.energy_mj != m_last_energy->second) {
      const std::lock_guard lock(m_mutex);
      m_moves.push_back({0.5 * (m_last_energy->first + reading.at), *reading.energy_mj});
    }
    m_last_energy = std::pair{reading.at, *reading.energy_mj};
  }
  std::atomic_flag m_stop;
  std::vector<SensorReading> m_readings;
  std::optional<std::pair<double, std::uint64_t>> m_last_energy; // the reader's own
  mutable std::mutex m_mutex;                                    // guards m_moves
  std::vector<CounterMove> m_moves;
  std::thread m_thread; // last: started once the members it uses are made
};

} // namespace

EnergyStats measure_energy(const StreamWork& launch, void* stream_handle, std::int64_t chunk,
                           const GpuSensors& sensors, const StreamWork& after_launch) {
  const auto begin = Clock::now();
  const auto stream = static_cast<cudaStream_t>(stream_handle);
  const auto said = [&](const std::string& reason) {
    EnergyStats e;
    e.reason = reason;
    e.seconds = seconds_between(begin, Clock::now());
    return e;
  };
  cuda_check(cudaStreamSynchronize(stream), "work before the energy batch");
  const auto origin = Clock::now(); // the batch's own start: the lead is counted from here
  if (!sensors.energy_mj())
    return said(sensors.unavailable().empty() ? "NVML does not read this GPU's energy counter"
                                              : sensors.unavailable());
  // Busy from the start: kEnergyLeadSeconds before the counter's first counted move, a window of
  // kEnergyBatchSeconds at least, kEnergyTrailSeconds after its last. A counter that reports its
  // energy late, or averaged over its period, then counts busy time alone, and so do the power
  // readings beside it.
  SensorReader reader(sensors, origin);
  EventPair events;
  cuda_check(cudaEventRecord(events.start, stream), "cudaEventRecord");
  const double give_up =
      kEnergyLeadSeconds + kEnergyBatchSeconds + kEnergyTrailSeconds + 3 * kEnergyTickWaitSeconds;
  std::int64_t launches = 0;
  std::optional<std::pair<CounterMove, CounterMove>> window;
  for (bool done = false; !done;) {
    for (std::int64_t i = 0; i < chunk; ++i) {
      launch(stream_handle);
      cuda_check(cudaGetLastError(), "kernel launch");
      if (after_launch)
        after_launch(stream_handle);
    }
    launches += chunk;
    cuda_check(cudaEventRecord(events.stop, stream), "cudaEventRecord");
    cuda_check(cudaEventSynchronize(events.stop), "energy batch");
    const double now = seconds_between(origin, Clock::now());
    window = reader.window();
    done = window && now - window->second.at >= kEnergyTrailSeconds;
    if (!done && now > give_up)
      return said("NVML's energy counter did not move twice " +
                  format_number(kEnergyBatchSeconds, 1) + " s apart in a batch of " +
                  format_number(now, 1) + " s");
  }
  float ms = 0;
  cuda_check(cudaEventElapsedTime(&ms, events.start, events.stop), "cudaEventElapsedTime");
  EnergyReadings readings{.launches = launches, .batch_ms = ms};
  readings.readings = reader.stop();
  for (SensorReading& reading : readings.readings) // timed from the window's start
    reading.at -= window->first.at;
  readings.window_seconds = window->second.at - window->first.at;
  readings.energy_before_mj = window->first.mj;
  readings.energy_after_mj = window->second.mj;
  EnergyStats e = summarise_energy(readings);
  e.seconds = seconds_between(begin, Clock::now());
  return e;
}

} // namespace wl
