#pragma once
// What a launch costs in energy, and why the clocks ran as they did. The engine runs a batch of
// back-to-back launches (no L2 flush between them: the flush's own energy would be counted)
// between two steps of NVML's total-energy counter, which moves in steps (every 100 ms on the
// H200), so the counter's difference holds the batch and the idle moments between the steps and
// the batch's ends. NVML's instantaneous power, read every few milliseconds over the whole window,
// says how much of it was idle: the batch's energy is the difference less the idle moments at
// the power read outside the batch, and the mean of the readings inside it is a second,
// independent figure. NVML's clock-event reasons say why a clock was held down (a power cap,
// heat): a throttled measurement is named, not silently kept.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wl {

// The shortest batch that is measured: three of the counter's steps on the H200, so the idle
// moments taken off are a small part of the window.
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
  double batch_ms = 0;                // the GPU's time for the whole batch, between two events
  double batch_seconds = 0;           // the host's, from the first launch enqueued to the last done
  double window_seconds = 0;          // the host's time between the counter's two steps
  double window_joules = 0;           // the counter's difference over the window
  double outside_power_w = 0;         // the power read in the window outside the batch
  double joules = 0;                  // the batch's: the window's less outside_power_w outside it
  double sampled_power_w = 0;         // the mean of the instantaneous power read during the batch
  int power_readings = 0;             // during the batch
  double counter_step_ms = 0;         // how often the counter moved (0: not seen twice)
  std::optional<double> sm_clock_mhz; // the median of the SM clock read during the batch
  std::optional<double> memory_clock_mhz; // and of the memory clock
  std::uint64_t clock_events = 0;         // NVML's reason bits seen during the batch
  double seconds = 0;                     // the whole pass, its waits for the counter included

  double joules_per_launch() const { return launches > 0 ? joules / launches : 0; }
  // The batch's energy over its time: the power the counter gives.
  double mean_power_w() const { return batch_seconds > 0 ? joules / batch_seconds : 0; }
};

// One look at the sensors, `at` seconds after the counter's first step.
struct SensorReading {
  double at = 0;
  std::optional<double> power_w, sm_mhz, memory_mhz;
  std::optional<std::uint64_t> energy_mj, clock_events;
};

// What the engine read around one batch, before it becomes EnergyStats. Times are seconds after
// the counter's first step, which began the window.
struct EnergyReadings {
  std::int64_t launches = 0;
  double batch_ms = 0;
  double batch_start = 0, batch_end = 0, window_seconds = 0;
  std::uint64_t energy_before_mj = 0, energy_after_mj = 0;
  std::vector<SensorReading> readings;
};

// The batch's figures; a counter that went backwards or stood still, or a window whose idle
// moments leave no energy for the batch, makes an EnergyStats that says so and holds none.
EnergyStats summarise_energy(const EnergyReadings& readings);

// NVML's clock-event reason bits that hold a clock down while a kernel runs, in words: "power
// cap (software), thermal slowdown (hardware)"; "" for none. The idle bit (nothing was running
// when read) is no reason.
std::string clock_event_words(std::uint64_t bits);
// The bits among `bits` that say a clock was held down (all but idle and the application clock
// setting a person chose).
std::uint64_t throttle_events(std::uint64_t bits);

} // namespace wl
