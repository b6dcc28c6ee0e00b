#pragma once
// A RunResult as JSON: what crosses the worker protocol and what recordings and sweep files hold.
// The GUI only sees results that crossed the protocol, so the round trip keeps every field.

#include "model/run_result.h"

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace wl {

// Reading checks every key (json_fields.h) and throws UsageError "WHERE: KEY: ...".
nlohmann::json run_result_to_json(const RunResult& result);
RunResult run_result_from_json(const nlohmann::json& json, const std::string& where = "result");

} // namespace wl
