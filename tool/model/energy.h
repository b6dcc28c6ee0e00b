#pragma once
// What a launch costs in energy, and why the clocks ran as they did. The engine runs back-to-back
// launches (no L2 flush between them: the flush's own energy would be counted) for
// kEnergyLeadSeconds, then from one move of NVML's total-energy counter (it moves every 100 ms on
// the H200) until it moves again after at least kEnergyBatchSeconds, then kEnergyTrailSeconds
// more. The GPU was busy with the kernel over the whole window the counter's difference covers,
// even where the counter reports its energy late: its mean power, times the launch's time in the
// batch, is the energy per launch. NVML's instantaneous power, read every millisecond or two over
// the window, is a second, independent figure. NVML's clock-event reasons say why a clock was
// held down (a power cap, heat): a throttled measurement is named, not silently kept.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wl {

// The least time the batch is busy between the counter's two counted moves (three steps on the
// H200).
inline constexpr double kEnergyBatchSeconds = 0.3;
// The batch is busy this long before the counter's first counted move and after its last.
inline constexpr double kEnergyLeadSeconds = 0.15;
inline constexpr double kEnergyTrailSeconds = 0.03;
// The launches of one chunk last about this long, so the batch stops within this of a step.
inline constexpr double kEnergyChunkSeconds = 0.01;

// Launches of a kernel whose median is `median_ms` that make a chunk of kEnergyChunkSeconds (one
// at least).
std::int64_t energy_chunk(double median_ms);

struct EnergyStats {
  bool available = false;
  std::string reason; // why there is no energy ("" when there is), or what to know about it
  std::int64_t launches = 0;
  double batch_ms = 0;        // the GPU's time for the whole batch, between two events
  double window_seconds = 0;  // between the counter's two steps, the GPU busy throughout
  double window_joules = 0;   // the counter's difference over the window
  double sampled_power_w = 0; // the mean of the instantaneous power read over the window
  int power_readings = 0;
  double counter_step_ms = 0;             // how often the counter moved (0: not seen twice)
  std::optional<double> sm_clock_mhz;     // the median of the SM clock read over the window
  std::optional<double> memory_clock_mhz; // and of the memory clock
  std::uint64_t clock_events = 0;         // NVML's reason bits seen over the window
  double seconds = 0;                     // the whole pass, its waits for the counter included

  // The counter's mean power over the busy window.
  double mean_power_w() const { return window_seconds > 0 ? window_joules / window_seconds : 0; }
  // A launch's share: the mean power over its time in the batch.
  double joules_per_launch() const {
    return launches > 0 ? mean_power_w() * batch_ms / 1e3 / launches : 0;
  }
};

// One look at the sensors, `at` seconds after the counter's first counted move.
struct SensorReading {
  double at = 0;
  std::optional<double> power_w = std::nullopt, sm_mhz = std::nullopt, memory_mhz = std::nullopt;
  std::optional<std::uint64_t> energy_mj = std::nullopt, clock_events = std::nullopt;
};

// What the engine read around one batch, before it becomes EnergyStats. Times are seconds after
// the counter's first counted move, which began the window.
struct EnergyReadings {
  std::int64_t launches = 0;
  double batch_ms = 0;
  double window_seconds = 0;
  std::uint64_t energy_before_mj = 0, energy_after_mj = 0;
  std::vector<SensorReading> readings = {};
};

// The batch's figures; a counter that went backwards or stood still makes an EnergyStats that
// says so and holds none.
EnergyStats summarise_energy(const EnergyReadings& readings);

// NVML's clock-event reason bits that hold a clock down while a kernel runs, in words: "power
// cap (software), thermal slowdown (hardware)"; "" for none. The idle bit (nothing was running
// when read) is no reason.
std::string clock_event_words(std::uint64_t bits);
// The bits among `bits` that say a clock was held down by power or heat (not idle, the clocks a
// person set, sync boost or the display clock).
std::uint64_t throttle_events(std::uint64_t bits);

} // namespace wl
