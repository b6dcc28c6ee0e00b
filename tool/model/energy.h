#pragma once
// What a launch costs in energy, and why the clocks ran as they did. The engine runs a batch of
// back-to-back launches (no L2 flush between them: the flush's own energy would be counted) long
// enough for NVML's total-energy counter, which the driver updates about every 10 ms, to be
// differenced: its difference over the batch is the energy, the instantaneous power read while
// the batch runs a second, independent figure. NVML's clock-event reasons say why a clock was held
// down (a power cap, heat): a throttled measurement is named, not silently kept.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wl {

// The shortest batch that is measured: NVML's energy counter then moves about thirty times
// within it, so the counter's granularity is a few percent of the figure at worst.
inline constexpr double kEnergyBatchSeconds = 0.3;
// The most launches in one batch, however quick the kernel.
inline constexpr std::int64_t kMostEnergyLaunches = 10'000'000;

// Launches of a kernel whose median is `median_ms` that make a batch of kEnergyBatchSeconds (one
// at least, kMostEnergyLaunches at most).
std::int64_t energy_launches(double median_ms);

struct EnergyStats {
  bool available = false;
  std::string reason; // why there is no energy ("" when there is), or what to know about it
  std::int64_t launches = 0;
  double batch_ms = 0;        // the GPU's time for the whole batch, between two events
  double window_seconds = 0;  // the host's time between the two energy readings
  double joules = 0;          // the energy counter's difference over that window
  double sampled_power_w = 0; // the mean of the instantaneous power read during the batch
  int power_readings = 0;
  std::optional<double> sm_clock_mhz;     // the median of the SM clock read during the batch
  std::optional<double> memory_clock_mhz; // and of the memory clock
  std::uint64_t clock_events = 0;         // NVML's reason bits seen during the batch
  double seconds = 0;                     // the whole pass, its waits for the counter included

  double joules_per_launch() const { return launches > 0 ? joules / launches : 0; }
  // The energy over the window it was counted in: the counter's own mean power.
  double mean_power_w() const { return window_seconds > 0 ? joules / window_seconds : 0; }
};

// What the engine read around one batch, before it becomes EnergyStats.
struct EnergyReadings {
  std::int64_t launches = 0;
  double batch_ms = 0;
  double window_seconds = 0;
  std::uint64_t energy_before_mj = 0, energy_after_mj = 0;
  std::vector<double> power_w, sm_mhz, memory_mhz;
  std::vector<std::uint64_t> clock_events;
};

// The batch's figures; a counter that went backwards or stood still makes an EnergyStats that
// says so and holds no energy.
EnergyStats summarise_energy(const EnergyReadings& readings);

// NVML's clock-event reason bits that hold a clock down while a kernel runs, in words: "power
// cap (software), thermal slowdown (hardware)"; "" for none. The idle bit (nothing was running
// when read) is no reason.
std::string clock_event_words(std::uint64_t bits);
// The bits among `bits` that say a clock was held down (all but idle and the application clock
// setting a person chose).
std::uint64_t throttle_events(std::uint64_t bits);

} // namespace wl
