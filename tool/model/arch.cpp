#include "model/arch.h"

#include "base/error.h"
#include "base/json_fields.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "model/block_text.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <set>

#include <nlohmann/json.hpp>

namespace wl {

namespace {

using nlohmann::json;

struct Range {
  std::int64_t min, max;
};

// How far each figure may go: a preset file is held to what GPUs have; a device's own figures
// (read back from the worker, a sweep file or a recording) to the same maxima, since no GPU has
// more, but not to the same minima (a device may report no bandwidth or L2 size).
template <class T> struct ArchKey {
  const char* key;
  T Arch::*field;
  Range preset, device;
};

constexpr ArchKey<int> kIntKeys[] = {
    {"sm_count", &Arch::sm_count, {1, 4096}, {1, 4096}},
    {"warp_size", &Arch::warp_size, {32, 32}, {32, 32}},
    {"max_threads_per_sm", &Arch::max_threads_per_sm, {32, 4096}, {1, 4096}},
    {"max_threads_per_block", &Arch::max_threads_per_block, {32, 4096}, {1, 4096}},
    {"max_blocks_per_sm", &Arch::max_blocks_per_sm, {1, 1024}, {1, 1024}},
    {"registers_per_sm", &Arch::registers_per_sm, {1024, 1 << 20}, {1, 1 << 20}},
    {"registers_per_block", &Arch::registers_per_block, {1024, 1 << 20}, {1, 1 << 20}},
    // The ISA addresses R0 to R254 (R255 reads as zero): no GPU gives a thread more.
    {"max_registers_per_thread", &Arch::max_registers_per_thread, {1, 255}, {1, 255}},
};

constexpr ArchKey<std::int64_t> kSizeKeys[] = {
    {"shared_memory_per_sm", &Arch::shared_memory_per_sm, {1, 1LL << 30}, {0, 1LL << 30}},
    {"shared_memory_per_block", &Arch::shared_memory_per_block, {1, 1LL << 30}, {0, 1LL << 30}},
    {"shared_memory_per_block_optin",
     &Arch::shared_memory_per_block_optin,
     {1, 1LL << 30},
     {0, 1LL << 30}},
    {"reserved_shared_memory_per_block",
     &Arch::reserved_shared_memory_per_block,
     {0, 1 << 20},
     {0, 1 << 20}},
    {"l2_cache_bytes", &Arch::l2_cache_bytes, {1, 1LL << 40}, {0, 1LL << 40}},
};

// Both parts whole numbers; a preset's from 7.0 (Volta) to 12.9.
void read_compute_capability(const Fields& fields, bool preset, Arch& arch) {
  const std::string text = fields.text("compute_capability");
  if (!parse_compute_capability(text, arch.cc_major, arch.cc_minor) || arch.cc_major < 1)
    fields.fail("compute_capability", "'" + clip(text, 20) + "' is not MAJOR.MINOR",
                "write it like \"9.0\"");
  if (preset && (arch.cc_major < 7 || arch.cc_major > 12 || arch.cc_minor < 0 || arch.cc_minor > 9))
    fields.fail("compute_capability", clip(text, 20) + " is not modelled",
                "WarpLens models 7.0 to 12.9");
}

// Every key a preset file may hold, in the order arch_from_fields reads them (uuid too, so that
// an entry of `warplens arches --json` reads back as a preset).
std::vector<std::string_view> preset_keys() {
  std::vector<std::string_view> keys{"id", "name", "aliases", "compute_capability"};
  for (const ArchKey<int>& key : kIntKeys)
    keys.push_back(key.key);
  for (const ArchKey<std::int64_t>& key : kSizeKeys)
    keys.push_back(key.key);
  keys.insert(keys.end(), {"max_block_dims", "dram_bandwidth_gbps", "l2_bandwidth_gbps",
                           "sm_clock_mhz", "source", "uuid"});
  return keys;
}

// The SM schedules whole warps: its threads and a block's limit are whole numbers of them.
void check_whole_warps(const Fields& reader, const char* key, int threads, int warp_size) {
  if (threads % warp_size != 0)
    reader.fail(key, std::to_string(threads) + " is not a whole number of warps",
                "allowed a multiple of " + std::to_string(warp_size) + " (warp_size)");
}

void check_consistency(const Fields& reader, const Arch& arch) {
  check_whole_warps(reader, "max_threads_per_sm", arch.max_threads_per_sm, arch.warp_size);
  check_whole_warps(reader, "max_threads_per_block", arch.max_threads_per_block, arch.warp_size);
  // A block is a warp at least, so more blocks than warps can never be resident at once.
  if (arch.max_blocks_per_sm > arch.max_warps_per_sm())
    reader.fail("max_blocks_per_sm",
                std::to_string(arch.max_blocks_per_sm) + " blocks of at least one warp need " +
                    std::to_string(arch.max_blocks_per_sm * arch.warp_size) + " threads",
                "allowed at most " + std::to_string(arch.max_warps_per_sm()) +
                    " (max_threads_per_sm / " + std::to_string(arch.warp_size) + ")");
  if (arch.max_threads_per_block > arch.max_threads_per_sm)
    reader.fail("max_threads_per_block", "exceeds max_threads_per_sm",
                "allowed at most max_threads_per_sm");
  if (arch.registers_per_block > arch.registers_per_sm)
    reader.fail("registers_per_block", "exceeds registers_per_sm",
                "allowed at most registers_per_sm");
  if (arch.shared_memory_per_block > arch.shared_memory_per_block_optin)
    reader.fail("shared_memory_per_block", "exceeds shared_memory_per_block_optin",
                "allowed at most shared_memory_per_block_optin");
  if (arch.shared_memory_per_block_optin + arch.reserved_shared_memory_per_block >
      arch.shared_memory_per_sm)
    reader.fail("shared_memory_per_block_optin",
                "plus the reserved part exceeds shared_memory_per_sm",
                "allowed at most shared_memory_per_sm in all");
  if (arch.l2_bandwidth_gbps > 0 && arch.l2_bandwidth_gbps < arch.dram_bandwidth_gbps)
    reader.fail("l2_bandwidth_gbps", "is below dram_bandwidth_gbps, but every DRAM byte crosses L2",
                "allowed 0 (unknown) or at least dram_bandwidth_gbps");
}

// `--arch device[:N]` is this machine's GPU, and a result whose arch id begins with "device" reads
// as measured on one: a preset named so would print as if it were the GPU in the machine.
bool reserved_name(std::string_view name) { return name.starts_with("device"); }

void check_name_not_reserved(const Fields& fields, const char* key, const std::string& name) {
  if (reserved_name(name))
    fields.fail(key, "'" + clip(name, 30) + "' is reserved",
                "allowed a name that does not begin with 'device' (--arch device[:N] is this "
                "machine's GPU)");
}

// A preset's own names: its id once, and each alias a name of its own, once.
void check_own_names(const Fields& fields, const Arch& arch) {
  check_name_not_reserved(fields, "id", arch.id);
  std::set<std::string> seen;
  for (const std::string& alias : arch.aliases) {
    if (alias.empty())
      fields.fail("aliases", "'' is empty", "allowed non-empty names, or no aliases ([])");
    check_name_not_reserved(fields, "aliases", alias);
    if (alias == arch.id)
      fields.fail("aliases", "'" + clip(alias, 30) + "' is the preset's own id",
                  "allowed names other than the id");
    if (!seen.insert(alias).second)
      fields.fail("aliases", "'" + clip(alias, 30) + "' is given twice", "allowed each name once");
  }
}

// An --arch name picks one preset: no name of `arch` may be a name of another.
void check_names_free(const Arch& arch, const std::vector<Arch>& others, const std::string& where) {
  const auto taken_by = [&](const std::string& name) -> const Arch* {
    for (const Arch& other : others)
      if (other.id == name ||
          std::find(other.aliases.begin(), other.aliases.end(), name) != other.aliases.end())
        return &other;
    return nullptr;
  };
  const auto check = [&](const char* key, const std::string& name) {
    if (const Arch* other = taken_by(name))
      input_error(where, key,
                  "'" + clip(name, 30) + "' is already a name of the preset " + other->id,
                  "allowed names no other preset uses");
  };
  check("id", arch.id);
  for (const std::string& alias : arch.aliases)
    check("aliases", alias);
}

} // namespace

std::string device_label(const Arch& arch) {
  return arch.uuid.empty() ? arch.name : arch.name + " (" + arch.uuid.substr(0, 12) + ")";
}

bool parse_compute_capability(std::string_view text, int& major, int& minor) {
  const std::size_t dot = text.find('.');
  const auto part = [&](std::string_view digits, int& out) {
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
    return !digits.empty() && ec == std::errc() && ptr == digits.data() + digits.size();
  };
  return dot != std::string_view::npos && part(text.substr(0, dot), major) &&
         part(text.substr(dot + 1), minor);
}

// Speeds no GPU has (a worker's device said 0.001 GB/s, and the Timings panel showed a launch at
// 250,000,000 % of it): refused, with 0 allowed where a figure is not known.
void check_speeds(const Fields& fields, const Arch& arch) {
  const auto within = [&](const char* key, double value, double low, double high,
                          const char* unit) {
    if (value != 0 && (value < low || value > high))
      fields.fail(key, format_number(value, value < 1 ? 6 : 0) + " " + unit,
                  "allowed 0 (unknown) or " + format_number(low, 0) + " to " +
                      format_number(high, 0) + " " + unit + " (no GPU is outside them)");
  };
  within("dram_bandwidth_gbps", arch.dram_bandwidth_gbps, 10, 1e5, "GB/s");
  within("l2_bandwidth_gbps", arch.l2_bandwidth_gbps, 10, 1e6, "GB/s");
  within("sm_clock_mhz", arch.sm_clock_mhz, 100, 5000, "MHz");
}

Arch arch_from_fields(const Fields& fields, ArchOrigin origin) {
  const bool preset = origin == ArchOrigin::preset_file;
  const auto range = [&](const auto& key) { return preset ? key.preset : key.device; };
  // A misspelt optional key (sm_clock_mhs) would read as absent and quietly take the default.
  if (preset)
    fields.only(preset_keys(), "a preset");
  Arch arch;
  arch.id = fields.name("id", false);
  arch.name = fields.name("name", !preset);
  arch.aliases = fields.names("aliases");
  read_compute_capability(fields, preset, arch);
  for (const ArchKey<int>& key : kIntKeys)
    arch.*key.field = static_cast<int>(fields.integer(key.key, range(key).min, range(key).max));
  for (const ArchKey<std::int64_t>& key : kSizeKeys)
    arch.*key.field = fields.integer(key.key, range(key).min, range(key).max);
  const std::vector<std::int64_t> dims = fields.integers("max_block_dims", 3, 3, 1, 1 << 20);
  for (int i = 0; i < 3; ++i)
    arch.max_block_dims[i] = static_cast<int>(dims[i]);
  arch.dram_bandwidth_gbps = fields.number("dram_bandwidth_gbps", preset ? kAboveZero : 0, 1e6);
  arch.l2_bandwidth_gbps = fields.number_or("l2_bandwidth_gbps", 0, 0, 1e6);
  // Every bundled preset has it (a test checks); a preset of a user's or a result recorded
  // before the clock was carried may not, and the shared-memory time is then not modelled.
  arch.sm_clock_mhz = fields.number_or("sm_clock_mhz", 0, 0, 10000);
  arch.source = fields.name("source", !preset);
  // Results written before it was carried have none.
  arch.uuid = fields.has("uuid") ? fields.name("uuid") : "";
  if (preset) {
    check_own_names(fields, arch);
    check_consistency(fields, arch);
  }
  check_speeds(fields, arch);
  return arch;
}

// The CUDA C++ Best Practices Guide, "Throughput of Native Arithmetic Instructions" (the
// Programming Guide's table up to CUDA 12), row "32-bit floating-point add, multiply,
// multiply-add": 64 results per clock per SM on 7.x and 8.0, 128 on 8.6, 8.7, 8.9, 9.0, 10.0 and
// 12.x. Each preset's datasheet peak agrees (H100 SXM5: 132 SMs x 128 x 2 x 1,980 MHz = 66.9
// TFLOP/s, the datasheet's 67).
int Arch::fp32_per_clock_per_sm() const {
  if (cc_major == 7 || (cc_major == 8 && cc_minor == 0))
    return 64;
  if (cc_major == 8 || cc_major == 9 || (cc_major == 10 && cc_minor == 0) || cc_major == 12)
    return 128;
  return 0;
}

double Arch::fp32_peak_gflops() const {
  return double(sm_count) * fp32_per_clock_per_sm() * 2 * sm_clock_mhz / 1e3;
}

const Arch* preset_of_kind(const std::vector<Arch>& presets, const Arch& gpu) {
  const Arch* found = nullptr;
  for (const Arch& preset : presets) {
    if (preset.cc_major != gpu.cc_major || preset.cc_minor != gpu.cc_minor ||
        preset.sm_count != gpu.sm_count)
      continue;
    if (preset.name.starts_with(gpu.name) || gpu.name.starts_with(preset.name))
      return &preset;
    found = found ? found : &preset;
  }
  return found;
}

Arch arch_from_json(const json& json, const std::string& origin) {
  return arch_from_fields(Fields(json, origin), ArchOrigin::preset_file);
}

Arch load_arch_file(const std::filesystem::path& file) {
  return arch_from_json(read_json_document(file, "preset file"), file.string());
}

json arch_to_json(const Arch& arch) {
  return json{
      {"id", arch.id},
      {"name", arch.name},
      {"aliases", arch.aliases},
      {"compute_capability", std::to_string(arch.cc_major) + "." + std::to_string(arch.cc_minor)},
      {"sm_count", arch.sm_count},
      {"warp_size", arch.warp_size},
      {"max_threads_per_sm", arch.max_threads_per_sm},
      {"max_threads_per_block", arch.max_threads_per_block},
      {"max_block_dims", arch.max_block_dims},
      {"max_blocks_per_sm", arch.max_blocks_per_sm},
      {"registers_per_sm", arch.registers_per_sm},
      {"registers_per_block", arch.registers_per_block},
      {"max_registers_per_thread", arch.max_registers_per_thread},
      {"shared_memory_per_sm", arch.shared_memory_per_sm},
      {"shared_memory_per_block", arch.shared_memory_per_block},
      {"shared_memory_per_block_optin", arch.shared_memory_per_block_optin},
      {"reserved_shared_memory_per_block", arch.reserved_shared_memory_per_block},
      {"l2_cache_bytes", arch.l2_cache_bytes},
      {"dram_bandwidth_gbps", arch.dram_bandwidth_gbps},
      {"l2_bandwidth_gbps", arch.l2_bandwidth_gbps},
      {"sm_clock_mhz", arch.sm_clock_mhz},
      {"source", arch.source},
      {"uuid", arch.uuid}};
}

std::vector<Arch> load_arch_presets(const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".json")
      files.push_back(it->path());
  if (ec)
    throw UsageError(clip(folder.string(), 160) + ": cannot list the presets (" + ec.message() +
                     ")");
  std::sort(files.begin(), files.end());

  std::vector<Arch> presets;
  for (const auto& file : files) {
    Arch arch = load_arch_file(file);
    if (file.stem() != arch.id)
      throw UsageError(clip(file.string(), 160) + ": id: '" + clip(arch.id, 40) +
                       "' differs from the file name; "
                       "allowed the file's name without .json");
    check_names_free(arch, presets, file.string());
    presets.push_back(std::move(arch));
  }
  if (presets.empty())
    throw UsageError(folder.string() + ": no architecture presets (*.json)");
  return presets;
}

std::string preset_ids(const std::vector<Arch>& presets) {
  std::string ids;
  for (const Arch& arch : presets)
    ids += (ids.empty() ? "" : ", ") + arch.id;
  return ids;
}

bool is_preset_path(std::string_view spec) {
  return spec.ends_with(".json") || spec.find('/') != std::string_view::npos;
}

Arch find_arch(const std::vector<Arch>& presets, const std::string& spec,
               std::string_view more_choices) {
  if (is_preset_path(spec)) {
    Arch arch = load_arch_file(spec);
    // A copy of a bundled preset keeps its id and aliases: it is that preset, edited.
    std::vector<Arch> others;
    std::copy_if(presets.begin(), presets.end(), std::back_inserter(others),
                 [&](const Arch& other) { return other.id != arch.id; });
    check_names_free(arch, others, spec);
    return arch;
  }
  for (const Arch& arch : presets)
    if (arch.id == spec ||
        std::find(arch.aliases.begin(), arch.aliases.end(), spec) != arch.aliases.end())
      return arch;
  std::string aliases;
  for (const Arch& arch : presets)
    for (const auto& alias : arch.aliases)
      aliases += (aliases.empty() ? "" : ", ") + alias;
  throw UsageError("unknown arch '" + clip(spec, 60) + "'; choose one of " + preset_ids(presets) +
                   " (aliases " + aliases + "), " +
                   (more_choices.empty() ? "" : std::string(more_choices) + ", ") +
                   "or a path to a .json preset");
}

void check_block_fits(const Arch& arch, const BlockShape& block) {
  if (block.threads() > arch.max_threads_per_block)
    throw UsageError("block " + format_block(block) + " has " + std::to_string(block.threads()) +
                     " threads; " + arch.id + " allows 1 to " +
                     std::to_string(arch.max_threads_per_block) + " threads per block");
  const char* axis[] = {"x", "y", "z"};
  const int sides[] = {block.x, block.y, block.z};
  for (int i = 0; i < 3; ++i)
    if (sides[i] > arch.max_block_dims[i])
      throw UsageError("block " + format_block(block) + ": " + axis[i] + " is " +
                       std::to_string(sides[i]) + "; " + arch.id + " allows " + axis[i] +
                       " from 1 to " + std::to_string(arch.max_block_dims[i]));
}

const Arch& preset_of_device(const Arch& device, const std::vector<Arch>& presets) {
  // Two kinds may share the SMs and compute capability (an H100 SXM and an H200 have 132 SMs of
  // 9.0): the one whose name starts with the device's ("NVIDIA H200" in "NVIDIA H200 SXM 141GB
  // HBM3e") first, else the first that matches.
  const Arch* matching = nullptr;
  for (const Arch& preset : presets)
    if (preset.sm_count == device.sm_count && preset.cc_major == device.cc_major &&
        preset.cc_minor == device.cc_minor) {
      if (!device.name.empty() && preset.name.starts_with(device.name))
        return preset;
      if (!matching)
        matching = &preset;
    }
  if (matching)
    return *matching;
  throw UsageError("no preset stands for " + device.name + " (" + std::to_string(device.sm_count) +
                   " SMs, " + device.sm_name() +
                   "): a recording is of a preset; give --arch a preset file of this GPU");
}

std::string preset_refusal(const Arch& preset, const Arch& device,
                           const std::vector<Arch>& presets) {
  if (preset.sm_count != device.sm_count || preset.cc_major != device.cc_major ||
      preset.cc_minor != device.cc_minor)
    return "a GPU of " + std::to_string(device.sm_count) + " SMs, " + device.sm_name() +
           " cannot stand for " + preset.id + " (" + std::to_string(preset.sm_count) + " SMs, " +
           preset.sm_name() + ")";
  for (const Arch& other : presets)
    if (other.id != preset.id && other.sm_count == device.sm_count &&
        other.cc_major == device.cc_major && other.cc_minor == device.cc_minor &&
        !device.name.empty() && other.name.starts_with(device.name))
      return clip(device.name, 60) + " is preset " + other.id + "'s GPU, not " + preset.id + "'s";
  return "";
}

} // namespace wl
