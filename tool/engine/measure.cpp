#include "engine/measure.h"

#include "engine/cuda_check.h"
#include "engine/gpu_sensors.h"
#include "model/timing_summary.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
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
constexpr auto kEnergyTickWait = std::chrono::milliseconds(300);
// How often the sensors are read over the window.
constexpr auto kSensorPeriod = std::chrono::milliseconds(2);

using Clock = std::chrono::steady_clock;

struct Tick {
  std::uint64_t mj = 0;
  Clock::time_point at;
};

// The energy counter's next value after `from`, and when it was seen; nullopt when it does not
// move within kEnergyTickWait or cannot be read.
std::optional<Tick> next_tick(const GpuSensors& sensors, std::uint64_t from) {
  const auto deadline = Clock::now() + kEnergyTickWait;
  while (Clock::now() < deadline) {
    const std::optional<std::uint64_t> mj = sensors.energy_mj();
    if (!mj)
      return std::nullopt;
    if (*mj != from)
      return Tick{*mj, Clock::now()};
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return std::nullopt;
}

// Reads every sensor every kSensorPeriod until stopped, each reading with its time.
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

private:
  void read(const GpuSensors& sensors, Clock::time_point origin) {
    while (!m_stop.test()) {
      m_readings.push_back({.at = seconds_between(origin, Clock::now()),
                            .power_w = sensors.power_w(),
                            .sm_mhz = sensors.sm_mhz(),
                            .memory_mhz = sensors.memory_mhz(),
                            .energy_mj = sensors.energy_mj(),
                            .clock_events = sensors.clock_events()});
      std::this_thread::sleep_for(kSensorPeriod);
    }
  }
  std::atomic_flag m_stop;
  std::vector<SensorReading> m_readings;
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
  const std::optional<std::uint64_t> now = sensors.energy_mj();
  if (!now)
    return said(sensors.unavailable().empty() ? "NVML does not read this GPU's energy counter"
                                              : sensors.unavailable());
  SensorReader reader(sensors, begin);
  // From a step: the counter then holds nothing of the time before the window.
  const std::optional<Tick> first = next_tick(sensors, *now);
  if (!first)
    return said("NVML's energy counter did not move in " + std::to_string(kEnergyTickWait.count()) +
                " ms");
  EnergyReadings readings;
  readings.energy_before_mj = first->mj;
  EventPair events;
  cuda_check(cudaEventRecord(events.start, stream), "cudaEventRecord");
  // Chunks of about kEnergyChunkSeconds back to back until the counter steps again after
  // kEnergyBatchSeconds: the GPU was busy from one step to the other, so their difference is the
  // batch's energy alone.
  std::optional<Tick> last;
  std::uint64_t seen = first->mj;
  while (!last) {
    for (std::int64_t i = 0; i < chunk; ++i) {
      launch(stream_handle);
      cuda_check(cudaGetLastError(), "kernel launch");
      if (after_launch)
        after_launch(stream_handle);
    }
    readings.launches += chunk;
    cuda_check(cudaEventRecord(events.stop, stream), "cudaEventRecord");
    cuda_check(cudaEventSynchronize(events.stop), "energy batch");
    const std::optional<std::uint64_t> mj = sensors.energy_mj();
    if (!mj)
      return said("NVML's energy counter could not be read during the batch");
    const double busy = seconds_between(first->at, Clock::now());
    if (*mj != seen && busy >= kEnergyBatchSeconds)
      last = Tick{*mj, Clock::now()};
    else if (busy > kEnergyBatchSeconds + 10 * kEnergyTickWait.count() / 1e3)
      return said("NVML's energy counter did not move during the batch");
    seen = *mj;
  }
  std::vector<SensorReading> seen_readings = reader.stop();
  float ms = 0;
  cuda_check(cudaEventElapsedTime(&ms, events.start, events.stop), "cudaEventElapsedTime");
  const double origin = seconds_between(begin, first->at); // readings are timed from `begin`
  for (SensorReading& reading : seen_readings)
    reading.at -= origin;
  // The step's time as the reader saw it (every 2 ms), not when the last chunk ended.
  double end = seconds_between(first->at, last->at);
  for (const SensorReading& reading : seen_readings)
    if (reading.energy_mj == last->mj && reading.at < end && reading.at > 0) {
      end = reading.at;
      break;
    }
  readings.readings = std::move(seen_readings);
  readings.batch_ms = ms;
  readings.window_seconds = end;
  readings.energy_after_mj = last->mj;
  EnergyStats e = summarise_energy(readings);
  e.seconds = seconds_between(begin, Clock::now());
  return e;
}

} // namespace wl
