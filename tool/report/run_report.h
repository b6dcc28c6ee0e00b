#pragma once
// Prints the result of `warplens model` and `warplens run`: text for people, JSON (keys in the
// manual, docs/kernels.md) and CSV (one row per site, launch columns repeated) for scripts.

#include "model/run_result.h"

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace wl {

std::string run_text(const RunResult& result);
nlohmann::json run_json(const RunResult& result);
std::string run_csv(const RunResult& result);

} // namespace wl
