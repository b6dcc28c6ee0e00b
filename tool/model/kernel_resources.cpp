#include "model/kernel_resources.h"

#include <cstdlib>
#include <cxxabi.h>
#include <memory>
#include <regex>
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

ResourceTable parse_ptxas_report(const std::string& text) {
  static const std::regex entry(R"(Compiling entry function '([^']+)' for 'sm_(\d+)a?')");
  static const std::regex frame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(
      R"(Used (\d+) registers(?:, used (\d+) barriers)?(?:, \d+ bytes cumulative stack size)?(?:, (\d+) bytes smem)?)");
  ResourceTable table;
  std::istringstream lines(text);
  std::string line, current;
  CompiledResources resources;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_search(line, m, entry)) {
      current = demangled_kernel_name(m[1]);
      resources = CompiledResources{};
      resources.sm = std::stoi(m[2]);
    } else if (!current.empty() && std::regex_search(line, m, frame)) {
      resources.stack_frame_bytes = std::stoi(m[1]);
      resources.spill_store_bytes = std::stoi(m[2]);
      resources.spill_load_bytes = std::stoi(m[3]);
    } else if (!current.empty() && std::regex_search(line, m, used)) {
      resources.registers = std::stoi(m[1]);
      resources.barriers = m[2].matched ? std::stoi(m[2]) : 0;
      resources.static_shared_bytes = m[3].matched ? std::stoi(m[3]) : 0;
      table[current][resources.sm] = resources;
      current.clear();
    }
  }
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
    static const std::regex version(R"(nvcc ([0-9]+\.[0-9]+))");
    std::cmatch m;
    return std::regex_search(recorded_report_text(), m, version) ? m[1].str() : std::string();
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
