#include "report/occupancy_report.h"

#include "base/text_format.h"

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace wl {

namespace {

using nlohmann::json;

std::string limit_text(int blocks) {
  return blocks == kUnlimited ? "no limit" : std::to_string(blocks);
}

// What each resource's limit is made of, in the report's last column.
std::string limit_note(const Arch& arch, const OccupancyRequest& request, const OccupancyResult& r,
                       Resource resource) {
  switch (resource) {
  case Resource::warps:
    return format("%d warps per block, %d per SM", r.warps_per_block, r.max_warps_per_sm);
  case Resource::registers:
    return format("%d registers per block allocated (%d per thread), %d per SM",
                  r.allocated_registers_per_block, request.registers_per_thread,
                  arch.registers_per_sm);
  case Resource::shared_memory:
    return format("%lld B per block allocated (%lld B reserved), %lld B per SM with this carveout",
                  static_cast<long long>(r.allocated_shared_memory_per_block),
                  static_cast<long long>(arch.reserved_shared_memory_per_block),
                  static_cast<long long>(r.shared_memory_per_sm_configured));
  case Resource::blocks:
    return format("at most %d resident blocks per SM", arch.max_blocks_per_sm);
  case Resource::barriers:
    return "each resident block holds one of the SM's barriers, __syncthreads or not";
  }
  return "";
}

std::string display(Resource resource) {
  std::string name = resource_name(resource);
  std::replace(name.begin(), name.end(), '_', ' ');
  return name;
}

std::string waves_text(const Waves& w) {
  if (w.blocks_per_wave == 0)
    return format("grid %lld blocks: no block fits, so no wave runs\n",
                  static_cast<long long>(w.grid_blocks));
  std::string text =
      format("grid %lld blocks: %lld per wave, %.2f waves", static_cast<long long>(w.grid_blocks),
             static_cast<long long>(w.blocks_per_wave), w.waves);
  if (w.tail_blocks > 0)
    text += format("; the last wave holds %lld blocks (%.0f %% full)",
                   static_cast<long long>(w.tail_blocks), 100.0 * w.tail_fill);
  return text + "\n";
}

} // namespace

std::string occupancy_text(const Arch& arch, const OccupancyRequest& request,
                           const OccupancyResult& r) {
  std::string text = format("%s: %s (%s, %d SMs)\n", arch.id.c_str(), arch.name.c_str(),
                            arch.sm_name().c_str(), arch.sm_count);
  text += format("block %s: %d threads, %d warps; %d registers per thread; %lld B static + %lld B "
                 "dynamic shared memory\n\n",
                 format_block(request.block).c_str(), r.threads_per_block, r.warps_per_block,
                 request.registers_per_thread, static_cast<long long>(request.static_smem),
                 static_cast<long long>(request.dynamic_smem));
  text += format("  %-14s %10s  %s\n", "resource", "blocks/SM", "");
  for (Resource resource : kAllResources) {
    const bool limiting =
        std::find(r.limiters.begin(), r.limiters.end(), resource) != r.limiters.end();
    text += format("%s %-14s %10s  %s%s\n", limiting ? ">" : " ", display(resource).c_str(),
                   limit_text(r.limit(resource)).c_str(),
                   limit_note(arch, request, r, resource).c_str(), limiting ? "   <- limiter" : "");
  }
  text += format("\noccupancy %.1f %%: %s per SM, %d of %d warps\n", 100.0 * r.occupancy,
                 counted(static_cast<std::size_t>(r.blocks_per_sm), "block").c_str(),
                 r.warps_per_sm, r.max_warps_per_sm);
  text += r.explanation + "\n";
  if (r.waves)
    text += waves_text(*r.waves);
  return text;
}

json occupancy_json(const Arch& arch, const OccupancyRequest& request, const OccupancyResult& r) {
  json limits = json::object();
  json limiters = json::array();
  for (Resource resource : kAllResources) {
    const int blocks = r.limit(resource);
    limits[resource_name(resource)] = blocks == kUnlimited ? json(nullptr) : json(blocks);
  }
  for (Resource resource : r.limiters)
    limiters.push_back(resource_name(resource));
  json out = {
      {"arch", arch.id},
      {"compute_capability", std::to_string(arch.cc_major) + "." + std::to_string(arch.cc_minor)},
      {"block", {request.block.x, request.block.y, request.block.z}},
      {"threads_per_block", r.threads_per_block},
      {"warps_per_block", r.warps_per_block},
      {"registers_per_thread", request.registers_per_thread},
      {"static_shared_memory", request.static_smem},
      {"dynamic_shared_memory", request.dynamic_smem},
      {"carveout_percent", request.carveout_percent},
      {"blocks_per_sm", r.blocks_per_sm},
      {"warps_per_sm", r.warps_per_sm},
      {"max_warps_per_sm", r.max_warps_per_sm},
      {"occupancy", r.occupancy},
      {"limiters", limiters},
      {"limits", limits},
      {"allocated_registers_per_block", r.allocated_registers_per_block},
      {"allocated_shared_memory_per_block", r.allocated_shared_memory_per_block},
      {"shared_memory_per_sm_configured", r.shared_memory_per_sm_configured},
      {"explanation", r.explanation},
  };
  if (r.waves)
    out["waves"] = {{"grid_blocks", r.waves->grid_blocks},
                    {"blocks_per_wave", r.waves->blocks_per_wave},
                    {"waves", r.waves->waves},
                    {"full_waves", r.waves->full_waves},
                    {"tail_blocks", r.waves->tail_blocks},
                    {"tail_fill", r.waves->tail_fill}};
  return out;
}

json curves_json(const ImpactCurves& curves) {
  const auto points = [](const std::vector<CurvePoint>& curve) {
    json list = json::array();
    for (const CurvePoint& p : curve)
      list.push_back({p.x, p.blocks_per_sm, p.occupancy});
    return list;
  };
  return {{"block_size", points(curves.block_size)},
          {"registers", points(curves.registers)},
          {"shared_memory", points(curves.shared_memory)}};
}

} // namespace wl
