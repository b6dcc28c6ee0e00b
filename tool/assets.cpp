#include "assets.h"

#include "arch.h"
#include "block_text.h"
#include "error.h"
#include "json_fields.h"
#include "json_input.h"
#include "protocol.h"

#include <cstdlib>
#include <set>
#include <system_error>

#include <nlohmann/json.hpp>

namespace wl {

namespace {

std::filesystem::path executable_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe.parent_path();
}

bool has_presets(const std::filesystem::path& folder) {
  std::error_code ec;
  return std::filesystem::is_directory(folder / "arch", ec);
}

// A recording's runs stand for its label in model mode: each must be of the device it names, on
// a GPU of the preset it names (as many SMs, the same compute capability), and each launch once
// (a second run of it would never be shown: the first match fills).
void check_recorded_run(const RunResult& run, const Arch& preset, const std::string& device,
                        std::set<std::string>& launches, const std::string& at) {
  if (run.arch.name != device)
    throw UsageError(at + ": measured on " + clip(run.arch.name, 60) + "; the recording is of " +
                     clip(device, 60) + "; allowed runs of that device alone");
  if (run.arch.sm_count != preset.sm_count || run.arch.cc_major != preset.cc_major ||
      run.arch.cc_minor != preset.cc_minor)
    throw UsageError(at + ": a GPU of " + std::to_string(run.arch.sm_count) + " SMs, sm_" +
                     std::to_string(run.arch.cc_major * 10 + run.arch.cc_minor) +
                     "; the recording stands for " + preset.id + " (" +
                     std::to_string(preset.sm_count) + " SMs, " + preset.sm_name() + ")");
  if (!launches
           .insert(nlohmann::json{run.kernel_id, run.params, run.launch.block.x, run.launch.block.y,
                                  run.launch.block.z}
                       .dump())
           .second)
    throw UsageError(at + ": a second run of " + run.kernel_id + " block " +
                     format_block(run.launch.block) +
                     " with the same parameters; allowed each launch once");
}

// The GUI reads a recording with plain `at` calls and wraps only their errors, so the whole of it
// is checked here, where every message names the file and the key.
void check_recording(const nlohmann::json& json, const std::string& origin) {
  const Fields recording(json, origin);
  const std::string arch = recording.text("arch", false);
  const std::string device = recording.text("device", false);
  recording.text("date", false);
  Arch preset;
  try {
    preset = find_arch(load_arch_presets(assets_dir() / "arch"), arch);
  } catch (const UsageError& e) {
    throw UsageError(origin + ": arch: " + e.what());
  }
  const nlohmann::json& runs = recording.list("runs");
  std::set<std::string> launches;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string at = origin + ": runs[" + std::to_string(i) + "]";
    check_recorded_run(run_result_from_json(runs[i], at), preset, device, launches, at);
  }
}

} // namespace

std::filesystem::path assets_dir() {
  if (const char* env = std::getenv("WARPLENS_ASSETS"); env && *env) {
    const std::string shown = clip(env, 160);
    std::error_code ec; // a name too long for the file system reads as "not a folder", not a throw
    if (!std::filesystem::is_directory(env, ec))
      throw UsageError("WARPLENS_ASSETS: '" + shown +
                       "' is not a folder; "
                       "allowed the assets folder (with arch/ and metrics.json)");
    if (!has_presets(env))
      throw UsageError("WARPLENS_ASSETS: '" + shown +
                       "' has no arch/ folder; "
                       "allowed the assets folder (with arch/ and metrics.json)");
    return env;
  }
  const auto installed = executable_dir() / ".." / "share" / "warplens";
  if (has_presets(installed))
    return installed.lexically_normal();
  const std::filesystem::path source = WARPLENS_SOURCE_ASSETS;
  if (has_presets(source))
    return source;
  throw UsageError("cannot find WarpLens's assets folder (looked in " + installed.string() +
                   " and " + source.string() + "); set WARPLENS_ASSETS to it");
}

nlohmann::json read_json_file(const std::filesystem::path& file, const std::string& what) {
  nlohmann::json json = read_json_document(file, what);
  if (what == "recording")
    check_recording(json, clip(file.string(), 160));
  return json;
}

} // namespace wl
