#include "report/energy_report.h"

#include "base/json_fields.h"
#include "base/text_format.h"
#include "model/run_options.h"

#include <cmath>

namespace wl {

namespace {

using nlohmann::json;

constexpr double kMostClockMhz = 100'000; // no GPU's clock is near this
// The window lies within the batch, the GPU busy across it, but the host sees the counter's
// steps up to a reading late: it may pass the batch's events by this share and this much.
constexpr double kWindowSlack = 1.1;
constexpr double kMostStepSeconds = 0.01;

std::string shown(double value) { return format("%.6g", value); }

std::string clocks_text(const EnergyStats& e) {
  std::string text;
  if (e.sm_clock_mhz)
    text += "SM " + format_number(*e.sm_clock_mhz, 0) + " MHz";
  if (e.memory_clock_mhz)
    text += (text.empty() ? "" : ", ") + std::string("memory ") +
            format_number(*e.memory_clock_mhz, 0) + " MHz";
  const std::string held = clock_event_words(throttle_events(e.clock_events));
  text += (text.empty() ? "" : "; ") +
          (held.empty() ? std::string("no clock held down") : "clocks held down by " + held);
  return text;
}

} // namespace

std::string format_joules(double joules) {
  const double magnitude = std::fabs(joules);
  if (magnitude >= 1)
    return format_number(joules, 2) + " J";
  if (magnitude >= 1e-3)
    return format_number(joules * 1e3, magnitude >= 0.1 ? 1 : 2) + " mJ";
  return format_number(joules * 1e6, magnitude >= 1e-4 ? 1 : 2) + " µJ";
}

std::string energy_text(const RunResult& r) {
  if (!r.energy)
    return "";
  const EnergyStats& e = *r.energy;
  if (!e.available)
    return "energy: not measured: " + e.reason + "\n";
  std::string text = "energy\n";
  text += "  per launch      " + format_joules(e.joules_per_launch()) + "  (" +
          format_count(e.launches) + " launches back to back in " + format_number(e.batch_ms, 1) +
          " ms, L2 warm, no flush between)\n";
  text +=
      "  counted         " + format_joules(e.window_joules) + " over " +
      format_number(e.window_seconds * 1e3, 0) +
      " ms between two of the counter's steps, the GPU busy throughout" +
      (e.counter_step_ms > 0 ? " (it moves every " + format_number(e.counter_step_ms, 0) + " ms)"
                             : std::string()) +
      "\n";
  text += "  mean power      " + format_number(e.mean_power_w(), 0) + " W by the energy counter";
  if (e.power_readings > 0)
    text += ", " + format_number(e.sampled_power_w, 0) + " W by " +
            std::to_string(e.power_readings) + " instantaneous readings";
  text += "\n";
  if (r.flops > 0 && e.joules_per_launch() > 0)
    text += "  efficiency      " + format_number(r.flops / e.joules_per_launch() / 1e9, 2) +
            " GFLOP/J\n";
  text += "  clocks          " + clocks_text(e) + "\n";
  return text;
}

json energy_json(const EnergyStats& e) {
  json out = {{"available", e.available},
              {"reason", e.reason},
              {"launches", e.launches},
              {"batch_ms", e.batch_ms},
              {"window_seconds", e.window_seconds},
              {"window_joules", e.window_joules},
              {"counter_step_ms", e.counter_step_ms},
              {"joules_per_launch", e.joules_per_launch()},
              {"mean_power_w", e.mean_power_w()},
              {"sampled_power_w", e.sampled_power_w},
              {"power_readings", e.power_readings},
              {"clock_events", e.clock_events},
              {"clocks_held_by", clock_event_words(throttle_events(e.clock_events))},
              {"seconds", e.seconds}};
  if (e.sm_clock_mhz)
    out["sm_clock_mhz"] = *e.sm_clock_mhz;
  if (e.memory_clock_mhz)
    out["memory_clock_mhz"] = *e.memory_clock_mhz;
  return out;
}

EnergyStats energy_from_json(const json& j, const std::string& where) {
  const Fields f(j, where, "energy.");
  f.only({"available", "reason", "launches", "batch_ms", "window_seconds", "window_joules",
          "counter_step_ms", "joules_per_launch", "mean_power_w", "sampled_power_w",
          "power_readings", "clock_events", "clocks_held_by", "sm_clock_mhz", "memory_clock_mhz",
          "seconds"},
         "the energy of a batch");
  EnergyStats e;
  e.available = f.boolean("available");
  e.reason = f.text("reason");
  e.launches = f.integer("launches", e.available ? 1 : 0, kMaxInt64);
  e.batch_ms = f.number("batch_ms", 0, kMaxRequestSeconds * 1e3);
  e.window_seconds = f.number("window_seconds", 0, kMaxRequestSeconds);
  e.window_joules = f.number("window_joules", 0, kMostPowerWatts * kMaxRequestSeconds);
  e.counter_step_ms = f.number("counter_step_ms", 0, kMaxRequestSeconds * 1e3);
  e.sampled_power_w = f.number("sampled_power_w", 0, kMostPowerWatts);
  e.power_readings = static_cast<int>(f.integer("power_readings", 0, kMaxInt));
  e.clock_events = static_cast<std::uint64_t>(f.integer("clock_events", 0, kMaxInt64));
  e.seconds = f.number("seconds", 0, kMaxRequestSeconds);
  if (f.has("sm_clock_mhz"))
    e.sm_clock_mhz = f.number("sm_clock_mhz", kAboveZero, kMostClockMhz);
  if (f.has("memory_clock_mhz"))
    e.memory_clock_mhz = f.number("memory_clock_mhz", kAboveZero, kMostClockMhz);
  if (!e.available) {
    if (e.window_joules > 0)
      f.fail("window_joules", shown(e.window_joules), "0 when the energy is not available");
    return e;
  }
  if (e.window_joules <= 0 || e.window_seconds <= 0 || e.batch_ms <= 0)
    f.fail("window_joules",
           shown(e.window_joules) + " J in " + shown(e.window_seconds) + " s, the batch " +
               shown(e.batch_ms) + " ms",
           "each above 0 when the energy is available");
  if (e.window_seconds > kWindowSlack * e.batch_ms / 1e3 + kMostStepSeconds)
    f.fail("window_seconds", shown(e.window_seconds),
           "within the batch's " + shown(e.batch_ms / 1e3) + " s, which was busy across it");
  if (e.mean_power_w() > kMostPowerWatts)
    f.fail("window_joules", shown(e.window_joules) + " in " + shown(e.window_seconds) + " s",
           "at most " + shown(kMostPowerWatts) + " W on average");
  const auto derived = [&](const char* key, double value) {
    const double written = f.number(key, 0, kMaxDouble);
    if (std::fabs(written - value) > 1e-6 * std::max(1.0, std::fabs(value)))
      f.fail(key, shown(written), shown(value) + ", as the batch's other figures give it");
  };
  derived("joules_per_launch", e.joules_per_launch());
  derived("mean_power_w", e.mean_power_w());
  return e;
}

} // namespace wl
