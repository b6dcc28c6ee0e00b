// Every access site knows the line of the family file where its access is written, and the
// build's own line table agrees: the PTX nvcc kept beside each kernel object (-lineinfo) puts a
// load or store of the site's kind on that line, and no global or shared access of a kernel sits
// on a line no site claims. A moved or new access fails here, not in a user's Source panel.

#include "model/kernel_source.h"
#include "registry.h"

#include <cstdlib>
#include <cxxabi.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

namespace wl {
namespace {

struct PtxAccess {
  std::string file; // the file's name, no folder
  int line = 0;
  MemorySpace space = MemorySpace::global;
  AccessOp op = AccessOp::load;
  std::string text; // the PTX instruction, for messages
};

// The global and shared loads and stores of each kernel entry of a PTX file, by the entry's
// function name ("vec_add_scalar"), each at the innermost source line its .loc names. A cp.async
// from global to shared memory is both a global load and a shared store.
std::map<std::string, std::vector<PtxAccess>> ptx_accesses(const std::filesystem::path& ptx) {
  static const std::regex file_directive(R"(^\s*\.file\s+(\d+)\s+"([^"]+)\")");
  static const std::regex entry(R"(\.entry\s+([A-Za-z0-9_$]+))");
  static const std::regex loc(R"(^\s*\.loc\s+(\d+)\s+(\d+))");
  static const std::regex access(R"(^\s*(?:@!?%p\d+\s+)?(ld|st)\.(?:[a-z]+\.)*?(global|shared)\b)");
  static const std::regex async_copy(R"(^\s*(?:@!?%p\d+\s+)?cp\.async\.c[ag]\.shared\.global\b)");
  std::map<int, std::string> files;
  std::map<std::string, std::vector<PtxAccess>> by_function;
  std::ifstream in(ptx);
  std::string function, line;
  int file = 0, source_line = 0;
  std::vector<std::string> body;
  for (std::string text; std::getline(in, text);)
    body.push_back(text);
  for (const std::string& text : body) {
    std::smatch m;
    if (std::regex_search(text, m, file_directive))
      files[std::stoi(m[1])] = std::filesystem::path(m[2].str()).filename().string();
  }
  for (const std::string& text : body) {
    std::smatch m;
    if (std::regex_search(text, m, entry)) {
      function = demangled_function_name(m[1]);
      by_function[function];
    } else if (std::regex_search(text, m, loc)) {
      file = std::stoi(m[1]);
      source_line = std::stoi(m[2]);
    } else if (!function.empty() && std::regex_search(text, m, async_copy)) {
      for (const auto& [space, op] : {std::pair{MemorySpace::global, AccessOp::load},
                                      std::pair{MemorySpace::shared, AccessOp::store}})
        by_function[function].push_back({files[file], source_line, space, op, text});
    } else if (!function.empty() && std::regex_search(text, m, access)) {
      by_function[function].push_back({files[file], source_line,
                                       m[2] == "global" ? MemorySpace::global : MemorySpace::shared,
                                       m[1] == "ld" ? AccessOp::load : AccessOp::store, text});
    }
  }
  return by_function;
}

std::filesystem::path ptx_of(const std::string& family_file) {
  const std::filesystem::path keep =
      std::filesystem::path(WARPLENS_KERNEL_OBJECT_DIR) / (family_file + ".o.keep");
  for (const auto& entry : std::filesystem::directory_iterator(keep))
    if (entry.path().extension() == ".ptx")
      return entry.path();
  return {};
}

Params defaults(const KernelDesc& kernel) {
  Params p;
  for (const ParamSpec& spec : kernel.params)
    p[spec.name] = spec.default_value;
  return p;
}

TEST(SiteLines, EverySiteOfEveryKernelIsMarkedOnceInItsFamilyFile) {
  for (const KernelDesc& kernel : all_kernels()) {
    if (kernel.sites.empty())
      continue;
    const SiteLines lines = site_lines(kernel, defaults(kernel));
    EXPECT_EQ(lines.problem, "") << kernel.id;
    for (std::size_t s = 0; s < kernel.sites.size(); ++s)
      EXPECT_GT(lines.lines[s], 0) << kernel.id << " " << kernel.sites[s].name;
  }
}

TEST(SiteLines, TheBuildsLineTableHasEachSitesAccessOnItsLineAndNoAccessElsewhere) {
  std::map<std::string, std::map<std::string, std::vector<PtxAccess>>> ptx_by_file;
  for (const KernelDesc& kernel : all_kernels()) {
    if (kernel.sites.empty())
      continue;
    const Params params = defaults(kernel);
    const SiteLines lines = site_lines(kernel, params);
    if (!ptx_by_file.count(lines.file)) {
      const std::filesystem::path ptx = ptx_of(lines.file);
      ASSERT_FALSE(ptx.empty()) << "no PTX kept for " << lines.file;
      ptx_by_file[lines.file] = ptx_accesses(ptx);
    }
    const std::string function = kernel_function_name(kernel, params);
    const auto found = ptx_by_file[lines.file].find(function);
    ASSERT_NE(found, ptx_by_file[lines.file].end()) << kernel.id << ": no entry " << function;
    const std::vector<PtxAccess>& accesses = found->second;
    for (std::size_t s = 0; s < kernel.sites.size(); ++s) {
      const Site& site = kernel.sites[s];
      const bool on_its_line = std::any_of(accesses.begin(), accesses.end(), [&](const auto& a) {
        return a.file == lines.file && a.line == lines.lines[s] && a.space == site.space &&
               a.op == site.op;
      });
      EXPECT_TRUE(on_its_line) << kernel.id << " site \"" << site.name << "\": no "
                               << access_kind(site.space, site.op) << " on " << lines.file << ":"
                               << lines.lines[s] << " in the build's PTX";
    }
    for (const PtxAccess& a : accesses) {
      bool claimed = false;
      for (std::size_t s = 0; s < kernel.sites.size(); ++s)
        claimed |= a.file == lines.file && a.line == lines.lines[s] &&
                   a.space == kernel.sites[s].space && a.op == kernel.sites[s].op;
      EXPECT_TRUE(claimed) << kernel.id << ": the " << access_kind(a.space, a.op) << " at "
                           << a.file << ":" << a.line << " belongs to no site (" << a.text << ")";
    }
  }
}

} // namespace
} // namespace wl
