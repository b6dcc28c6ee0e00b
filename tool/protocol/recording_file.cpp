#include "protocol/recording_file.h"

#include "base/error.h"
#include "base/json_fields.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "io/assets.h"
#include "model/arch.h"
#include "model/block_text.h"
#include "protocol/run_result_json.h"
#include "registry.h"

#include <chrono>
#include <set>
#include <string_view>

#include <nlohmann/json.hpp>

namespace wl {

namespace {

// A kernel that is not bundled (a kernel file's) is matched by the hash of its text alone, so
// its runs need one; where the recording names sources, every kernel needs one.
void check_source_named(const std::string& kernel, const nlohmann::json& sources,
                        const std::string& at) {
  if (!sources.contains(kernel) && (sources.is_object() || !find_kernel(kernel)))
    throw UsageError(at + ": " + clip(kernel, 60) +
                     (sources.is_object() ? " has no hash in the recording's sources"
                                          : " is no bundled kernel and the recording has no "
                                            "sources") +
                     "; allowed runs of kernels whose source the recording names");
}

// A recording's runs stand for its label in model mode: each must be of the device it names, a
// GPU that stands for the preset it names (as many SMs, the same compute capability, and no
// other preset's GPU by its name).
void check_recorded_device(const RunResult& run, const Arch& preset,
                           const std::vector<Arch>& presets, const std::string& device,
                           const std::string& at) {
  if (run.arch.name != device)
    throw UsageError(at + ": measured on " + clip(run.arch.name, 60) + "; the recording is of " +
                     clip(device, 60) + "; allowed runs of that device alone");
  if (const std::string refusal = preset_refusal(preset, run.arch, presets); !refusal.empty())
    throw UsageError(at + ": " + refusal + "; the recording stands for " + preset.id);
}

// Each launch once: a second run of it would never be shown (the first match fills).
void check_launch_once(const RunResult& run, std::set<std::string>& launches,
                       const std::string& at) {
  if (!launches
           .insert(nlohmann::json{run.kernel_id, run.params, run.launch.block.x, run.launch.block.y,
                                  run.launch.block.z}
                       .dump())
           .second)
    throw UsageError(at + ": a second run of " + run.kernel_id + " block " +
                     format_block(run.launch.block) +
                     " with the same parameters; allowed each launch once");
}

// The preset a recording stands for, by its id alone: model mode finds a recording by the id of
// the preset on screen, and an alias or a path (read from wherever the reader runs) never matches.
Arch preset_named(const std::vector<Arch>& presets, const std::string& arch,
                  const std::string& origin) {
  for (const Arch& preset : presets)
    if (preset.id == arch)
      return preset;
  throw UsageError(origin + ": arch: '" + clip(arch, 60) + "' is not a preset's id; allowed " +
                   preset_ids(presets));
}

// The `count` digits at text[at] as a number from min to max; -1 when they are not that.
int digits_at(std::string_view text, std::size_t at, std::size_t count, int min, int max) {
  if (at + count > text.size())
    return -1;
  int value = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (text[i] < '0' || text[i] > '9')
      return -1;
    value = value * 10 + (text[i] - '0');
  }
  return value >= min && value <= max ? value : -1;
}

// What may end an ISO 8601 time: nothing, "Z", or an offset from UTC ("+01:00", "-0500").
bool is_utc_offset(std::string_view text) {
  if (text.empty() || text == "Z")
    return true;
  const std::size_t colon = text.size() == 6 && text[3] == ':' ? 1 : 0;
  return (text[0] == '+' || text[0] == '-') && text.size() == 5 + colon &&
         digits_at(text, 1, 2, 0, 23) >= 0 && digits_at(text, 3 + colon, 2, 0, 59) >= 0;
}

// "T14:05", " 14:05:09", "T14:05:09.25Z", "T14:05:09+01:00": the time after a date.
bool is_iso_time(std::string_view time) {
  if (time.size() < 6 || (time[0] != 'T' && time[0] != ' ') || digits_at(time, 1, 2, 0, 23) < 0 ||
      time[3] != ':' || digits_at(time, 4, 2, 0, 59) < 0)
    return false;
  time.remove_prefix(6);
  if (time.starts_with(':')) { // seconds (60: a leap second), and a fraction of one
    if (digits_at(time, 1, 2, 0, 60) < 0)
      return false;
    time.remove_prefix(3);
    if (time.starts_with('.')) {
      const std::size_t digits = time.find_first_not_of("0123456789", 1);
      if (digits == 1)
        return false;
      time.remove_prefix(digits == std::string_view::npos ? time.size() : digits);
    }
  }
  return is_utc_offset(time);
}

// "0.1.0": numbers parted by dots.
bool is_version(const std::string& text) {
  return !text.empty() && text.size() <= 20 && text.front() != '.' && text.back() != '.' &&
         text.find("..") == std::string::npos &&
         text.find_first_not_of("0123456789.") == std::string::npos;
}

// "2026-11-26", a day the calendar has (no 2026-02-30), optionally followed by a time.
bool is_iso_date(std::string_view text) {
  using namespace std::chrono;
  const int y = digits_at(text, 0, 4, 1, 9999), m = digits_at(text, 5, 2, 1, 12),
            d = digits_at(text, 8, 2, 1, 31);
  if (y < 0 || m < 0 || d < 0 || text[4] != '-' || text[7] != '-' ||
      !year_month_day(year(y), month(static_cast<unsigned>(m)), day(static_cast<unsigned>(d))).ok())
    return false;
  return text.size() == 10 || is_iso_time(text.substr(10));
}

// "fnv1a64:" and 16 hex digits (base/text_hash.h).
bool is_text_hash(const std::string& text) {
  return text.size() == 24 && text.starts_with("fnv1a64:") &&
         text.find_first_not_of("0123456789abcdef", 8) == std::string::npos;
}

// The code each kernel was built from, by kernel id: {} when the recording names none (one made
// before recordings named them).
nlohmann::json checked_sources(const Fields& recording) {
  if (!recording.has("sources"))
    return nullptr;
  const Fields sources = recording.object("sources");
  for (const auto& [kernel, hash] : sources.raw().items()) {
    if (kernel.empty() || kernel.size() > 200 || has_control_characters(kernel))
      sources.fail(kernel, "is no kernel id", "allowed a kernel's id, e.g. matmul/tiled");
    if (!hash.is_string() || !is_text_hash(hash.get<std::string>()))
      sources.fail(kernel, clip(hash.dump(), 40) + " is not a source's hash",
                   "allowed fnv1a64: and 16 hex digits, as `warplens record` writes");
  }
  return sources.raw();
}

// The GUI reads a recording with plain `at` calls and wraps only their errors, so the whole of it
// is checked here, where every message names the file and the key.
void check_recording(const nlohmann::json& json, const std::string& origin) {
  const Fields recording(json, origin);
  recording.only({"arch", "device", "date", "driver_cuda_version", "warplens", "sources", "runs"},
                 "a recording");
  if (recording.has("warplens"))
    if (const std::string version = recording.name("warplens", false); !is_version(version))
      recording.fail("warplens", "'" + clip(version, 40) + "' is not a version",
                     "allowed a WarpLens version, e.g. 0.1.0");
  const std::string device = recording.name("device", false);
  const std::vector<Arch> presets = load_arch_presets(assets_dir() / "arch");
  const Arch preset = preset_named(presets, recording.text("arch", false), origin);
  const nlohmann::json& runs = recording.list("runs");
  // Shown beside every recorded figure ("recorded on ..., DATE"), so it must be a date.
  if (const std::string date = recording.text("date", false); !is_iso_date(date))
    recording.fail("date", "'" + clip(date, 40) + "' is not a date",
                   "allowed YYYY-MM-DD, optionally with a time (2026-11-26T14:05:09Z)");
  if (runs.empty()) // chosen, it would take the place of the preset's bundled one
    recording.fail("runs", "holds no run", "allowed a recording of at least one launch");
  const nlohmann::json sources = checked_sources(recording);
  std::set<std::string> launches;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string at = origin + ": runs[" + std::to_string(i) + "]";
    const std::string kernel = Fields(runs[i], at).text("kernel", false);
    check_source_named(kernel, sources, at);
    if (!is_bundled_kernel(kernel)) // a kernel file's: read_recorded_run, when it is opened
      continue;
    const RunResult run = run_result_from_json(runs[i], at);
    check_recorded_device(run, preset, presets, device, at);
    check_launch_once(run, launches, at);
  }
}

} // namespace

bool is_bundled_kernel(const std::string& kernel_id) {
  const KernelDesc* kernel = find_kernel(kernel_id);
  return kernel && kernel->kind != KernelKind::run_time;
}

RunResult read_recorded_run(const nlohmann::json& run, const std::string& arch,
                            const std::string& device, const std::string& at) {
  RunResult result = run_result_from_json(run, at);
  const std::vector<Arch> presets = load_arch_presets(assets_dir() / "arch");
  check_recorded_device(result, preset_named(presets, arch, at), presets, device, at);
  return result;
}

nlohmann::json read_recording(const std::filesystem::path& file) {
  nlohmann::json json = read_json_document(file, "recording");
  check_recording(json, clip(file.string(), 160));
  return json;
}

} // namespace wl
