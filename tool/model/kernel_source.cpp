#include "model/kernel_source.h"

#include "base/error.h"
#include "registry.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cxxabi.h>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <sstream>

// The kernels' cubins, placed in the binary by the assembler (cmake/GatherKernelBinaries.cmake).
#define WL_EMBEDDED_DATA
#include "kernel_binaries.inc"
#undef WL_EMBEDDED_DATA

namespace wl {
namespace {

struct EmbeddedSource {
  const char* name;
  const char* text;
};
struct EmbeddedCubin {
  const char* name; // "vec_add.sm_90.cubin"
  const unsigned char* bytes;
  std::size_t size;
};

#include "kernel_binaries.inc"

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

const std::map<std::string, FamilySource>& family_sources() {
  static const std::map<std::string, FamilySource> sources = [] {
    std::map<std::string, FamilySource> by_file;
    for (const EmbeddedSource& s : kEmbeddedSources)
      by_file[s.name] = {s.name, split_lines(s.text)};
    return by_file;
  }();
  return sources;
}

// The site names a line's marker lists: "// site: load a" or "// sites: load row max, load row
// sum". A scan, not a regex: every report of a run reads every line of the family's file.
std::vector<std::string> marked_sites(const std::string& line) {
  const auto space = [](char c) { return c == ' ' || c == '\t'; };
  for (std::size_t comment = line.find("//"); comment != std::string::npos;
       comment = line.find("//", comment + 1)) {
    std::size_t at = comment + 2;
    while (at < line.size() && space(line[at]))
      ++at;
    if (line.compare(at, 4, "site") != 0)
      continue;
    at += 4;
    if (at < line.size() && line[at] == 's')
      ++at;
    if (at >= line.size() || line[at] != ':')
      continue;
    std::string list = line.substr(at + 1);
    while (!list.empty() && std::isspace(static_cast<unsigned char>(list.back())))
      list.pop_back();
    if (list.find_first_not_of(" \t") == std::string::npos)
      continue; // "// site:" names nothing
    std::vector<std::string> names;
    std::istringstream items(list);
    for (std::string name; std::getline(items, name, ',');) {
      const auto first = name.find_first_not_of(" \t");
      names.push_back(first == std::string::npos ? "" : name.substr(first));
    }
    return names;
  }
  return {};
}

struct LineRange {
  int first = 0, last = 0; // 1-based, inclusive
  bool contains(int line) const { return line >= first && line <= last; }
};

// The line after `from` (0-based) where the brace opened at or after it closes.
int closing_line(const std::vector<std::string>& lines, std::size_t from) {
  int depth = 0;
  bool opened = false;
  for (std::size_t i = from; i < lines.size(); ++i) {
    const std::string code = lines[i].substr(0, lines[i].find("//"));
    for (const char c : code) {
      if (c == '{') {
        ++depth;
        opened = true;
      } else if (c == '}') {
        --depth;
      }
    }
    if (opened && depth == 0)
      return static_cast<int>(i) + 1;
  }
  return static_cast<int>(lines.size());
}

struct Function {
  LineRange range;
  bool kernel = false; // __global__
};

// Every __global__ and __device__ function defined in the file, by name: from the line that
// declares it to its closing brace.
// The signature without its __launch_bounds__(...), whose arguments may hold parentheses.
std::string without_launch_bounds(std::string signature) {
  const auto start = signature.find("__launch_bounds__");
  if (start == std::string::npos)
    return signature;
  auto end = signature.find('(', start);
  for (int depth = 0; end < signature.size(); ++end) {
    depth += signature[end] == '(' ? 1 : signature[end] == ')' ? -1 : 0;
    if (depth == 0)
      break;
  }
  return signature.erase(start, end == std::string::npos ? end : end + 1 - start);
}

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The first identifier written just before a '(' (spaces between allowed): a function's name in
// its signature. "" if none.
std::string name_before_paren(const std::string& signature) {
  for (std::size_t paren = signature.find('('); paren != std::string::npos;
       paren = signature.find('(', paren + 1)) {
    std::size_t end = paren;
    while (end > 0 && std::isspace(static_cast<unsigned char>(signature[end - 1])))
      --end;
    std::size_t begin = end;
    while (begin > 0 && identifier_char(signature[begin - 1]))
      --begin;
    while (begin < end && std::isdigit(static_cast<unsigned char>(signature[begin])))
      ++begin; // an identifier starts with a letter or '_'
    if (begin < end)
      return signature.substr(begin, end - begin);
  }
  return "";
}

// Whether `body` writes `name` as a whole word followed by '(' or '<': a call, or a template's.
bool calls(const std::string& body, const std::string& name) {
  for (std::size_t at = body.find(name); at != std::string::npos; at = body.find(name, at + 1)) {
    if (at > 0 && identifier_char(body[at - 1]))
      continue;
    std::size_t next = at + name.size();
    while (next < body.size() && std::isspace(static_cast<unsigned char>(body[next])))
      ++next;
    if (next < body.size() && (body[next] == '(' || body[next] == '<'))
      return true;
  }
  return false;
}

std::map<std::string, Function> functions_of(const FamilySource& source) {
  std::map<std::string, Function> functions;
  const std::vector<std::string>& lines = source.lines;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string code = lines[i].substr(0, lines[i].find("//"));
    const bool kernel = code.find("__global__") != std::string::npos;
    if (!kernel && code.find("__device__") == std::string::npos)
      continue;
    // The name is the first identifier before '(' ahead of the body, once __launch_bounds__(...)
    // is set aside: the signature may put it first and the name on the next line, and a
    // parameter may be a reference to an array, `float (&acc)[4]`.
    std::string signature;
    for (std::size_t j = i; j < lines.size() && j < i + 4; ++j)
      signature += lines[j].substr(0, lines[j].find("//")) + " ";
    const auto body = signature.find('{');
    if (body == std::string::npos || signature.find(';') < body)
      continue; // a declaration, or a one-line member of a struct with its body later
    signature = without_launch_bounds(signature.substr(0, body));
    const std::string name = name_before_paren(signature);
    if (!name.empty() && !functions.count(name))
      functions[name] = {{static_cast<int>(i) + 1, closing_line(lines, i)}, kernel};
  }
  return functions;
}

// The lines of `kernel` and of every __device__ function it calls, directly or not (a name
// written in a reached body counts as a call).
std::vector<LineRange> reachable_ranges(const FamilySource& source,
                                        const std::map<std::string, Function>& functions,
                                        const std::string& kernel) {
  std::vector<std::string> reached{kernel}, queue{kernel};
  while (!queue.empty()) {
    const LineRange range = functions.at(queue.back()).range;
    queue.pop_back();
    std::string body;
    for (int line = range.first; line <= range.last; ++line)
      body += source.lines[line - 1].substr(0, source.lines[line - 1].find("//")) + "\n";
    for (const auto& [name, function] : functions) {
      if (function.kernel || std::find(reached.begin(), reached.end(), name) != reached.end())
        continue;
      if (calls(body, name)) {
        reached.push_back(name);
        queue.push_back(name);
      }
    }
  }
  std::vector<LineRange> ranges;
  for (const std::string& name : reached)
    ranges.push_back(functions.at(name).range);
  return ranges;
}

} // namespace

const FamilySource& family_source(const KernelDesc& kernel) {
  const std::string file = kernel_family(kernel.id) + ".cu";
  const auto& sources = family_sources();
  const auto found = sources.find(file);
  if (found == sources.end())
    throw UsageError("kernel " + kernel.id + ": this binary holds no source file " + file);
  return found->second;
}

std::string kernel_function_name(const KernelDesc& kernel, const Params& params) {
  if (!kernel.symbol || kernel.sites.empty())
    return "";
  std::string name = kernel.symbol(params); // "wl::matmul_tiled<16>"
  name = name.substr(0, name.find('<'));
  const auto colons = name.rfind("::");
  return colons == std::string::npos ? name : name.substr(colons + 2);
}

std::string demangled_function_name(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  std::string name = status == 0 ? text.get() : mangled; // "void wl::matmul_tiled<16>(float..."
  name = name.substr(0, name.find('('));
  name = name.substr(0, name.find('<'));
  if (const auto space = name.rfind(' '); space != std::string::npos)
    name = name.substr(space + 1);
  if (const auto colons = name.rfind("::"); colons != std::string::npos)
    name = name.substr(colons + 2);
  return name;
}

namespace {

SiteLines find_site_lines(const KernelDesc& kernel, const Params& params) {
  const FamilySource& source = family_source(kernel);
  SiteLines result;
  result.file = source.file;
  result.lines.assign(kernel.sites.size(), 0);
  result.sharing.assign(kernel.sites.size(), 1);
  const std::string function = kernel_function_name(kernel, params);
  const auto functions = functions_of(source);
  const auto own = functions.find(function);
  if (own == functions.end() || !own->second.kernel) {
    result.problem = kernel.id + ": no __global__ function " + function + " in " + source.file;
    return result;
  }
  result.first_line = own->second.range.first;
  result.last_line = own->second.range.last;
  const std::vector<LineRange> reachable = reachable_ranges(source, functions, function);
  const auto reached = [&](int line) {
    return std::any_of(reachable.begin(), reachable.end(),
                       [line](const LineRange& r) { return r.contains(line); });
  };
  std::vector<std::pair<int, std::vector<std::string>>> marked; // reached lines with a marker
  for (std::size_t i = 0; i < source.lines.size(); ++i) {
    const int line = static_cast<int>(i) + 1;
    if (std::vector<std::string> names = marked_sites(source.lines[i]);
        !names.empty() && reached(line))
      marked.emplace_back(line, std::move(names));
  }
  for (std::size_t s = 0; s < kernel.sites.size(); ++s) {
    std::vector<int> found;
    for (const auto& [line, names] : marked)
      if (std::find(names.begin(), names.end(), kernel.sites[s].name) != names.end())
        found.push_back(line);
    if (found.size() == 1) {
      result.lines[s] = found.front();
    } else if (result.problem.empty()) {
      result.problem = kernel.id + " site \"" + kernel.sites[s].name +
                       "\": " + std::to_string(found.size()) + " lines of " + source.file +
                       " that the kernel " + function +
                       " reaches are marked with it; one was expected";
    }
  }
  for (std::size_t s = 0; s < kernel.sites.size(); ++s)
    for (std::size_t t = 0; t < kernel.sites.size(); ++t)
      if (s != t && result.lines[s] != 0 && result.lines[s] == result.lines[t] &&
          kernel.sites[s].space == kernel.sites[t].space &&
          kernel.sites[s].op == kernel.sites[t].op)
        ++result.sharing[s];
  return result;
}

} // namespace

SiteLines site_lines(const KernelDesc& kernel, const Params& params) {
  // The lines depend only on the file and the function a launch runs, and finding them parses the
  // file (milliseconds): once per kernel and function, since every report of a run asks.
  static std::map<std::pair<std::string, std::string>, SiteLines> found;
  static std::mutex guard;
  const std::pair key{kernel.id, kernel_function_name(kernel, params)};
  {
    const std::lock_guard lock(guard);
    if (const auto it = found.find(key); it != found.end())
      return it->second;
  }
  SiteLines lines = find_site_lines(kernel, params);
  const std::lock_guard lock(guard);
  return found.emplace(key, std::move(lines)).first->second;
}

const std::vector<EmbeddedCubinView>& embedded_cubins() {
  static const std::vector<EmbeddedCubinView> cubins = [] {
    std::vector<EmbeddedCubinView> views;
    static const std::regex name(R"(([A-Za-z0-9_]+)\.sm_([0-9]+)[a-z]?\.cubin)");
    for (const EmbeddedCubin& c : kEmbeddedCubins) {
      std::cmatch match;
      if (c.name && std::regex_match(c.name, match, name))
        views.push_back({match[1].str(), std::stoi(match[2].str()), c.bytes, c.size});
    }
    return views;
  }();
  return cubins;
}

} // namespace wl
