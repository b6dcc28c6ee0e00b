#include "arch.h"

#include "assets.h"
#include "block_text.h"
#include "error.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

namespace wl {

namespace {

using nlohmann::json;

// Reads the keys of one preset, collecting the origin so every message names the file.
class PresetReader {
public:
  PresetReader(const json& json, const std::string& origin) : m_json(json), m_origin(origin) {
    if (!json.is_object()) fail("the preset must be a JSON object");
  }

  [[noreturn]] void fail(const std::string& why) const { throw UsageError(m_origin + ": " + why); }

  const json& key(const char* name) const {
    const auto it = m_json.find(name);
    if (it == m_json.end()) fail(std::string("missing key '") + name + "'");
    return *it;
  }

  std::int64_t integer(const char* name, std::int64_t min, std::int64_t max) const {
    const json& value = key(name);
    if (!value.is_number_integer())
      fail(std::string("key '") + name + "' must be a whole number, got " + value.dump());
    const auto number = value.get<std::int64_t>();
    if (number < min || number > max)
      fail(std::string("key '") + name + "' is " + std::to_string(number) + "; allowed " +
           std::to_string(min) + " to " + std::to_string(max));
    return number;
  }

  double positive_number(const char* name) const {
    const json& value = key(name);
    if (!value.is_number() || value.get<double>() <= 0)
      fail(std::string("key '") + name + "' must be a positive number, got " + value.dump());
    return value.get<double>();
  }

  std::string text(const char* name) const {
    const json& value = key(name);
    if (!value.is_string() || value.get<std::string>().empty())
      fail(std::string("key '") + name + "' must be a non-empty string, got " + value.dump());
    return value.get<std::string>();
  }

  std::vector<std::string> texts(const char* name) const {
    const json& value = key(name);
    std::vector<std::string> out;
    if (value.is_array())
      for (const json& item : value)
        if (item.is_string()) out.push_back(item.get<std::string>());
    if (!value.is_array() || out.size() != value.size())
      fail(std::string("key '") + name + "' must be a list of strings, got " + value.dump());
    return out;
  }

private:
  const json& m_json;
  const std::string& m_origin;
};

void parse_compute_capability(const PresetReader& reader, const std::string& text, Arch& arch) {
  const auto dot = text.find('.');
  try {
    std::size_t used = 0;
    arch.cc_major = std::stoi(text.substr(0, dot), &used);
    arch.cc_minor = std::stoi(text.substr(dot + 1));
    if (dot == std::string::npos || used != dot) throw std::invalid_argument(text);
  } catch (const std::exception&) {
    reader.fail("key 'compute_capability' is '" + text + "'; write it as MAJOR.MINOR, e.g. \"9.0\"");
  }
  if (arch.cc_major < 7 || arch.cc_major > 12 || arch.cc_minor < 0 || arch.cc_minor > 9)
    reader.fail("key 'compute_capability' is " + text + "; WarpLens models 7.5 to 12.x");
}

void check_consistency(const PresetReader& reader, const Arch& arch) {
  if (arch.max_threads_per_block > arch.max_threads_per_sm)
    reader.fail("max_threads_per_block exceeds max_threads_per_sm");
  if (arch.registers_per_block > arch.registers_per_sm)
    reader.fail("registers_per_block exceeds registers_per_sm");
  if (arch.shared_memory_per_block > arch.shared_memory_per_block_optin)
    reader.fail("shared_memory_per_block exceeds shared_memory_per_block_optin");
  if (arch.shared_memory_per_block_optin + arch.reserved_shared_memory_per_block >
      arch.shared_memory_per_sm)
    reader.fail("shared_memory_per_block_optin plus the reserved part exceeds shared_memory_per_sm");
}

} // namespace

Arch arch_from_json(const json& preset, const std::string& origin) {
  const PresetReader reader(preset, origin);
  Arch arch;
  arch.id = reader.text("id");
  arch.name = reader.text("name");
  arch.aliases = reader.texts("aliases");
  parse_compute_capability(reader, reader.text("compute_capability"), arch);
  arch.sm_count = static_cast<int>(reader.integer("sm_count", 1, 4096));
  arch.warp_size = static_cast<int>(reader.integer("warp_size", 32, 32));
  arch.max_threads_per_sm = static_cast<int>(reader.integer("max_threads_per_sm", 32, 4096));
  arch.max_threads_per_block = static_cast<int>(reader.integer("max_threads_per_block", 32, 4096));
  const json& dims = reader.key("max_block_dims");
  if (!dims.is_array() || dims.size() != 3 ||
      !std::all_of(dims.begin(), dims.end(), [](const auto& d) { return d.is_number_integer() && d > 0; }))
    reader.fail("key 'max_block_dims' must be three positive whole numbers, got " + dims.dump());
  for (int i = 0; i < 3; ++i) arch.max_block_dims[i] = dims[i].get<int>();
  arch.max_blocks_per_sm = static_cast<int>(reader.integer("max_blocks_per_sm", 1, 1024));
  arch.registers_per_sm = static_cast<int>(reader.integer("registers_per_sm", 1024, 1 << 20));
  arch.registers_per_block = static_cast<int>(reader.integer("registers_per_block", 1024, 1 << 20));
  arch.max_registers_per_thread = static_cast<int>(reader.integer("max_registers_per_thread", 1, 1024));
  arch.shared_memory_per_sm = reader.integer("shared_memory_per_sm", 1, 1LL << 30);
  arch.shared_memory_per_block = reader.integer("shared_memory_per_block", 1, 1LL << 30);
  arch.shared_memory_per_block_optin = reader.integer("shared_memory_per_block_optin", 1, 1LL << 30);
  arch.reserved_shared_memory_per_block = reader.integer("reserved_shared_memory_per_block", 0, 1 << 20);
  arch.l2_cache_bytes = reader.integer("l2_cache_bytes", 1, 1LL << 40);
  arch.dram_bandwidth_gbps = reader.positive_number("dram_bandwidth_gbps");
  arch.source = reader.text("source");
  check_consistency(reader, arch);
  return arch;
}

Arch load_arch_file(const std::filesystem::path& file) {
  return arch_from_json(read_json_file(file, "preset file"), file.string());
}

json arch_to_json(const Arch& arch) {
  return json{{"id", arch.id},
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
              {"source", arch.source}};
}

std::vector<Arch> load_arch_presets(const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());

  std::vector<Arch> presets;
  std::set<std::string> names;
  for (const auto& file : files) {
    Arch arch = load_arch_file(file);
    if (file.stem() != arch.id)
      throw UsageError(file.string() + ": id '" + arch.id + "' must match the file name");
    for (const auto& name : [&] { auto all = arch.aliases; all.push_back(arch.id); return all; }())
      if (!names.insert(name).second)
        throw UsageError(file.string() + ": '" + name + "' is already the id or alias of another preset");
    presets.push_back(std::move(arch));
  }
  if (presets.empty()) throw UsageError(folder.string() + ": no architecture presets (*.json)");
  return presets;
}

Arch find_arch(const std::vector<Arch>& presets, const std::string& spec) {
  if (spec.ends_with(".json") || spec.find('/') != std::string::npos) return load_arch_file(spec);
  for (const Arch& arch : presets)
    if (arch.id == spec || std::find(arch.aliases.begin(), arch.aliases.end(), spec) != arch.aliases.end())
      return arch;
  std::string known, aliases;
  for (const Arch& arch : presets) {
    known += (known.empty() ? "" : ", ") + arch.id;
    for (const auto& alias : arch.aliases) aliases += (aliases.empty() ? "" : ", ") + alias;
  }
  throw UsageError("unknown arch '" + spec + "'; choose one of " + known + " (aliases " + aliases +
                   "), 'device', or a path to a .json preset");
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

} // namespace wl
