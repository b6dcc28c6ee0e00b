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

std::int64_t energy_launches(double median_ms) {
  if (!(median_ms > 0))
    return 1;
  const double wanted = std::ceil(kEnergyBatchSeconds * 1e3 / median_ms);
  return static_cast<std::int64_t>(
      std::clamp(wanted, 1.0, static_cast<double>(kMostEnergyLaunches)));
}

EnergyStats summarise_energy(const EnergyReadings& r) {
  EnergyStats e;
  e.launches = r.launches;
  e.batch_ms = r.batch_ms;
  e.window_seconds = r.window_seconds;
  e.power_readings = static_cast<int>(r.power_w.size());
  if (!r.power_w.empty())
    e.sampled_power_w = std::accumulate(r.power_w.begin(), r.power_w.end(), 0.0) / r.power_w.size();
  e.sm_clock_mhz = median_reading(r.sm_mhz);
  e.memory_clock_mhz = median_reading(r.memory_mhz);
  for (const std::uint64_t bits : r.clock_events)
    e.clock_events |= bits;
  if (r.energy_after_mj < r.energy_before_mj) {
    e.reason = "NVML's energy counter went backwards over the batch (" +
               std::to_string(r.energy_before_mj) + " mJ, then " +
               std::to_string(r.energy_after_mj) + " mJ)";
    return e;
  }
  if (r.energy_after_mj == r.energy_before_mj) {
    e.reason = "NVML's energy counter did not move over the batch";
    return e;
  }
  e.joules = static_cast<double>(r.energy_after_mj - r.energy_before_mj) / 1e3;
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
  return bits & ~(kGpuIdle | kApplicationsClocksSetting);
}

} // namespace wl
