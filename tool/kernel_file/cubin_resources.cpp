#include "kernel_file/cubin_resources.h"

#include <cstdint>
#include <cstring>
#include <map>

namespace wl {

namespace {

constexpr std::uint32_t kSymbolTable = 2;
constexpr std::uint32_t kNvInfo = 0x70000000;
constexpr std::uint8_t kValueFormat = 4; // EIFMT_SVAL: a u16 size, then the value
constexpr std::uint8_t kFrameSize = 0x11, kRegisterCount = 0x2f, kParameter = 0x17;
constexpr int kReservedShared = 1024; // .nv.shared.reserved: the system's share of each block

struct Section {
  std::string name;
  std::uint32_t type = 0, link = 0, info = 0;
  std::uint64_t offset = 0, size = 0;
};

// Reads a little-endian value at `at`, if the cubin holds it.
template <typename T> std::optional<T> read(const std::vector<char>& bytes, std::uint64_t at) {
  if (at > bytes.size() || bytes.size() - at < sizeof(T))
    return std::nullopt;
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof(T));
  return value;
}

std::string text_at(const std::vector<char>& bytes, std::uint64_t at) {
  std::string text;
  while (at < bytes.size() && bytes[at] != '\0')
    text += bytes[at++];
  return text;
}

std::vector<Section> sections_of(const std::vector<char>& elf) {
  if (elf.size() < 64 ||
      std::memcmp(elf.data(),
                  "\x7f"
                  "ELF",
                  4) != 0 ||
      elf[4] != 2)
    return {};
  const auto table = read<std::uint64_t>(elf, 0x28);
  const auto entry = read<std::uint16_t>(elf, 0x3a), count = read<std::uint16_t>(elf, 0x3c),
             names = read<std::uint16_t>(elf, 0x3e);
  if (!table || !entry || !count || !names || *entry < 64 || *names >= *count)
    return {};
  std::vector<Section> sections;
  std::vector<std::uint32_t> name_offsets;
  for (std::uint16_t i = 0; i < *count; ++i) {
    const std::uint64_t at = *table + std::uint64_t{i} * *entry;
    const auto name = read<std::uint32_t>(elf, at), type = read<std::uint32_t>(elf, at + 4);
    const auto offset = read<std::uint64_t>(elf, at + 0x18),
               size = read<std::uint64_t>(elf, at + 0x20);
    const auto link = read<std::uint32_t>(elf, at + 0x28),
               info = read<std::uint32_t>(elf, at + 0x2c);
    if (!name || !type || !offset || !size || !link || !info)
      return {};
    sections.push_back(Section{"", *type, *link, *info, *offset, *size});
    name_offsets.push_back(*name);
  }
  for (std::size_t i = 0; i < sections.size(); ++i)
    sections[i].name = text_at(elf, sections[*names].offset + name_offsets[i]);
  return sections;
}

// The index of the symbol named `name` in the cubin's symbol table.
std::optional<std::uint32_t> symbol_index(const std::vector<char>& elf,
                                          const std::vector<Section>& sections,
                                          const std::string& name) {
  for (const Section& table : sections) {
    if (table.type != kSymbolTable || table.link >= sections.size())
      continue;
    for (std::uint64_t k = 0; k * 24 + 24 <= table.size; ++k) {
      const auto name_offset = read<std::uint32_t>(elf, table.offset + k * 24);
      if (name_offset && text_at(elf, sections[table.link].offset + *name_offset) == name)
        return static_cast<std::uint32_t>(k);
    }
  }
  return std::nullopt;
}

// The .nv.info attributes of one symbol: attribute -> value.
std::map<std::uint8_t, std::uint32_t> attributes_of(const std::vector<char>& elf,
                                                    const Section& info, std::uint32_t symbol) {
  std::map<std::uint8_t, std::uint32_t> values;
  for (std::uint64_t at = info.offset; at + 4 <= info.offset + info.size;) {
    const auto format = read<std::uint8_t>(elf, at), attribute = read<std::uint8_t>(elf, at + 1);
    const auto size = read<std::uint16_t>(elf, at + 2);
    if (!format || !attribute || !size)
      break;
    if (*format != kValueFormat) {
      at += 4;
      continue;
    }
    const auto owner = read<std::uint32_t>(elf, at + 4), value = read<std::uint32_t>(elf, at + 8);
    if (*size == 8 && owner && value && *owner == symbol)
      values[*attribute] = *value;
    at += 4 + *size;
  }
  return values;
}

} // namespace

std::optional<std::vector<int>> cubin_parameter_sizes(const std::vector<char>& cubin,
                                                      const std::string& mangled_name) {
  for (const Section& info : sections_of(cubin)) {
    if (info.type != kNvInfo || info.name != ".nv.info." + mangled_name)
      continue;
    // Each entry: its index (u32), ordinal (u16), offset (u16), and flags with the size in bytes
    // in the top 14 bits (u32).
    std::vector<int> sizes;
    for (std::uint64_t at = info.offset; at + 4 <= info.offset + info.size;) {
      const auto format = read<std::uint8_t>(cubin, at),
                 attribute = read<std::uint8_t>(cubin, at + 1);
      const auto size = read<std::uint16_t>(cubin, at + 2);
      if (!format || !attribute || !size)
        return std::nullopt;
      if (*format == kValueFormat && *attribute == kParameter && *size == 12) {
        const auto ordinal = read<std::uint16_t>(cubin, at + 8);
        const auto packed = read<std::uint32_t>(cubin, at + 12);
        if (!ordinal || !packed || *ordinal > 4096)
          return std::nullopt;
        if (sizes.size() <= *ordinal)
          sizes.resize(*ordinal + std::size_t{1}, 0);
        sizes[*ordinal] = static_cast<int>(*packed >> 18);
      }
      at += *format == kValueFormat ? 4 + *size : 4;
    }
    return sizes;
  }
  return std::nullopt;
}

std::optional<CompiledResources> cubin_resources(const std::vector<char>& cubin,
                                                 const std::string& mangled_name, int sm) {
  const std::vector<Section> sections = sections_of(cubin);
  const std::optional<std::uint32_t> symbol = symbol_index(cubin, sections, mangled_name);
  if (!symbol)
    return std::nullopt;
  std::map<std::uint8_t, std::uint32_t> attributes;
  bool reserves_shared = false;
  std::uint64_t shared = 0;
  for (const Section& s : sections) {
    if (s.type == kNvInfo && s.name == ".nv.info")
      attributes = attributes_of(cubin, s, *symbol);
    if (s.name.starts_with(".nv.shared.reserved"))
      reserves_shared = true;
    if (s.name == ".nv.shared." + mangled_name)
      shared = s.size;
  }
  if (!attributes.contains(kRegisterCount))
    return std::nullopt;
  if (reserves_shared && shared >= kReservedShared)
    shared -= kReservedShared;
  CompiledResources r;
  r.sm = sm;
  r.registers = static_cast<int>(attributes[kRegisterCount]);
  r.static_shared_bytes = static_cast<int>(shared);
  r.stack_frame_bytes = static_cast<int>(attributes[kFrameSize]);
  return r;
}

} // namespace wl
