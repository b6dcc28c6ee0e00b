#include "model/kernel_resources.h"

#include "base/text_scan.h"

#include <cstdlib>
#include <cxxabi.h>
#include <memory>
#include <sstream>

namespace wl {

namespace {

// kernels/recorded_resource_usage.txt, embedded as a raw string when the build is configured.
const char* recorded_report_text() {
  return
#include "recorded_resource_usage.inc"
      ;
}

} // namespace

std::string demangled_kernel_name(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> demangled(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || !demangled)
    return mangled;
  std::string name = demangled.get();
  // Cut the parameter list: the last '(' at template depth zero.
  int depth = 0;
  std::size_t open = std::string::npos;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<')
      ++depth;
    else if (name[i] == '>')
      --depth;
    else if (name[i] == '(' && depth == 0 && name.compare(i, 11, "(anonymous ") != 0)
      open = i;
  }
  if (open != std::string::npos)
    name.erase(open);
  if (name.starts_with("void "))
    name.erase(0, 5); // templates carry their return type
  return name;
}

namespace {

// The whole number written just before `marker` in `row` ("8 registers" for " registers"), or
// nullopt where the marker is not there or no number (of at most 2^31 - 1) precedes it.
std::optional<int> number_before(std::string_view row, std::string_view marker) {
  const std::size_t end = row.find(marker);
  if (end == std::string_view::npos)
    return std::nullopt;
  std::size_t start = end;
  while (start > 0 && row[start - 1] >= '0' && row[start - 1] <= '9')
    --start;
  TextScan digits(row.substr(start, end - start));
  const std::optional<std::int64_t> value = digits.whole_number();
  return value ? std::optional<int>(static_cast<int>(*value)) : std::nullopt;
}

// "Compiling entry function '_Z6kernelPf' for 'sm_90a'" -> the name and 90.
std::optional<std::pair<std::string, int>> compiled_entry(std::string_view row) {
  TextScan scan(row);
  if (!scan.skip_past("Compiling entry function '"))
    return std::nullopt;
  const std::string_view name = scan.until('\'');
  if (!scan.take("' for 'sm_"))
    return std::nullopt;
  const std::optional<std::int64_t> sm = scan.whole_number(10000);
  if (!sm)
    return std::nullopt;
  return std::pair{std::string(name), static_cast<int>(*sm)};
}

} // namespace

ResourceTable parse_ptxas_report(const std::string& text) {
  ResourceTable table;
  std::string current;
  CompiledResources resources;
  for_each_line(text, [&](std::string_view row) {
    if (const auto entry = compiled_entry(row)) {
      current = demangled_kernel_name(entry->first);
      resources = CompiledResources{};
      resources.sm = entry->second;
    } else if (current.empty()) {
    } else if (const auto frame = number_before(row, " bytes stack frame, ")) {
      resources.stack_frame_bytes = *frame;
      resources.spill_store_bytes = number_before(row, " bytes spill stores").value_or(0);
      resources.spill_load_bytes = number_before(row, " bytes spill loads").value_or(0);
    } else if (row.find("Used ") != std::string_view::npos) {
      const std::optional<int> registers = number_before(row, " registers");
      if (!registers)
        return;
      resources.registers = *registers;
      resources.barriers = number_before(row, " barriers").value_or(0);
      resources.static_shared_bytes = number_before(row, " bytes smem").value_or(0);
      table[current][resources.sm] = resources;
      current.clear();
    }
  });
  return table;
}

const ResourceTable& built_resource_report() {
  static const ResourceTable table = parse_ptxas_report(
#include "kernel_resource_usage.inc"
  );
  return table;
}

const ResourceTable& recorded_resource_report() {
  static const ResourceTable table = [] {
    ResourceTable read = parse_ptxas_report(recorded_report_text());
    for (auto& [symbol, by_sm] : read)
      for (auto& [sm, resources] : by_sm)
        resources.recorded = true;
    return read;
  }();
  return table;
}

std::string recorded_nvcc_version() {
  // Read once: every model of a kernel whose registers come from the record names it.
  static const std::string read = [] {
    // "nvcc 13.0": the first "nvcc " followed by MAJOR.MINOR.
    TextScan scan(recorded_report_text());
    while (scan.skip_past("nvcc ")) {
      const std::size_t start = scan.at();
      if (scan.whole_number() && scan.take(".") && scan.whole_number())
        return std::string(
            std::string_view(recorded_report_text()).substr(start, scan.at() - start));
    }
    return std::string();
  }();
  return read;
}

std::optional<CompiledResources> compiled_resources(const std::string& symbol, int sm) {
  // The architecture the driver would load: the highest built that does not exceed `sm`.
  const auto at_or_below = [&](const ResourceTable& table) -> std::optional<CompiledResources> {
    const auto it = table.find(symbol);
    if (it == table.end() || it->second.empty())
      return std::nullopt;
    const auto above = it->second.upper_bound(sm);
    if (above == it->second.begin())
      return std::nullopt;
    return std::prev(above)->second;
  };
  const auto built = at_or_below(built_resource_report());
  if (built && built->sm == sm)
    return built;
  if (const auto recorded = at_or_below(recorded_resource_report()))
    return recorded;
  if (built)
    return built;
  // Nothing at or below `sm`: the lowest this build has.
  const auto it = built_resource_report().find(symbol);
  if (it == built_resource_report().end() || it->second.empty())
    return std::nullopt;
  return it->second.begin()->second;
}

} // namespace wl
