#pragma once
// A launch's energy (`run --energy`) as text, JSON and back: the joules per launch of a batch of
// back-to-back launches, the power by NVML's energy counter and by its instantaneous readings, the
// clocks and what held them down (model/energy.h).

#include "model/run_result.h"

#include <string>

#include <nlohmann/json.hpp>

namespace wl {

// The most power a reading may claim: no GPU board draws this much.
inline constexpr double kMostPowerWatts = 5'000;

// "41.2 mJ", "3.10 µJ", "1.20 J".
std::string format_joules(double joules);

// The lines `run` prints under "energy": joules per launch, the batch, the power both ways, GFLOP
// per joule, the clocks and what held them down; or why there is no energy. "" without a batch.
std::string energy_text(const RunResult& r);

nlohmann::json energy_json(const EnergyStats& e);
// Throws UsageError naming `where` and the key for what a batch cannot produce: energy that went
// backwards (negative), power past kMostPowerWatts, a window shorter than the batch it holds,
// figures that do not follow from each other.
EnergyStats energy_from_json(const nlohmann::json& j, const std::string& where);

} // namespace wl
