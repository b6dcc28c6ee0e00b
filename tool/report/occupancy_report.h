#pragma once
// Prints an occupancy result: a text report (the limits table with the limiter marked, the
// explanation, the waves) and a JSON object whose keys are documented in docs/file-formats.md.

#include "model/occupancy.h"

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace wl {

std::string occupancy_text(const Arch& arch, const OccupancyRequest& request,
                           const OccupancyResult& result);

nlohmann::json occupancy_json(const Arch& arch, const OccupancyRequest& request,
                              const OccupancyResult& result);

// {"block_size": [[threads, blocks, occupancy], ...], "registers": [...], "shared_memory": [...]}
nlohmann::json curves_json(const ImpactCurves& curves);

} // namespace wl
