#include "model/occupancy_explain.h"

#include "base/text_format.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace wl {

namespace {

std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %%", 100.0 * fraction);
  std::string s = text;
  if (s.ends_with(".0 %"))
    s.erase(s.size() - 4, 2); // "50 %" rather than "50.0 %"
  return s;
}

std::string display_name(const Arch& arch, Resource resource) {
  switch (resource) {
  case Resource::warps:
    return "warps";
  case Resource::registers:
    return "registers";
  case Resource::shared_memory:
    return "shared memory";
  case Resource::blocks:
    return "the limit of " + std::to_string(arch.max_blocks_per_sm) + " blocks per SM";
  case Resource::barriers:
    return "barriers";
  }
  return "?";
}

// The verb that agrees with one resource's display name.
const char* limit_verb(Resource resource) {
  switch (resource) {
  case Resource::shared_memory:
    return " limits";
  case Resource::blocks:
    return " caps";
  default:
    return " limit";
  }
}

// Why a launch that fits every per-block limit still gets no SM.
std::string explain_no_fit(const Arch& arch, const OccupancyRequest& request,
                           const OccupancyResult& r) {
  if (r.limit(Resource::warps) == 0)
    return "This block cannot run: the kernel allows at most " +
           std::to_string(request.kernel_max_threads) + " threads per block.";
  if (r.limit(Resource::registers) == 0)
    return "This block cannot run on " + arch.id + ": " + std::to_string(r.threads_per_block) +
           " threads x " + std::to_string(request.registers_per_thread) +
           " registers need more than the " + std::to_string(arch.registers_per_block) +
           " registers a block may use.";
  return "This block cannot run on " + arch.id + ": it needs " +
         std::to_string(r.allocated_shared_memory_per_block) +
         " B of shared memory, more than one SM can give a block.";
}

// "at 48 registers per thread 5 blocks would fit", or "" when fewer registers would not help.
std::string fewer_registers(const Arch& arch, const OccupancyRequest& request, int blocks) {
  for (int regs = request.registers_per_thread - 1; regs >= 1; --regs) {
    OccupancyRequest varied = request;
    varied.registers_per_thread = regs;
    const int more = resident_blocks(arch, varied);
    if (more > blocks)
      return "at " + std::to_string(regs) + " registers per thread " +
             counted(static_cast<std::size_t>(more), "block") + " would fit";
  }
  return "";
}

// "at 45056 B of shared memory per block 5 blocks would fit", or "". The sizes tried are
// multiples of 128 B below the block's (shared memory is allocated in such steps), so the figure
// named is the largest that fits, not one found by stepping down from an odd size.
std::string less_shared_memory(const Arch& arch, const OccupancyRequest& request, int blocks) {
  const std::int64_t now = request.static_smem + request.dynamic_smem;
  for (std::int64_t total = (now - 1) / 128 * 128; total >= 0; total -= 128) {
    OccupancyRequest varied = request;
    varied.static_smem = std::min(request.static_smem, total);
    varied.dynamic_smem = total - varied.static_smem;
    const int more = resident_blocks(arch, varied);
    if (more > blocks)
      return "at " + std::to_string(total) + " B of shared memory per block " +
             counted(static_cast<std::size_t>(more), "block") + " would fit";
  }
  return "";
}

std::string warps_clause(const Arch& arch, const OccupancyResult& r) {
  if (r.warps_per_sm == r.max_warps_per_sm)
    return counted(static_cast<std::size_t>(r.blocks_per_sm), "block") + " of " +
           counted(static_cast<std::size_t>(r.warps_per_block), "warp") + " fill all " +
           std::to_string(r.max_warps_per_sm) + " warp slots";
  return counted(static_cast<std::size_t>(r.blocks_per_sm), "block") + " of " +
         counted(static_cast<std::size_t>(r.warps_per_block), "warp") + " use " +
         std::to_string(r.warps_per_sm) + " of " + std::to_string(r.max_warps_per_sm) +
         " warp slots; a block size that divides " + std::to_string(arch.max_threads_per_sm) +
         " threads would fill the SM";
}

std::string blocks_clause(const Arch& arch) {
  const int fill = arch.max_threads_per_sm / arch.max_blocks_per_sm;
  return "blocks of " + std::to_string(fill) + " threads or more would fill the SM";
}

} // namespace

std::string explain_occupancy(const Arch& arch, const OccupancyRequest& request,
                              const OccupancyResult& r) {
  if (r.blocks_per_sm == 0)
    return explain_no_fit(arch, request, r);

  const std::size_t count = r.limiters.size();
  std::string who;
  for (std::size_t i = 0; i < count; ++i)
    who += (i == 0 ? "" : (i + 1 == count ? " and " : ", ")) + display_name(arch, r.limiters[i]);
  who[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(who[0])));
  const std::string verb =
      count == 1 ? limit_verb(r.limiters[0]) : (count == 2 ? " both limit" : " all limit");
  const std::string sentence = who + verb + " this to " + std::to_string(r.blocks_per_sm) +
                               " block" + (r.blocks_per_sm == 1 ? "" : "s") + " per SM (" +
                               percent(r.occupancy) + " occupancy)";
  if (count > 1)
    return sentence + ".";

  std::string clause;
  switch (r.limiters[0]) {
  case Resource::registers:
    clause = fewer_registers(arch, request, r.blocks_per_sm);
    break;
  case Resource::shared_memory:
    clause = less_shared_memory(arch, request, r.blocks_per_sm);
    break;
  case Resource::warps:
    clause = warps_clause(arch, r);
    break;
  case Resource::blocks:
    clause = blocks_clause(arch);
    break;
  case Resource::barriers:
    break;
  }
  return sentence + (clause.empty() ? "" : "; " + clause) + ".";
}

} // namespace wl
