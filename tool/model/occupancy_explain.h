#pragma once
// The one sentence that says, in plain words, why occupancy is what it is and what would
// change it ("Registers limit this to 4 blocks per SM (50 % occupancy); at 48 registers per
// thread 5 blocks would fit.").

#include "model/occupancy.h"

#include <string>

namespace wl {

std::string explain_occupancy(const Arch& arch, const OccupancyRequest& request,
                              const OccupancyResult& result);

} // namespace wl
