// Fuzzes the preset reader (assets/arch/*.json, `--arch FILE.json`): the text through the guarded
// JSON parser into arch_from_json, as load_arch_file reads it. A preset the reader accepts then
// goes through what `warplens occupancy --arch FILE --grid N --curves` computes from it, because
// accepting figures the occupancy model cannot compute with is the reader's bug too.

#include "base/json_input.h"
#include "fuzz_support.h"
#include "model/arch.h"
#include "model/occupancy.h"
#include "report/occupancy_report.h"

#include <nlohmann/json.hpp>

namespace {

void compute_with(const wl::Arch& arch) {
  for (const int threads : {32, 256, arch.max_threads_per_block}) {
    const wl::OccupancyRequest request{.block = {threads, 1, 1}, .grid_blocks = 1000};
    wl::fuzz::read_or_refuse([&] {
      const wl::OccupancyResult result = wl::compute_occupancy(arch, request);
      wl::occupancy_text(arch, request, result);
      wl::occupancy_json(arch, request, result);
      wl::suggested_block_size(arch, request);
      wl::curves_json(wl::impact_curves(arch, request));
    });
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  wl::fuzz::read_or_refuse([&] {
    const std::string origin = "fuzz.json";
    const nlohmann::json json =
        wl::parse_json_text(wl::fuzz::as_text(data, size), origin, wl::kMaxJsonFileBytes);
    compute_with(wl::arch_from_json(json, origin));
  });
  return 0;
}
