#include "kernel_file/compile_cache.h"

#include "base/base64.h"
#include "base/error.h"
#include "base/file_output.h"
#include "base/json_fields.h"
#include "base/json_input.h"
#include "base/text_file.h"
#include "base/text_hash.h"
#include "kernel_file/toolkit_headers.h"

#include <cstdlib>
#include <vector>

namespace wl {

using nlohmann::json;

json compiled_json(const CompiledKernelFile& c) {
  json usage = json::object();
  for (const auto& [name, u] : c.usage)
    usage[name] = {{"sm", u.sm},
                   {"registers", u.registers},
                   {"static_shared_bytes", u.static_shared_bytes},
                   {"stack_frame_bytes", u.stack_frame_bytes},
                   {"spill_store_bytes", u.spill_store_bytes},
                   {"spill_load_bytes", u.spill_load_bytes},
                   {"barriers", u.barriers}};
  return {{"cubin", base64_encoded(c.cubin)},
          {"ptx", c.ptx},
          {"log", c.log},
          {"lowered", c.lowered},
          {"usage", usage},
          {"seconds", c.seconds}};
}

CompiledKernelFile compiled_from_json(const json& line, const std::string& where) {
  const Fields f(line, where);
  if (f.has("error")) {
    f.only({"error"}, "a compile server's refusal");
    throw UsageError(f.text("error", false));
  }
  f.only({"cubin", "ptx", "log", "lowered", "usage", "seconds"}, "a compile");
  CompiledKernelFile c;
  const std::optional<std::vector<char>> cubin = base64_decoded(f.text("cubin", false));
  if (!cubin)
    f.fail("cubin", "not base64", "allowed the cubin's bytes in base64");
  c.cubin = *cubin;
  c.ptx = f.text("ptx");
  c.log = f.text("log");
  c.seconds = f.number("seconds", 0, 1e6);
  const Fields lowered(f.at("lowered", "allowed an object of names"), f.where(), "lowered.");
  for (const auto& [name, value] : lowered.raw().items())
    c.lowered[name] = lowered.text(name.c_str(), false);
  const Fields usage(f.at("usage", "allowed an object of kernels' resources"), f.where(), "usage.");
  for (const auto& [name, value] : usage.raw().items()) {
    const Fields u(value, f.where(), "usage." + name + ".");
    u.only({"sm", "registers", "static_shared_bytes", "stack_frame_bytes", "spill_store_bytes",
            "spill_load_bytes", "barriers"},
           "a kernel's resources");
    c.usage[name] = CompiledResources{
        .sm = static_cast<int>(u.integer("sm", 10, 1000)),
        .registers = static_cast<int>(u.integer("registers", 0, 255)),
        .static_shared_bytes = static_cast<int>(u.integer("static_shared_bytes", 0, kMaxInt)),
        .stack_frame_bytes = static_cast<int>(u.integer("stack_frame_bytes", 0, kMaxInt)),
        .spill_store_bytes = static_cast<int>(u.integer("spill_store_bytes", 0, kMaxInt)),
        .spill_load_bytes = static_cast<int>(u.integer("spill_load_bytes", 0, kMaxInt)),
        .barriers = static_cast<int>(u.integer("barriers", 0, 16)),
        .recorded = false};
  }
  return c;
}

namespace {

// When a folder last changed: a toolkit installed again over the old one changes its headers.
std::string changed_at(const std::string& folder) {
  std::error_code error;
  const auto time = std::filesystem::last_write_time(folder, error);
  return error ? "?" : std::to_string(time.time_since_epoch().count());
}

} // namespace

std::filesystem::path compile_cache_folder() {
  const std::filesystem::path folder = user_cache_folder();
  return folder.empty() ? folder : folder / "compiles";
}

std::string compile_key(const KernelFileCompile& request) {
  std::string key = nvrtc_version() + '\0' + std::to_string(request.sm) + '\0' + request.text;
  for (const auto& [name, text] : request.headers)
    key += std::string(1, '\0') + name + '\0' + text;
  for (const std::string& kernel : request.kernels)
    key += std::string(1, '\0') + kernel;
  for (const auto& [name, value] : request.tunables)
    key += std::string(1, '\0') + name + '=' + std::to_string(value);
  for (const std::string& folder : toolkit_headers().folders)
    key += std::string(1, '\0') + folder + '@' + changed_at(folder);
  // The file's name is in its messages and its line table.
  key += std::string(1, '\0') + std::filesystem::path(request.file).filename().string();
  return text_digest(key);
}

std::optional<CompiledKernelFile> cached_compile(const std::string& key) {
  const std::filesystem::path folder = compile_cache_folder();
  if (folder.empty())
    return std::nullopt;
  try {
    const json entry = read_json_document(folder / (key + ".json"), "kept compile");
    if (!entry.is_object() || entry.value("key", "") != key)
      return std::nullopt;
    json compiled = entry;
    compiled.erase("key");
    return compiled_from_json(compiled, "kept compile " + key);
  } catch (const Error&) { // none, or one that does not read: compiled again
    return std::nullopt;
  }
}

void keep_compile(const std::string& key, const CompiledKernelFile& compiled) {
  const std::filesystem::path folder = compile_cache_folder();
  if (folder.empty() || !make_folders(folder).empty())
    return;
  json entry = compiled_json(compiled);
  entry["key"] = key;
  const std::string text = json_text(entry);
  if (!write_file_safely(
           folder / (key + ".json"), text,
           {.replace_existing = true, .write_through_links = false, .keep_on_failure = false})
           .empty())
    return;
  keep_newest(folder, ".json", kMostCachedCompiles);
}

} // namespace wl
