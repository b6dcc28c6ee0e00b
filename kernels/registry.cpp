#include "registry.h"

#include "families.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <stdexcept>

namespace wl {

namespace {

std::vector<KernelDesc>& kernels_for_testing() {
  static std::vector<KernelDesc> kernels;
  return kernels;
}
// Every run-time kernel ever added (a deque: adding keeps the earlier ones where they are), and
// the current one of each id.
struct RunTimeKernels {
  std::mutex mutex;
  std::deque<KernelDesc> added;
  std::vector<const KernelDesc*> current;
};
RunTimeKernels& run_time_list() {
  static RunTimeKernels list;
  return list;
}

bool registry_read = false;
std::size_t bundled_count = 0; // the first kernels of the list; a test program's own follow

// Every family, in the order of the catalog (the list's).
using FamilyKernels = std::vector<KernelDesc> (*)();
constexpr FamilyKernels kFamilies[] = {
#define WL_KERNEL_FAMILY(name) name##_kernels,
#include "kernel_families.inc"
#undef WL_KERNEL_FAMILY
};

std::vector<KernelDesc> build_registry() {
  std::vector<KernelDesc> all;
  for (FamilyKernels family : kFamilies)
    for (KernelDesc& kernel : family())
      all.push_back(std::move(kernel));
  bundled_count = all.size();
  for (KernelDesc& kernel : kernels_for_testing())
    all.push_back(std::move(kernel));
  registry_read = true;
  return all;
}

} // namespace

const std::vector<KernelDesc>& all_kernels() {
  static const std::vector<KernelDesc> kernels = build_registry();
  return kernels;
}

void add_kernels_for_testing(std::vector<KernelDesc> kernels) {
  if (registry_read)
    throw std::logic_error("add_kernels_for_testing: the kernel list was already read");
  for (KernelDesc& kernel : kernels)
    kernels_for_testing().push_back(std::move(kernel));
}

std::string catalog_version() {
  std::uint64_t hash = 0xcbf29ce484222325ull; // FNV-1a, 64 bits
  const auto mix = [&](const std::string& text) {
    for (unsigned char c : text + '\x1f')
      hash = (hash ^ c) * 0x100000001b3ull;
  };
  const std::vector<KernelDesc>& kernels = all_kernels();
  for (std::size_t i = 0; i < bundled_count; ++i) {
    const KernelDesc& kernel = kernels[i];
    mix(kernel.id);
    mix(std::to_string(kernel.block_rank));
    for (const ParamSpec& p : kernel.params) {
      mix(p.name + " " + std::to_string(p.default_value) + " " + std::to_string(p.min) + " " +
          std::to_string(p.max));
      for (std::int64_t choice : p.choices)
        mix(std::to_string(choice));
    }
    for (const Site& site : kernel.sites)
      mix(site.name);
  }
  char digest[24];
  std::snprintf(digest, sizeof digest, "%08llx", static_cast<unsigned long long>(hash >> 32));
  return std::to_string(bundled_count) + " kernels #" + digest;
}

const KernelDesc& add_run_time_kernel(KernelDesc kernel) {
  kernel.kind = KernelKind::run_time;
  RunTimeKernels& list = run_time_list();
  const std::lock_guard lock(list.mutex);
  const KernelDesc& added = list.added.emplace_back(std::move(kernel));
  std::erase_if(list.current, [&](const KernelDesc* k) { return k->id == added.id; });
  list.current.push_back(&added);
  return added;
}

std::vector<const KernelDesc*> run_time_kernels() {
  RunTimeKernels& list = run_time_list();
  const std::lock_guard lock(list.mutex);
  return list.current;
}

const KernelDesc* find_kernel(const std::string& id) {
  for (const KernelDesc& kernel : all_kernels())
    if (kernel.id == id)
      return &kernel;
  for (const KernelDesc* kernel : run_time_kernels())
    if (kernel->id == id)
      return kernel;
  return nullptr;
}

std::string kernel_family(const std::string& id) { return id.substr(0, id.find('/')); }

std::vector<const KernelDesc*> family_kernels(const std::string& family) {
  std::vector<const KernelDesc*> kernels;
  for (const KernelDesc& k : all_kernels())
    if (kernel_family(k.id) == family)
      kernels.push_back(&k);
  return kernels;
}

std::vector<std::string> kernel_families() {
  std::vector<std::string> families;
  for (const KernelDesc& k : all_kernels())
    if (std::find(families.begin(), families.end(), kernel_family(k.id)) == families.end())
      families.push_back(kernel_family(k.id));
  return families;
}

} // namespace wl
