#include "model/energy.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <utility>

namespace wl {

namespace {

// NVML's nvmlClocksEventReasons bits, from its documentation.
constexpr std::uint64_t kGpuIdle = 0x1;
constexpr std::uint64_t kApplicationsClocksSetting = 0x2;
constexpr std::array<std::pair<std::uint64_t, const char*>, 9> kClockEvents = {{
    {kGpuIdle, "idle"},
    {kApplicationsClocksSetting, "application clocks set"},
    {0x4, "power cap (software)"},
    {0x8, "slowdown (hardware: heat or power)"},
    {0x10, "sync boost"},
    {0x20, "thermal slowdown (software)"},
    {0x40, "thermal slowdown (hardware)"},
    {0x80, "power brake (hardware)"},
    {0x100, "display clock setting"},
}};

std::optional<double> median_reading(std::vector<double> values) {
  if (values.empty())
    return std::nullopt;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

} // namespace

std::int64_t energy_chunk(double median_ms) {
  if (!(median_ms > 0))
    return 1;
  return static_cast<std::int64_t>(
      std::clamp(std::ceil(kEnergyChunkSeconds * 1e3 / median_ms), 1.0, 1e6));
}

namespace {

std::optional<double> mean_of(const std::vector<double>& values) {
  if (values.empty())
    return std::nullopt;
  return std::accumulate(values.begin(), values.end(), 0.0) / values.size();
}

// The median time between two moves of the counter the readings saw; 0 when it moved once or not.
double counter_step_ms(const std::vector<SensorReading>& readings) {
  std::vector<double> moves, steps;
  std::optional<std::uint64_t> last;
  for (const SensorReading& reading : readings) {
    if (!reading.energy_mj)
      continue;
    if (last && *reading.energy_mj != *last)
      moves.push_back(reading.at);
    last = reading.energy_mj;
  }
  for (std::size_t i = 1; i < moves.size(); ++i)
    steps.push_back((moves[i] - moves[i - 1]) * 1e3);
  return median_reading(steps).value_or(0);
}

} // namespace

EnergyStats summarise_energy(const EnergyReadings& r) {
  EnergyStats e;
  e.launches = r.launches;
  e.batch_ms = r.batch_ms;
  e.window_seconds = r.window_seconds;
  std::vector<double> power, sm, memory;
  for (const SensorReading& reading : r.readings) {
    if (reading.at < 0 || reading.at > r.window_seconds)
      continue; // before the counter's first step or after its last: not what it counted
    if (reading.power_w)
      power.push_back(*reading.power_w);
    if (reading.sm_mhz)
      sm.push_back(*reading.sm_mhz);
    if (reading.memory_mhz)
      memory.push_back(*reading.memory_mhz);
    e.clock_events |= reading.clock_events.value_or(0);
  }
  e.power_readings = static_cast<int>(power.size());
  e.sampled_power_w = mean_of(power).value_or(0);
  e.sm_clock_mhz = median_reading(sm);
  e.memory_clock_mhz = median_reading(memory);
  e.counter_step_ms = counter_step_ms(r.readings);
  if (r.energy_after_mj < r.energy_before_mj) {
    e.reason = "NVML's energy counter went backwards over the batch (" +
               std::to_string(r.energy_before_mj) + " mJ, then " +
               std::to_string(r.energy_after_mj) + " mJ)";
    return e;
  }
  if (r.energy_after_mj == r.energy_before_mj || !(r.window_seconds > 0)) {
    e.reason = "NVML's energy counter did not move over the batch";
    return e;
  }
  e.window_joules = static_cast<double>(r.energy_after_mj - r.energy_before_mj) / 1e3;
  e.available = true;
  return e;
}

std::string clock_event_words(std::uint64_t bits) {
  std::string words;
  for (const auto& [bit, name] : kClockEvents)
    if ((bits & bit) && bit != kGpuIdle)
      words += (words.empty() ? "" : ", ") + std::string(name);
  if (const std::uint64_t unknown = bits & ~std::uint64_t{0x1ff})
    words += (words.empty() ? "" : ", ") + std::string("reason bits ") + std::to_string(unknown);
  return words;
}

std::uint64_t throttle_events(std::uint64_t bits) {
  constexpr std::uint64_t kSyncBoost = 0x10, kDisplayClockSetting = 0x100;
  return bits & ~(kGpuIdle | kApplicationsClocksSetting | kSyncBoost | kDisplayClockSetting);
}

} // namespace wl
